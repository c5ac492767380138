import type { IncomingMessage, ServerResponse } from 'node:http';
import { assertAuthenticator } from '../../http/caller';
import { FetchRequest, FetchResponse } from '../fetch-exchange';
import { StreamableHttpEndpoint } from './streamable-http-handler';
import type { StreamableHttpHandlerOptions } from './streamable-http-handler-options';
import type { StreamableHttpServerTransport } from './streamable-http-session';

/** What a host knows about a request beyond the web `Request` itself. */
export interface FetchRequestContext {
  /**
   * The body a framework already parsed (for example after `await c.req.json()` in Hono). Without
   * it, the handler reads the `Request`'s body; one that was read and not passed on is answered 500
   * with a message that says so.
   */
  readonly parsedBody?: unknown;
  /**
   * The local address the request arrived on, when the host knows it. A loopback one turns on the
   * default Host and Origin checks for local servers (see `OriginPolicy`); a web `Request` does not
   * carry it, so without it those defaults are the ones for a public address: no Host check, and
   * an Origin must be the server's own. Give `allowedHosts` for a local server.
   */
  readonly localAddress?: string;
}

/** A Streamable HTTP endpoint for hosts that speak web `Request` and `Response`. */
export interface StreamableHttpFetchHandler {
  /**
   * Serves one request to the MCP endpoint: a fetch-style handler for Bun, Deno, Cloudflare
   * Workers, Next.js route handlers or Hono (`app.all('/mcp', (c) => mcp.fetch(c.req.raw))`).
   * Never rejects; failures are answered with an HTTP status.
   */
  readonly fetch: (request: Request) => Promise<Response>;
  /** `fetch`, with what the host knows beyond the `Request` (a parsed body, the local address). */
  readonly handle: (request: Request, context?: FetchRequestContext) => Promise<Response>;
  /** The open sessions by id (always empty in sessionless mode). */
  readonly sessions: ReadonlyMap<string, StreamableHttpServerTransport>;
  /** Closes every session and refuses later requests with 503. Idempotent. */
  close(): void;
}

/**
 * Creates the server side of the Streamable HTTP transport as a web handler,
 * `(request: Request) => Promise<Response>`: the endpoint of `createStreamableHttpHandler`, with the
 * same options, statuses and errors (sessions, SSE or JSON answers, GET streams, DELETE,
 * `Last-Event-ID` resumption, the modern revisions, authorization, Host and Origin checks,
 * limits), served through web streams instead of Node's `http` objects.
 *
 * With `auth`, it also answers a GET for the protected resource metadata at its well-known URL
 * (`/.well-known/oauth-protected-resource` and the resource's path), as `startStreamableHttpServer`
 * does: route that path to it too (Hono: `app.get('/.well-known/oauth-protected-resource/*', ...)`).
 * Every other request goes through `auth` exactly as the Node handler's do (401 with the
 * challenge, 403 `insufficient_scope` per tool, resource or prompt, sessions kept with the
 * principal that opened them). Throws a `TypeError` when `auth` is not a `RequestAuthenticator`
 * (a function of the endpoint URL is for `startStreamableHttpServer` only).
 *
 * The promise settles once the answer's head is known: an SSE answer's body is a `ReadableStream`
 * that carries each event as it is sent. Cancelling that stream, or the request's `signal`
 * aborting, is the client going away: a stream can then be resumed (with an event store), and a
 * modern request is cancelled.
 *
 * @example
 * const mcp = createStreamableHttpFetchHandler({ server: createServer({ name: 'demo', version: '1.0.0' }) });
 * Bun.serve({ port: 3000, fetch: (request) => mcp.fetch(request) });
 * // Next.js (app/mcp/route.ts): export const GET = mcp.fetch, POST = mcp.fetch, DELETE = mcp.fetch;
 */
export function createStreamableHttpFetchHandler(options: StreamableHttpHandlerOptions): StreamableHttpFetchHandler {
  assertAuthenticator(options.auth, 'createStreamableHttpFetchHandler');
  const { auth } = options;
  const endpoint = new StreamableHttpEndpoint(options);
  const handle = (request: Request, context?: FetchRequestContext): Promise<Response> => {
    const req = new FetchRequest(request, context?.localAddress);
    const res = new FetchResponse(request.signal);
    // The metadata is public: served before the endpoint's checks. `serveMetadata` reads the
    // method and writes a head and a body, which the web adapters have as Node's objects do.
    const metadata =
      auth !== undefined &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      auth.serveMetadata(
        req as unknown as IncomingMessage,
        res as unknown as ServerResponse,
        new URL(request.url, 'http://localhost'),
      );
    if (!metadata) endpoint.handle(req, res, context?.parsedBody);
    return res.response;
  };
  return {
    fetch: (request) => handle(request),
    handle,
    sessions: endpoint.sessions.transports,
    close() {
      endpoint.close();
    },
  };
}
