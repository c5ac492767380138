import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { LifecycleInspector } from '../../../base/inspection';
import type { LoggerOption } from '../../../base/logger';
import type { ModernReceiver } from '../../transport';
import type { RequestAuthenticator } from '../../http/request-auth';
import type { EventStore } from './event-store';
import type { OriginPolicy } from '../../http/http-guards';
import type { CorsOptions } from '../../http/cors';
import type { StreamableHttpServerTransport } from './streamable-http-session';

/** Options of {@link createStreamableHttpHandler} and of its web form, `createStreamableHttpFetchHandler`. */
export interface StreamableHttpHandlerOptions extends OriginPolicy {
  /**
   * The server to serve, as `createServer` makes it: sessions of the handshake revisions go to its
   * `connect` (unless `onSession` is given) and requests of the modern revisions to its
   * `modern` receiver (unless `modernReceiver` is given). One endpoint then serves both
   * families side by side, chosen per request.
   */
  readonly server?: McpEndpointServer;
  /**
   * Called with a new transport for each session (each `initialize` without a session id), or for
   * each POST in sessionless mode. Connect a server to it: `onSession: (t) => server.connect(t)`.
   * Runs before the first message is delivered, so subscribe to `incoming$` synchronously.
   * Default: `server.connect`.
   */
  readonly onSession?: (transport: StreamableHttpServerTransport) => void;
  /**
   * Receives the XState inspection events of the lifecycle machine of every session the endpoint
   * connects to `server` (each session an actor of its own; modern requests build none): passed
   * to `server.connect(transport, { inspect })`, over the server's own `inspect`. A function, or an
   * observer whose `next` is called, such as `inspector.inspect` of `@statelyai/inspect`. Not used
   * with `onSession`, which connects sessions itself: pass it to `connect` there.
   * @example
   * import { createWebSocketInspector } from '@statelyai/inspect';
   * const inspector = createWebSocketInspector({ url: 'ws://localhost:8080' });
   * await startStreamableHttpServer({ port: 3000, server, inspect: inspector.inspect });
   */
  readonly inspect?: LifecycleInspector;
  /**
   * Serves POSTs of the modern revisions (2026-07-28 on: no session; the revision in the
   * `MCP-Protocol-Version` header and in `_meta`), each on its own with no session or transport.
   * Default: `server.modern`. Without one, such requests are refused as the handshake revisions
   * would refuse them (a client then falls back to initialize).
   */
  readonly modernReceiver?: ModernReceiver;
  /** A comment line is written on a quiet modern SSE stream this often. Default 30 s. */
  readonly keepAliveMs?: number;
  /**
   * No sessions: every POST gets a fresh transport that closes once the POST is answered; no
   * `Mcp-Session-Id`; GET and DELETE answer 405. A POST that is not `initialize` is preceded, on
   * its fresh transport, by a synthetic `initialize` (revision from `MCP-Protocol-Version`, else
   * 2025-03-26; no client capabilities) and `notifications/initialized`, whose answer is
   * dropped, so the server serves it as an initialized session. Server-to-client requests cannot
   * be answered in this mode (the answer would arrive on another POST). Default `false`.
   */
  readonly sessionless?: boolean;
  /** A session with no open HTTP response for this long is closed. Default 30 minutes; `Infinity` keeps sessions. */
  readonly sessionIdleMs?: number;
  /**
   * Where SSE events are kept for `Last-Event-ID` resumption. Default: an in-memory store of
   * at most 1 000 events per session and 100 000 in all, a session's dropped when it ends
   * (`createInMemoryEventStore`; session mode). `false`: no resumption, no event ids, no
   * priming events, and `closeRequestStream` is refused.
   */
  readonly eventStore?: EventStore | false;
  /** The `retry:` sent in the priming event of each SSE stream, in ms: how long clients wait before resuming. Default 1000. */
  readonly retryMs?: number;
  /** The largest request body accepted; larger ones get 413. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Protects the endpoint (MCP authorization): every request's credentials are checked first, a
   * refusal is answered 401 or 403 with its challenge, and the verified caller is the transport's
   * and each modern request's `auth`. `createResourceServer` makes one.
   */
  readonly auth?: RequestAuthenticator;
  /**
   * Answer POSTed requests with one JSON body instead of an SSE stream. Messages the server
   * sends about such a request before its response (progress, logs, requests to the client) then
   * go to the standalone GET stream. Default `false`.
   */
  readonly enableJsonResponse?: boolean;
  /**
   * How long the answer to a POSTed request may wait to be one `application/json` body. When the
   * request's response is the first message the server sends for it, within this time, it is
   * answered as JSON (spec: Transports → Sending Messages to the Server: "either
   * `text/event-stream` ... or `application/json`"); when a notification or request goes first,
   * or this time passes, the answer becomes an SSE stream (with its priming event, from which the
   * client can resume a broken connection). `0`: always SSE at once. Default 1000 ms with an event
   * store; without one (sessionless mode, `eventStore: false`) a stream has no priming event to
   * offer, so the default is `Infinity`: decide when the first message is ready.
   */
  readonly jsonWindowMs?: number;
  /** An SSE response whose unsent output grows past this many bytes (a slow reader) is closed. Default 8 MiB. */
  readonly maxBufferedBytes?: number;
  /** Messages kept for the standalone stream while no GET is open (oldest dropped first). Default 1000. */
  readonly maxHeldMessages?: number;
  /**
   * The most sessions open at once; an initialize past it is answered 503 with `Retry-After`, so one
   * client cannot make the server hold sessions without bound (#13). Default 10 000.
   */
  readonly maxSessions?: number;
  /**
   * With `auth`, the most sessions one principal (`principalOf`) may hold open at once; its next
   * initialize is answered 429 (-32029) with `Retry-After` until it closes one (DELETE, or idle
   * expiry), so that one user cannot take every place of `maxSessions`. Default 100; 0 for no limit.
   */
  readonly maxSessionsPerPrincipal?: number;
  /**
   * Revisions served. Handshake revisions (through 2025-11-25) are the values accepted in
   * `MCP-Protocol-Version` on session requests; another gets 400. Give only modern ones (for
   * example `['2026-07-28']`) for a deployment that keeps no sessions at all: `initialize` is then
   * refused with -32022 naming them, and GET and DELETE answer 405. Default: every handshake
   * revision rxmcp speaks (modern requests go to the `modernReceiver` whatever this says).
   */
  readonly supportedRevisions?: readonly string[];
  /**
   * Makes session ids, given the `initialize` request; default `crypto.randomUUID()`. Ids must be
   * visible ASCII (0x21 to 0x7E).
   */
  readonly generateSessionId?: (req: { readonly headers: IncomingHttpHeaders }) => string;
  /** Sessions opened/closed at info, refused requests at warn, messages at trace. Silent by default. */
  readonly logger?: LoggerOption;
  /**
   * Lets web pages on other origins call the endpoint with `fetch` (CORS): preflights are
   * answered, and the session id and auth challenge are exposed to the page. Its origins also pass
   * the Origin check. Default: no CORS headers (a browser then lets only same-origin pages read
   * the answers).
   */
  readonly cors?: CorsOptions;
}

