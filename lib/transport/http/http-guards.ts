import { ErrorCode } from '../../jsonrpc/errors';
import { corsAllowsOrigin } from './cors';
import type { CorsOptions } from './cors';
import { endJson } from './http-exchange';
import type { HttpRequestLike, HttpResponseLike } from './http-exchange';

/**
 * The checks an MCP HTTP endpoint makes before it looks at a message, shared by the Streamable
 * HTTP and the 2024-11-05 HTTP+SSE servers: Host and Origin allow-lists (DNS rebinding), media
 * types, and a bounded body reader. Internal to the transport layer.
 */

/** Which Host and Origin headers a server accepts (spec: Security Best Practices → DNS rebinding). */
export interface OriginPolicy {
  /**
   * Host header values accepted: a host name (`'localhost'`, `'[::1]'`: any port) or
   * `host:port`. `false` turns the check off. Default: when the request arrived on a loopback
   * address, only `localhost`, `127.0.0.1` and `[::1]`, with any port; otherwise no check.
   */
  readonly allowedHosts?: readonly string[] | false;
  /**
   * Origin header values accepted (`'http://localhost:3000'`), or `'*'` in the list for any.
   * A request without Origin (not from a browser) always passes. `false` turns the check off.
   * Default: on a loopback address, origins whose host is a loopback name; otherwise only the
   * server's own origin, the one the request's Host header names (spec 2025-06-18 on: servers MUST
   * validate Origin; `Origin: null` and other sites get 403). Give the origins of the web apps that
   * call the server here.
   */
  readonly allowedOrigins?: readonly string[] | false;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const LOOPBACK_LIST: readonly string[] = [...LOOPBACK_NAMES];

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped IPv6 forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const bare = address.startsWith('::ffff:') ? address.slice(7) : address;
  return bare === '::1' || bare.startsWith('127.');
}

/** Splits a Host header value into its lower-cased host name (IPv6 kept in brackets) and port. */
function splitHost(value: string): { name: string; port?: string } {
  const host = value.trim().toLowerCase();
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close === -1) return { name: host };
    const rest = host.slice(close + 1);
    return rest.startsWith(':')
      ? { name: host.slice(0, close + 1), port: rest.slice(1) }
      : { name: host.slice(0, close + 1) };
  }
  const colon = host.lastIndexOf(':');
  if (colon === -1 || host.indexOf(':') !== colon) return { name: host };
  return { name: host.slice(0, colon), port: host.slice(colon + 1) };
}

function hostAllowed(hostHeader: string, allowed: readonly string[]): boolean {
  const { name, port } = splitHost(hostHeader);
  const full = port === undefined ? name : `${name}:${port}`;
  return allowed.some((entry) => {
    const wanted = entry.toLowerCase();
    return wanted === name || wanted === full;
  });
}

function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Whether `origin` is the server's own: same host and port as the Host header (#13). */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    return url.host.toLowerCase() === host.trim().toLowerCase();
  } catch {
    return false;
  }
}

/**
 * Checks Host and Origin against the policy. Returns why the request is refused, or `undefined`
 * when it may proceed. The caller answers 403. The origins of an endpoint's `cors` option pass the
 * Origin check too (the Host check still applies).
 */
