/**
 * The reserved `_meta` keys of the modern revisions (2026-07-28 on; spec: Basic → `_meta`),
 * how to tell a message of that family by its `_meta`, and the shape of `_meta` in any params.
 * Data and types only, so every layer can use it.
 */

/** The reserved `_meta` keys of the modern revisions. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/**
 * The params of any request or notification as this library reads them: open, with `_meta` an
 * object when present (Basic → `_meta`), whose `progressToken` a request's caller sets. The
 * schemas check this of every method they know; it is the envelope every other one shares.
 */
export interface MessageParams {
  readonly _meta?: MessageMeta;
  readonly [key: string]: unknown;
}

/** A message's `_meta`: open, with the progress token a request may carry. */
export interface MessageMeta {
  readonly progressToken?: string | number;
  readonly [key: string]: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The revision a message's `_meta` names, or undefined when it names none (a handshake-family message). */
export function modernRevisionOf(params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  const meta = params._meta;
  if (!isObject(meta)) return undefined;
  const version = meta[META.protocolVersion];
  return typeof version === 'string' ? version : undefined;
}
