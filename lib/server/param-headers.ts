import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';

/** One tool argument mirrored into an `Mcp-Param-*` header (spec 2026-07-28: Tools → `x-mcp-header`). */
export interface ParamHeader {
  /** The chain of `properties` keys from the schema root to the argument. */
  readonly path: readonly string[];
  /** The header's name, lower-cased: `mcp-param-<x-mcp-header value>`. */
  readonly header: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PLAIN_VALUE = /^[\x20-\x7e\t]*$/;
const SENTINEL = /^=\?base64\?(.*)\?=$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The `x-mcp-header` annotations of a tool's input schema, reachable through `properties` only.
 * Throws a `TypeError` naming the problem for an annotation the spec does not allow (an invalid
 * or repeated header name, a non-primitive or `number` parameter), so a server cannot offer a
 * tool that conforming clients must drop.
 */
export function paramHeadersOf(
  schema: unknown,
  path: readonly string[] = [],
  found: ParamHeader[] = [],
): ParamHeader[] {
  if (!isObject(schema) || !isObject(schema.properties)) return found;
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) continue;
    const here = [...path, name];
    const annotation = property['x-mcp-header'];
    if (annotation !== undefined) {
      if (typeof annotation !== 'string' || !TOKEN.test(annotation)) {
        throw new TypeError(
          `x-mcp-header of ${here.join('.')} must be an HTTP token, got ${JSON.stringify(annotation)}`,
        );
      }
      if (!['string', 'integer', 'boolean'].includes(property.type as string)) {
        throw new TypeError(`x-mcp-header of ${here.join('.')} needs a string, integer or boolean parameter`);
      }
      const header = `mcp-param-${annotation.toLowerCase()}`;
      if (found.some((other) => other.header === header))
        throw new TypeError(`x-mcp-header ${annotation} is used twice`);
      found.push({ path: here, header });
    }
    paramHeadersOf(property, here, found);
  }
  return found;
}

/** A header value as sent: plain, or the strict Base64 sentinel form; undefined when malformed. */
function decode(value: string): string | undefined {
  const sentinel = SENTINEL.exec(value);
  if (!sentinel) return PLAIN_VALUE.test(value) ? value : undefined;
  const encoded = sentinel[1]!;
  return BASE64.test(encoded) ? Buffer.from(encoded, 'base64').toString('utf8') : undefined;
}

function matches(header: string, value: unknown): boolean {
  if (typeof value === 'string') return header === value;
  if (typeof value === 'boolean') return header === String(value);
  if (typeof value === 'number') return header.trim() !== '' && Number(header) === value;
  return false;
}

/**
 * Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments: a value in the body
 * needs its header, decoded equal to it; throws -32020 otherwise.
 */
export function checkParamHeaders(
  annotations: readonly ParamHeader[],
  args: Record<string, unknown> | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): void {
  for (const { path, header } of annotations) {
    let value: unknown = args;
    for (const key of path) value = isObject(value) ? value[key] : undefined;
    if (value === undefined || value === null) continue;
    const raw = headers[header];
    const sent = Array.isArray(raw) ? raw[0] : raw;
    const fail = (why: string) => new JsonRpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${header} ${why}`);
    if (sent === undefined) throw fail(`is required: the argument ${path.join('.')} has a value`);
    const decoded = decode(sent);
    if (decoded === undefined) throw fail('has an invalid value');
    if (!matches(decoded, value)) throw fail(`does not match the argument ${path.join('.')}`);
  }
}
