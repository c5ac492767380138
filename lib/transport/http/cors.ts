import type { HttpRequestLike, HttpResponseLike } from './http-exchange';

/**
 * Cross-origin resource sharing (the Fetch standard's CORS protocol) for MCP HTTP endpoints, so
 * that a web page on another origin can call the server with `fetch`: preflights answered, the
 * calling origin allowed, and the MCP response headers exposed to the page's script. Internal to
 * the transport layer; servers take a {@link CorsOptions}.
 */

/** Which browser origins may call an endpoint across origins, and how. */
export interface CorsOptions {
  /**
   * The origins allowed (`'https://app.example.com'`, compared exactly), or `'*'` for any. These
   * origins also pass the endpoint's Origin check (see `allowedOrigins`), which would otherwise
   * refuse a foreign origin with 403.
   */
  readonly origins: readonly string[] | '*';
  /** Request headers a page may send beyond the MCP ones (see `CORS_REQUEST_HEADERS`). */
  readonly allowHeaders?: readonly string[];
  /** Response headers a page may read beyond the MCP ones (see `CORS_EXPOSED_HEADERS`). */
  readonly exposeHeaders?: readonly string[];
  /** How long a browser may reuse a preflight's answer (`Access-Control-Max-Age`). Default 600 s. */
  readonly maxAgeSeconds?: number;
  /**
   * Let pages send cookies and HTTP authentication (`Access-Control-Allow-Credentials: true`);
   * the calling origin is then always named rather than `*`. Default `false`: a bearer token in
   * `Authorization` needs no credentials mode.
   */
  readonly credentials?: boolean;
}

/** The methods an MCP endpoint serves across origins. */
export const CORS_METHODS: readonly string[] = ['GET', 'POST', 'DELETE'];

/**
 * The request headers an MCP client sends, allowed in every preflight: the media types, the
 * bearer token, the session and revision headers, `Last-Event-ID` for resumption, and the
 * request metadata of the modern revisions (2026-07-28: `Mcp-Method`, `Mcp-Name`; each
 * `Mcp-Param-*` a preflight asks for is allowed too, their names being the tools' own).
 */
export const CORS_REQUEST_HEADERS: readonly string[] = [
  'content-type',
  'accept',
  'authorization',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
];

/** The response headers a page's client must read: the session id, the revision and the auth challenge. */
export const CORS_EXPOSED_HEADERS: readonly string[] = ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate'];

const DEFAULT_MAX_AGE_SECONDS = 600;
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** Whether `origin` is one `cors` allows. */
export function corsAllowsOrigin(cors: CorsOptions, origin: string): boolean {
  return cors.origins === '*' || cors.origins.includes(origin);
}

/**
 * Applies `cors` to one request. A request from an allowed origin gets `Access-Control-Allow-Origin`
 * (and the exposed headers) set on `res`, kept by whatever answer follows. A preflight (OPTIONS with
 * `Access-Control-Request-Method`) is answered here: 204 with the methods, headers and max age for an
 * allowed origin, 403 for another. Returns `true` when it answered, `false` when the request goes on
 * to the endpoint. Requests without `Origin` (not from a browser) are left as they are.
 */
export function applyCors(req: HttpRequestLike, res: HttpResponseLike, cors: CorsOptions): boolean {
  const origin = req.headers.origin;
  const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
  if (cors.origins !== '*' || cors.credentials) res.setHeader('vary', 'Origin');
  if (origin === undefined) return false;
  if (!corsAllowsOrigin(cors, origin)) {
    if (!preflight) return false;
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end(`Origin ${origin} may not call this endpoint`);
    return true;
  }
  res.setHeader('access-control-allow-origin', cors.origins === '*' && !cors.credentials ? '*' : origin);
  if (cors.credentials) res.setHeader('access-control-allow-credentials', 'true');
  if (!preflight) {
    res.setHeader('access-control-expose-headers', [...CORS_EXPOSED_HEADERS, ...(cors.exposeHeaders ?? [])].join(', '));
    return false;
  }
  res.writeHead(204, {
    'access-control-allow-methods': CORS_METHODS.join(', '),
    'access-control-allow-headers': allowedRequestHeaders(req, cors).join(', '),
    'access-control-max-age': String(cors.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS),
    'content-length': '0',
  });
  res.end();
  return true;
}

/** The MCP request headers, the configured extras, and the `Mcp-Param-*` headers the preflight asks for. */
function allowedRequestHeaders(req: HttpRequestLike, cors: CorsOptions): string[] {
  const allowed = [...CORS_REQUEST_HEADERS, ...(cors.allowHeaders ?? []).map((name) => name.toLowerCase())];
  const requested = req.headers['access-control-request-headers'];
  if (requested === undefined) return allowed;
  for (const name of requested.split(',')) {
    const header = name.trim().toLowerCase();
    if (PARAM_HEADER.test(header) && !allowed.includes(header)) allowed.push(header);
  }
  return allowed;
}
