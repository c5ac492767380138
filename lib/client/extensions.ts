/**
 * Extensions on the client (spec 2026-07-28: Versioning → Extension Negotiation): what the client
 * declares (`ClientOptions.extensions`) goes under `capabilities.extensions` of a modern
 * revision and under `capabilities.experimental` of the `initialize` handshake (whose revisions
 * have no `extensions` field); and what the server declared is read from either place.
 */
import { declaredExtensions, placeExtensions } from '../schema/extensions';
import type { ExtensionMap, ExtensionSettings } from '../schema/extensions';
import { LATEST_LEGACY_REVISION } from '../schema/revisions';
import type { McpClient } from './client-api';

/** The extensions the server declared (see `declaredExtensions`). */
export function serverExtensions(client: Pick<McpClient, 'serverCapabilities'>): ExtensionMap {
  return declaredExtensions(client.serverCapabilities as Record<string, unknown>);
}

/** The settings the server declared for extension `id`, or undefined when it did not declare it. */
export function serverExtension(
  client: Pick<McpClient, 'serverCapabilities'>,
  id: string,
): ExtensionSettings | undefined {
  return serverExtensions(client)[id];
}

/** Whether the server declared extension `id`. */
export function serverSupportsExtension(client: Pick<McpClient, 'serverCapabilities'>, id: string): boolean {
  return serverExtension(client, id) !== undefined;
}

/** The client's capabilities with its extensions: under `extensions`, as the modern revisions carry them. */
export function withExtensions(
  capabilities: Record<string, unknown>,
  extensions: ExtensionMap | undefined,
): Record<string, unknown> {
  if (extensions === undefined || Object.keys(extensions).length === 0) return capabilities;
  const given = (capabilities.extensions ?? {}) as ExtensionMap;
  return { ...capabilities, extensions: { ...given, ...extensions } };
}

/** The capabilities as the `initialize` handshake offering `revision` sends them. */
export function handshakeCapabilities(
  capabilities: Record<string, unknown>,
  revision: string | undefined,
): Record<string, unknown> {
  return placeExtensions(capabilities, revision ?? LATEST_LEGACY_REVISION);
}