export function checkHostAndOrigin(
  req: HttpRequestLike,
  policy: OriginPolicy & { readonly cors?: CorsOptions },
): string | undefined {
  const loopback = isLoopbackAddress(req.socket.localAddress);
  const hosts = policy.allowedHosts ?? (loopback ? LOOPBACK_LIST : false);
  if (hosts !== false) {
    const host = req.headers.host;
    if (host === undefined || !hostAllowed(host, hosts))
      return `Host header ${JSON.stringify(host ?? '')} is not allowed`;
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  const origins = policy.allowedOrigins;
  if (origins === false || (policy.cors && corsAllowsOrigin(policy.cors, origin))) return undefined;
  if (origins === undefined) {
    if (!loopback)
      return sameOrigin(origin, req.headers.host) ? undefined : `Origin ${JSON.stringify(origin)} is not allowed`;
    const name = originHost(origin);
    return name !== undefined && LOOPBACK_NAMES.has(name)
      ? undefined
      : `Origin ${JSON.stringify(origin)} is not allowed`;
  }
  if (origins.includes('*') || origins.includes(origin)) return undefined;
  return `Origin ${JSON.stringify(origin)} is not allowed`;
}

// A client sends the same Accept header on every request: the last one parsed is kept.
let lastAccept: string | undefined;
let lastAcceptedTypes: readonly string[] = [];

/** The media types listed in an Accept header, lower-cased, without parameters. */
function acceptedTypes(req: HttpRequestLike): readonly string[] {
  const header = req.headers.accept;
  if (header === undefined) return [];
  if (header !== lastAccept) {
    lastAcceptedTypes = header.split(',').map((part) => (part.split(';')[0] ?? '').trim().toLowerCase());
    lastAccept = header;
  }
  return lastAcceptedTypes;
}

/** Whether the Accept header admits `type` (exactly, or through `*\/*` or `major/*`). */
export function accepts(req: HttpRequestLike, type: string): boolean {
  const major = type.split('/')[0];
  return acceptedTypes(req).some((entry) => entry === type || entry === '*/*' || entry === `${major}/*`);
}

/** Whether the request says its body is JSON (`application/json`, any parameters). */
export function isJsonContentType(req: HttpRequestLike): boolean {
  const header = req.headers['content-type'];
  return header !== undefined && (header.split(';')[0] ?? '').trim().toLowerCase() === 'application/json';
}

/** The first value of a header that may repeat. */
export function headerValue(req: HttpRequestLike, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Answers with an HTTP error status and a JSON-RPC error response without an id as the body
 * (spec: Transports → "The HTTP response body MAY comprise a JSON-RPC error response that has no id").
 * Does nothing when the response has already started.
 */
export function refuse(
  res: HttpResponseLike,
  status: number,
  message: string,
  code: number = ErrorCode.ConnectionClosed,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
  endJson(res, status, body, headers);
}

/** What {@link readBody} produced: the text, or the status and reason to refuse with. */
export type BodyResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly status: number; readonly reason: string };

/**
 * Reads a request body as UTF-8 text and hands the result to `done` (once), refusing more than
 * `maxBytes` (413) before reading it all when Content-Length already says so. On refusal the rest
 * of the body is drained and discarded so that the 413 reaches the client. A broken request ends
 * as a 400. Callback-based, so that the request path allocates no Promise.
 */
export function readBodyWith(req: HttpRequestLike, maxBytes: number, done: (result: BodyResult) => void): void {
  const declared = Number(headerValue(req, 'content-length'));
  const tooLarge = (): BodyResult => ({
    ok: false,
    status: 413,
    reason: `Request body exceeds the limit of ${maxBytes} bytes`,
  });
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    done(tooLarge());
    return;
  }
  let first: Uint8Array | undefined;
  let chunks: Uint8Array[] | undefined;
  let size = 0;
  let settled = false;
  const settle = (result: BodyResult): void => {
    if (settled) return;
    settled = true;
    done(result);
  };
  req.on('data', (chunk: Uint8Array) => {
    if (settled) return;
    size += chunk.byteLength;
    if (size > maxBytes) {
      first = chunks = undefined;
      settle(tooLarge());
      return;
    }
    if (first === undefined) first = chunk;
    else (chunks ??= [first]).push(chunk);
  });
  req.on('end', () => {
    const body = chunks ? concatBytes(chunks, size) : first;
    settle({ ok: true, text: body ? UTF8.decode(body) : '' });
  });
  req.on('error', (error) =>
    settle({ ok: false, status: 400, reason: `Request body could not be read: ${error.message}` }),
  );
  req.on('close', () => settle({ ok: false, status: 400, reason: 'Request ended before its body was read' }));
}

const UTF8 = new TextDecoder();

function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

/** {@link readBodyWith} as a Promise. Never rejects. */
export function readBody(req: HttpRequestLike, maxBytes: number): Promise<BodyResult> {
  return new Promise<BodyResult>((resolve) => readBodyWith(req, maxBytes, resolve));
}

/**
 * What {@link readJsonBodyWith} produced: the parsed body, or `ok: false` once the refusal was
 * answered (`consumed` when the body had been read before the handler, a set-up mistake).
 */
export type JsonBodyResult =
  { readonly ok: true; readonly body: unknown } | { readonly ok: false; readonly consumed?: true };

/** The answer (500) to a POST whose body a body parser read before the handler, without handing it over. */
export const BODY_CONSUMED =
  'Internal Server Error: the request body was read before it reached the MCP handler (a body parser such as ' +
  'express.json() ran first) and no parsed body was passed on. Pass the parsed body to the handler ' +
  '(handle(req, res, req.body), or { parsedBody } with a web Request), or mount the MCP route before the body parser.';

/**
 * Reads a POSTed JSON-RPC body, or answers the refusal itself: 415 for another content type, 413
 * past `maxBytes` (closing the connection), 400 for a body that cannot be read, and 400 with a
 * -32700 parse error for text that is not JSON. Calls `done` once, with `{ ok: false }` after it
 * has answered. A body a framework already parsed is taken as it is (and `done` runs at once); a
 * body a framework read but did not hand over is a 500 (-32603) that says so and how to fix it.
 */
export function readJsonBodyWith(
  req: HttpRequestLike,
  res: HttpResponseLike,
  parsedBody: unknown,
  maxBytes: number,
  done: (result: JsonBodyResult) => void,
): void {
  if (parsedBody !== undefined) {
    done({ ok: true, body: parsedBody });
    return;
  }
  if (req.readableEnded) {
    refuse(res, 500, BODY_CONSUMED, ErrorCode.InternalError);
    done({ ok: false, consumed: true });
    return;
  }
  if (!isJsonContentType(req)) {
    refuse(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
    done({ ok: false });
    return;
  }
  readBodyWith(req, maxBytes, (read) => {
    if (!read.ok) {
      const tooLarge = read.status === 413;
      refuse(
        res,
        read.status,
        read.reason,
        tooLarge ? ErrorCode.InvalidRequest : ErrorCode.ParseError,
        tooLarge ? { connection: 'close' } : {},
      );
      done({ ok: false });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(read.text) as unknown;
    } catch (error) {
      refuse(res, 400, `Parse error: ${(error as Error).message}`, ErrorCode.ParseError);
      done({ ok: false });
      return;
    }
    done({ ok: true, body });
  });
}

/** {@link readJsonBodyWith} as a Promise. Never rejects. */
export function readJsonBody(
  req: HttpRequestLike,
  res: HttpResponseLike,
  parsedBody: unknown,
  maxBytes: number,
): Promise<JsonBodyResult> {
  return new Promise<JsonBodyResult>((resolve) => readJsonBodyWith(req, res, parsedBody, maxBytes, resolve));
}
