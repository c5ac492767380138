/**
 * Where extensions are declared in capabilities, by revision (spec 2026-07-28: Versioning →
 * Extension Negotiation). From 2026-07-28 a party lists the extensions it supports in the
 * `extensions` field of its capabilities: a map of extension identifiers to settings objects (an
 * empty object for "supported, no settings"). The handshake revisions (2024-11-05 to 2025-11-25)
 * have no such field; their own place for what is not in the core protocol is `experimental`, a
 * map of the same shape, so that is where rxmcp declares extensions to a peer of those revisions.
 *
 * Reading is lenient: a peer of a handshake revision may declare an extension in `experimental`
 * or, as some SDKs do ahead of 2026-07-28, in `extensions`; either counts.
 */
import { revisionAtLeast } from './revisions';

/** The first revision whose capabilities have the `extensions` field. */
export const EXTENSIONS_SINCE = '2026-07-28';

/** An extension's settings object, as declared in capabilities. */
export type ExtensionSettings = Record<string, unknown>;

/** Extension identifiers to settings, as one party declares them. */
export type ExtensionMap = Readonly<Record<string, ExtensionSettings>>;

/**
 * Whether `id` is an extension identifier: a `_meta`-style key with a mandatory prefix, such as
 * `io.modelcontextprotocol/ui` (a reverse-DNS prefix, a slash, then a name).
 */
export function isExtensionId(id: string): boolean {
  return /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+\/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/i.test(
    id,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The extensions a peer declared in `capabilities`: those under `extensions`, and those under
 * `experimental` whose key is an extension identifier (how a handshake revision carries them).
 * Settings that are not objects are ignored: an extension is declared with an object.
 */
export function declaredExtensions(capabilities: Record<string, unknown> | undefined): ExtensionMap {
  const found: Record<string, ExtensionSettings> = {};
  const experimental = capabilities?.experimental;
  if (isObject(experimental)) {
    for (const [id, settings] of Object.entries(experimental)) {
      if (isExtensionId(id) && isObject(settings)) found[id] = settings;
    }
  }
  const extensions = capabilities?.extensions;
  if (isObject(extensions)) {
    for (const [id, settings] of Object.entries(extensions)) if (isObject(settings)) found[id] = settings;
  }
  return found;
}

/** The settings a peer declared for extension `id`, or undefined when it did not declare it. */
export function extensionSettings(
  capabilities: Record<string, unknown> | undefined,
  id: string,
): ExtensionSettings | undefined {
  return declaredExtensions(capabilities)[id];
}

const placed = new WeakMap<object, Record<string, unknown>>();

/**
 * Our capabilities as a peer of `revision` is sent them: unchanged from 2026-07-28 on (or when the
 * revision is not known yet), and with the `extensions` entries moved into `experimental` for a
 * handshake revision. The same input object gives the same output object.
 */
export function placeExtensions<T extends Record<string, unknown>>(capabilities: T, revision: string | undefined): T {
  if (revision === undefined || revisionAtLeast(revision, EXTENSIONS_SINCE)) return capabilities;
  const extensions = capabilities.extensions;
  if (extensions === undefined) return capabilities;
  const cached = placed.get(capabilities);
  if (cached !== undefined) return cached as T;
  const { extensions: _moved, ...rest } = capabilities;
  const experimental = isObject(rest.experimental) ? rest.experimental : {};
  const out =
    isObject(extensions) && Object.keys(extensions).length > 0
      ? { ...rest, experimental: { ...experimental, ...extensions } }
      : rest;
  placed.set(capabilities, out);
  return out as T;
}
