/**
 * The request metadata headers a Streamable HTTP client sends with a message of a modern
 * revision (2026-07-28 on; spec: Transports → Streamable HTTP → Request Metadata), derived from the
 * message itself, and the value encoding they share with `Mcp-Param-*` headers. Client side only.
 */
import type { JsonRpcMessage } from '../../../jsonrpc/message';

/** The `_meta` key that names a request's revision in the modern revisions. */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** The Base64 sentinel (Transports → Streamable HTTP → Value Encoding). */
const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';

/** Methods whose `Mcp-Name` header mirrors `params.name`, or `params.uri` for `resources/read`. */
const NAME_FIELD: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` can go into a header as it is: visible ASCII and inner spaces, no sentinel look-alike. */
function isPlainHeaderValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  if (value !== value.trim()) return false;
  return !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX));
}

/**
 * Encodes a value for `Mcp-Name` or `Mcp-Param-*`: as it is when it is plain visible ASCII (inner
 * spaces allowed), else as `=?base64?{Base64 of its UTF-8}?=` (non-ASCII, control characters such
 * as tab, CR and LF, leading or trailing whitespace, or a value that itself looks like the sentinel).
 */
export function encodeHeaderValue(value: string): string {
  if (isPlainHeaderValue(value)) return value;
  return `${SENTINEL_PREFIX}${base64OfUtf8(value)}${SENTINEL_SUFFIX}`;
}

/** Base64 of a string's UTF-8, with what browsers have as well as Node (no `Buffer`). */
function base64OfUtf8(value: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The modern revision a message's `_meta` names, if it is a request of that family. */
export function modernRevisionOfMessage(message: JsonRpcMessage): string | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const params = (message as { params?: unknown }).params;
  if (!isObject(params) || !isObject(params._meta)) return undefined;
  const version = params._meta[PROTOCOL_VERSION_META];
  return typeof version === 'string' ? version : undefined;
}

/**
 * The standard headers of a modern request, in lower case: `mcp-protocol-version` from its
 * `_meta`, `mcp-method`, and `mcp-name` for `tools/call`, `prompts/get` and `resources/read`
 * (encoded when needed). Undefined for a message that is not a modern request.
 */
export function standardHeadersOf(message: JsonRpcMessage): Record<string, string> | undefined {
  const revision = modernRevisionOfMessage(message);
  if (revision === undefined) return undefined;
  const { method, params } = message as { method: string; params: Record<string, unknown> };
  const headers: Record<string, string> = { 'mcp-protocol-version': revision, 'mcp-method': method };
  const field = NAME_FIELD[method];
  const name = field === undefined ? undefined : params[field];
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

/**
 * Copies `source`'s headers (names already in lower case) onto `target`, and returns it. Headers are
 * merged this way rather than by spreading: V8 adds a property to a spread copy slowly.
 */
export function addHeaders(
  target: Record<string, string>,
  source: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  if (source) for (const name of Object.keys(source)) target[name] = source[name]!;
  return target;
}

/** Header names in lower case, so that a caller's `Mcp-Param-Region` replaces rather than doubles one. */
export function lowerCaseHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const lower: Record<string, string> = {};
  if (headers) for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  return lower;
}