/** What the handler needs of a server: `createServer`'s result fits. */
export interface McpEndpointServer {
  /** Serves a session over its transport. */
  connect(transport: StreamableHttpServerTransport, options?: { readonly inspect?: LifecycleInspector }): unknown;
  readonly modern?: ModernReceiver;
  /** The scopes a request needs beyond the endpoint's own (a tool's, a resource's or a prompt's). */
  requiredScopes?(method: string, params: unknown): readonly string[];
}

/** A Streamable HTTP endpoint for `node:http` or any framework that hands over Node's request and response. */
export interface StreamableHttpHandler {
  /**
   * Serves one request to the MCP endpoint (POST, GET or DELETE; other methods get 405). Pass
   * `parsedBody` when a body parser already consumed the body (for example Express's
   * `express.json()`); a body a parser read that is not passed is answered 500 with a message
   * that says so. Never throws; failures are answered with an HTTP status.
   */
  readonly handle: (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => void;
  /** The open sessions by id (always empty in sessionless mode). */
  readonly sessions: ReadonlyMap<string, StreamableHttpServerTransport>;
  /** Closes every session and refuses later requests with 503. Idempotent. */
  close(): void;
  /**
   * Opens a session with a known id without a handshake: one that another process served (a
   * cluster resumes it), its transport handed to `connect` rather than `onSession` (connect it
   * with what the session persisted). Its new streams are numbered from `firstStream`, so their
   * ids differ from those the earlier process gave; its standalone stream keeps its id. Throws
   * when a session with that id is open.
   *
   * @param principal The principal (`principalOf`) of the request that opened the session: only
   * requests of that principal are served (others get 403). Without it, a restored session is
   * bound to no principal and serves whoever has its id, so give it whenever the endpoint has `auth`.
   */
  restoreSession?(
    sessionId: string,
    connect: (transport: StreamableHttpServerTransport) => void,
    firstStream: number,
    principal?: string,
  ): StreamableHttpServerTransport;
}

/** Defaults of {@link createStreamableHttpHandler}. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_RETRY_MS = 1000;
export const DEFAULT_JSON_WINDOW_MS = 1000;
export const DEFAULT_MAX_SESSIONS = 10_000;
export const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = 100;
