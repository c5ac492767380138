import { ErrorCode } from '../../jsonrpc/errors';
import { corsAllowsOrigin } from './cors';
import type { CorsOptions } from './cors';
import { utf8Length } from '../../base/text';
import { endJson, unrefTimer } from './http-exchange';
import type { HttpRequestLike, HttpResponseLike } from './http-exchange';

/**
 * The checks an MCP HTTP endpoint makes before it looks at a message, shared by the Streamable
 * HTTP and the 2024-11-05 HTTP+SSE servers: Host and Origin allow-lists (DNS rebinding), media
 * types, and a bounded body reader. Internal to the transport layer.
 */

/** Which Host and Origin headers a server accepts (spec: Security Best Practices → DNS rebinding). */
export interface OriginPolicy {
  /**
   * The names this server answers to: Host header values accepted, each a host name
   * (`'mcp.example.com'`, `'[::1]'`: any port) or `host:port` (`'mcp.example.com:8443'`). Give the
   * public names of a server that listens on a non-loopback address (behind a proxy, the name the
   * proxy forwards in Host). `false` turns the check off (then a request without Host passes too).
   *
   * Default, decided by the address the request arrived on:
   * - loopback (127.0.0.0/8, `::1`): only `localhost`, `127.0.0.1` and `[::1]`, with any port;
   * - any other address: only that address with the port it arrived on (`10.0.0.5:3000`,
   *   `[2001:db8::1]:3000`; the bare address on ports 80 and 443), so a name another site's DNS
   *   points at the server (DNS rebinding) is refused (403). A web host that does not say which
   *   address a request arrived on gets no default Host check: give `allowedHosts` there.
   *
   * A request without a Host header is refused (400) unless the check is off.
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

/** Why {@link guardHostAndOrigin} refused a request: the status to answer with and the reason. */
export interface HostRefusal {
  /** 400 for a request without a Host header, 403 for a Host or Origin not allowed. */
  readonly status: 400 | 403;
  readonly reason: string;
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
 * Whether a Host header names the non-loopback address a request arrived on, with its port (or
 * no port on 80 and 443; any port when the port is not known): the default off loopback.
 */
function namesBoundAddress(hostHeader: string, address: string, port: number | undefined): boolean {
  const bare = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  const bound = bare.includes(':') ? `[${bare.toLowerCase()}]` : bare.toLowerCase();
  const host = splitHost(hostHeader);
  if (host.name !== bound || port === undefined) return host.name === bound;
  return host.port === undefined ? port === 80 || port === 443 : host.port === String(port);
}

/**
 * Checks Host and Origin against the policy. Returns why the request is refused and the status to
 * answer with (400 without Host, 403 for a Host or Origin not allowed), or `undefined` when it may
 * proceed. The origins of an endpoint's `cors` option pass the Origin check too (the Host check
 * still applies).
 */
export function guardHostAndOrigin(
  req: HttpRequestLike,
  policy: OriginPolicy & { readonly cors?: CorsOptions },
): HostRefusal | undefined {
  const local = req.socket.localAddress;
  const loopback = isLoopbackAddress(local);
  if (policy.allowedHosts !== false) {
    const host = headerValue(req, 'host');
    if (host === undefined || host.trim() === '') return { status: 400, reason: 'a Host header is required' };
    const hosts = policy.allowedHosts ?? (loopback ? LOOPBACK_LIST : undefined);
    const allowed =
      hosts !== undefined
        ? hostAllowed(host, hosts)
        : local === undefined || namesBoundAddress(host, local, req.socket.localPort);
    if (!allowed) return { status: 403, reason: `Host header ${JSON.stringify(host)} is not allowed` };
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  const origins = policy.allowedOrigins;
  if (origins === false || (policy.cors && corsAllowsOrigin(policy.cors, origin))) return undefined;
  const refused: HostRefusal = { status: 403, reason: `Origin ${JSON.stringify(origin)} is not allowed` };
  if (origins === undefined) {
    if (!loopback) return sameOrigin(origin, headerValue(req, 'host')) ? undefined : refused;
    const name = originHost(origin);
    return name !== undefined && LOOPBACK_NAMES.has(name) ? undefined : refused;
  }
  return origins.includes('*') || origins.includes(origin) ? undefined : refused;
}

/**
 * {@link guardHostAndOrigin}'s reason alone, for callers that answer every refusal 403 (a request
 * without Host among them).
 */
export function checkHostAndOrigin(
  req: HttpRequestLike,
  policy: OriginPolicy & { readonly cors?: CorsOptions },
): string | undefined {
  return guardHostAndOrigin(req, policy)?.reason;
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
 * past `maxBytes` (closing the connection once the rest of the body is drained: {@link refuseTooLarge}), 400 for a body that cannot be read, and 400 with a
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
      if (read.status === 413) refuseTooLarge(req, res, read.reason, maxBytes);
      else refuse(res, read.status, read.reason, ErrorCode.ParseError);
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

/** How much of a refused body is read and discarded, at most, before the connection is closed. */
export const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
/** How long a refused body is read and discarded, at most, before the connection is closed. */
export const DRAIN_MAX_MS = 5_000;

/**
 * Answers 413 with `connection: close` and a JSON-RPC error whose `data.maxBodyBytes` names the
 * limit, then goes on reading the rest of the body and discarding it, and ends the response only
 * when the body has ended (or after {@link DRAIN_MAX_BYTES} or {@link DRAIN_MAX_MS}). Closing
 * while the client still writes would reset the connection, and most clients then report a broken
 * pipe instead of the answer; drained, every client reads the 413.
 */
export function refuseTooLarge(req: HttpRequestLike, res: HttpResponseLike, reason: string, maxBytes: number): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const text = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code: ErrorCode.InvalidRequest, message: reason, data: { maxBodyBytes: maxBytes } },
  });
  res.writeHead(413, { 'content-type': 'application/json', 'content-length': utf8Length(text), connection: 'close' });
  if (req.readableEnded) {
    res.end(text);
    return;
  }
  res.write(text);
  let drained = 0;
  const finish = (): void => {
    clearTimeout(timer);
    if (!res.writableEnded) res.end();
  };
  const timer = unrefTimer(setTimeout(finish, DRAIN_MAX_MS));
  req.on('data', (chunk: Uint8Array) => {
    drained += chunk.byteLength;
    if (drained > DRAIN_MAX_BYTES) finish();
  });
  req.on('end', finish);
  req.on('close', finish);
  req.on('error', finish);
  req.resume();
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
