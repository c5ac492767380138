import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type pino from 'pino';
import { classify } from '../../jsonrpc/classify';
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { toValidationIssues } from '../../schema/issues';
import { checkParams } from '../../schema/methods';
import { errorResponse } from '../../jsonrpc/message';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { statelessRevisionOf } from '../../schema/request-meta';
import type { StatelessReceiver } from '../transport';
import { serveStatelessPost } from './stateless-exchange';
import { guardRequest } from '../http/request-auth';
import type { RequestAuthenticator } from '../http/request-auth';
import { lacksScopes, sameCaller, setCaller } from './endpoint-auth';
import { isStatefulRevision, LATEST_STATEFUL_REVISION, STATEFUL_REVISIONS } from '../../schema/revisions';
import { createInMemoryEventStore } from './event-store';
import type { EventStore } from './event-store';
import { accepts, checkHostAndOrigin, headerValue, readJsonBodyWith, refuse } from '../http/http-guards';
import type { OriginPolicy } from '../http/http-guards';
import { createSession } from './streamable-http-session';
import type { Session, StreamableHttpServerTransport } from './streamable-http-session';
import { childLogger } from '../../jsonrpc/logger';

/** Options of {@link createStreamableHttpHandler}. */
export interface StreamableHttpHandlerOptions extends OriginPolicy {
  /**
   * The server to serve, as `createServer` makes it: sessions of the handshake revisions go to its
   * `connect` (unless `onSession` is given) and requests of the stateless revisions to its
   * `stateless` receiver (unless `statelessReceiver` is given). One endpoint then serves both
   * families side by side, chosen per request.
   */
  readonly server?: McpEndpointServer;
  /**
   * Called with a new transport for each session (each `initialize` without a session id), or for
   * each POST in stateless mode. Connect a server to it: `onSession: (t) => server.connect(t)`.
   * Runs before the first message is delivered, so subscribe to `incoming$` synchronously.
   * Default: `server.connect`.
   */
  readonly onSession?: (transport: StreamableHttpServerTransport) => void;
  /**
   * Serves POSTs of the stateless revisions (2026-07-28 on: no session; the revision in the
   * `MCP-Protocol-Version` header and in `_meta`), each on its own with no session or transport.
   * Default: `server.stateless`. Without one, such requests are refused as the handshake revisions
   * would refuse them (a client then falls back to initialize).
   */
  readonly statelessReceiver?: StatelessReceiver;
  /** A comment line is written on a quiet stateless SSE stream this often. Default 30 s. */
  readonly keepAliveMs?: number;
  /**
   * No sessions: every POST gets a fresh transport that closes once the POST is answered; no
   * `Mcp-Session-Id`; GET and DELETE answer 405. A POST that is not `initialize` is preceded, on
   * its fresh transport, by a synthetic `initialize` (revision from `MCP-Protocol-Version`, else
   * 2025-03-26; no client capabilities) and `notifications/initialized`, whose answer is
   * dropped, so the server serves it as an initialized session. Server-to-client requests cannot
   * be answered in this mode (the answer would arrive on another POST). Default `false`.
   */
  readonly stateless?: boolean;
  /** A session with no open HTTP response for this long is closed. Default 30 minutes; `Infinity` keeps sessions. */
  readonly sessionIdleMs?: number;
  /**
   * Where SSE events are kept for `Last-Event-ID` resumption. Default: an in-memory store of
   * at most 1 000 events per session and 100 000 in all, a session's dropped when it ends
   * (`createInMemoryEventStore`; stateful mode). `false`: no resumption, no event ids, no
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
   * and each stateless request's `auth`. `createResourceServer` makes one.
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
   * store; without one (stateless mode, `eventStore: false`) a stream has no priming event to
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
   * Revisions served. Handshake revisions (through 2025-11-25) are the values accepted in
   * `MCP-Protocol-Version` on session requests; another gets 400. Give only stateless ones (for
   * example `['2026-07-28']`) for a deployment that keeps no sessions at all: `initialize` is then
   * refused with -32022 naming them, and GET and DELETE answer 405. Default: every handshake
   * revision rxmcp speaks (stateless requests go to the `statelessReceiver` whatever this says).
   */
  readonly supportedRevisions?: readonly string[];
  /** Makes session ids; default `crypto.randomUUID()`. Ids must be visible ASCII (0x21 to 0x7E). */
  readonly generateSessionId?: () => string;
  /** Sessions opened/closed at info, refused requests at warn, messages at trace. Silent by default. */
  readonly logger?: pino.Logger;
}

/** What the handler needs of a server: `createServer`'s result fits. */
export interface McpEndpointServer {
  connect(transport: StreamableHttpServerTransport): unknown;
  readonly stateless?: StatelessReceiver;
  /** The scopes a request needs beyond the endpoint's own (a tool's, a resource's or a prompt's). */
  requiredScopes?(method: string, params: unknown): readonly string[];
}

/** A Streamable HTTP endpoint for `node:http` or any framework that hands over Node's request and response. */
export interface StreamableHttpHandler {
  /**
   * Serves one request to the MCP endpoint (POST, GET or DELETE; other methods get 405). Pass
   * `parsedBody` when a body parser already consumed the body (for example Express's
   * `express.json()`). Never throws; failures are answered with an HTTP status.
   */
  readonly handle: (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => void;
  /** The open sessions by id (always empty in stateless mode). */
  readonly sessions: ReadonlyMap<string, StreamableHttpServerTransport>;
  /** Closes every session and refuses later requests with 503. Idempotent. */
  close(): void;
}

/** Defaults of {@link createStreamableHttpHandler}. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_RETRY_MS = 1000;
export const DEFAULT_JSON_WINDOW_MS = 1000;
export const DEFAULT_MAX_SESSIONS = 10_000;

const SESSION_HEADER = 'mcp-session-id';
const VERSION_HEADER = 'mcp-protocol-version';
const STATELESS_INIT_ID = 'rxmcp:stateless-initialize';
/** Spec: Transports → Protocol Version Header: a server that cannot tell SHOULD assume 2025-03-26. */
const ASSUMED_REVISION = '2025-03-26';

interface SessionEntry {
  readonly session: Session;
  timer?: NodeJS.Timeout;
  open: number;
}

/**
 * Creates the server side of the Streamable HTTP transport (spec: Transports → Streamable HTTP) as
 * a plain `(req, res)` handler, with sessions, SSE or JSON answers, resumption and the security
 * checks. Each `initialize` without a session id opens a session and calls `onSession` with its
 * transport; the session ends on DELETE, when idle for `sessionIdleMs`, or when its transport is
 * closed (the server closing the session). A request for a session that ended gets 404.
 *
 * - POST: a body of notifications and responses only answers 202. One with requests answers one
 *   `application/json` body when the response is the first thing the server sends for it (within
 *   `jsonWindowMs`); otherwise an SSE stream (with a priming event carrying `retry` when there is
 *   an event store) on which the server's responses, and whatever it sends while handling them
 *   (`relatedRequestId`), arrive; the stream ends after the last response. With
 *   `enableJsonResponse`, always one JSON body.
 * - GET opens the standalone stream for messages unrelated to a request (held while none is
 *   open), or with `Last-Event-ID` replays a stream after that event and carries on with it.
 * - Refusals: 403 Host/Origin not allowed (on by default for loopback addresses), 405 method,
 *   406 Accept lacks `application/json` and `text/event-stream` (GET: the latter), 413 body too
 *   large, 415 not `application/json`, 400 unparsable JSON (-32700), not JSON-RPC (-32600),
 *   unsupported `MCP-Protocol-Version`, or a non-initialize request without a session id, 404
 *   unknown or ended session, 409 a second standalone GET or a request id already in flight.
 *   Bodies of refusals are JSON-RPC error responses without an id.
 * - A peer's protocol version header may differ from the negotiated revision as long as it is a
 *   supported one (some clients send an older value on later requests).
 *
 * @example
 * const server = createServer({ name: 'demo', version: '1.0.0' });
 * const mcp = createStreamableHttpHandler({ onSession: (t) => server.connect(t) });
 * http.createServer((req, res) => mcp.handle(req, res)).listen(3000, '127.0.0.1');
 */
export function createStreamableHttpHandler(options: StreamableHttpHandlerOptions): StreamableHttpHandler {
  const log = childLogger(options.logger, { component: 'transport', transport: 'streamable-http-server' });
  const stateless = options.stateless ?? false;
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const json = options.enableJsonResponse ?? false;
  const served: readonly string[] = options.supportedRevisions ?? STATEFUL_REVISIONS;
  const supported: readonly string[] = served.filter(isStatefulRevision);
  /** Whether any handshake revision is served: without one, no session is ever made. */
  const sessionsServed = supported.length > 0;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const eventStore =
    stateless || options.eventStore === false ? undefined : (options.eventStore ?? createInMemoryEventStore());
  const generateSessionId = options.generateSessionId ?? randomUUID;
  const sessions = new Map<string, SessionEntry>();
  const transports = new Map<string, StreamableHttpServerTransport>();
  const statelessSessions = new Set<Session>();
  const server = options.server;
  const onSession =
    options.onSession ??
    (server ? (transport: StreamableHttpServerTransport) => void server.connect(transport) : undefined);
  if (!onSession) throw new TypeError('createStreamableHttpHandler needs a server or an onSession callback');
  const receiver = options.statelessReceiver ?? server?.stateless;
  const statelessOptions = {
    log,
    maxBufferedBytes: options.maxBufferedBytes ?? 8 * 1024 * 1024,
    keepAliveMs: options.keepAliveMs ?? 30_000,
  };
  let closed = false;

  const newSession = (sessionId: string | undefined, swallow: boolean): Session => {
    const sessionLog = childLogger(log, sessionId === undefined ? { stateless: true } : { sessionId });
    let entry: SessionEntry | undefined;
    const session = createSession({
      sessionId,
      eventStore,
      retryMs: options.retryMs ?? DEFAULT_RETRY_MS,
      jsonWindowMs: options.jsonWindowMs ?? (eventStore ? DEFAULT_JSON_WINDOW_MS : Infinity),
      maxBufferedBytes: options.maxBufferedBytes ?? 8 * 1024 * 1024,
      maxHeldMessages: options.maxHeldMessages ?? 1000,
      logger: sessionLog,
      ...(swallow ? { swallowResponseId: STATELESS_INIT_ID } : {}),
      onClose: () => {
        if (entry?.timer) clearTimeout(entry.timer);
        if (sessionId !== undefined) {
          sessions.delete(sessionId);
          transports.delete(sessionId);
        } else statelessSessions.delete(session);
      },
      onConnectionsChange: (open) => {
        if (!entry) return;
        entry.open = open;
        arm(entry);
      },
    });
    if (sessionId === undefined) statelessSessions.add(session);
    else {
      entry = { session, open: 0 };
      sessions.set(sessionId, entry);
      transports.set(sessionId, session.transport);
      sessionLog.info('session opened');
    }
    onSession(session.transport);
    return session;
  };

  /** (Re)starts the idle timer of a session with no open response; stops it while one is open. */
  const arm = (entry: SessionEntry): void => {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    if (entry.open > 0 || !Number.isFinite(idleMs) || entry.session.closed) return;
    entry.timer = setTimeout(() => entry.session.transport.close(`session idle for ${idleMs} ms`), idleMs);
    entry.timer.unref();
  };

  /** Finds the session a request names: 400 without the header, 404 when unknown. */
  const sessionFor = (req: IncomingMessage, res: ServerResponse): SessionEntry | undefined => {
    const id = headerValue(req, SESSION_HEADER);
    if (id === undefined) {
      refuse(res, 400, 'Bad Request: Mcp-Session-Id header is required');
      return undefined;
    }
    const entry = sessions.get(id);
    if (!entry) {
      refuse(res, 404, 'Session not found');
      return undefined;
    }
    arm(entry);
    return entry;
  };

  /**
   * Refuses an unsupported `MCP-Protocol-Version` (400); any supported one is tolerated. The
   * refusal names the request's id when the body is one request (#11).
   */
  const versionRefused = (req: IncomingMessage, res: ServerResponse, body?: unknown): boolean => {
    const version = headerValue(req, VERSION_HEADER);
    if (version === undefined || supported.includes(version)) return false;
    const message = `Bad Request: unsupported protocol version ${JSON.stringify(version)} (supported: ${supported.join(', ')})`;
    const id =
      typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
    if (typeof id === 'string' || typeof id === 'number') {
      const text = JSON.stringify(errorResponse(id, { code: ErrorCode.InvalidRequest, message }));
      res.writeHead(400, { 'content-type': 'application/json' }).end(text);
    } else refuse(res, 400, message);
    return true;
  };

  /**
   * Whether a POST belongs to a stateless revision: one request (not initialize, no session id)
   * whose `_meta` names a revision, or whose `MCP-Protocol-Version` is not a handshake revision
   * served here (an unsupported one is then answered -32022 with the versions that are).
   */
  const isStateless = (req: IncomingMessage, body: unknown): body is JsonRpcMessage => {
    if (!receiver || typeof body !== 'object' || body === null || Array.isArray(body)) return false;
    const method = (body as { method?: unknown }).method;
    if (typeof method !== 'string' || headerValue(req, SESSION_HEADER) !== undefined) return false;
    // An initialize that carries a stateless `_meta` is a stateless request for a removed method.
    if (statelessRevisionOf((body as { params?: unknown }).params) !== undefined) return true;
    if (method === 'initialize') return false;
    const version = headerValue(req, VERSION_HEADER);
    return version !== undefined && !supported.includes(version);
  };

  function post(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): void {
    if (!accepts(req, 'application/json') || (!json && !accepts(req, 'text/event-stream'))) {
      refuse(
        res,
        406,
        `Not Acceptable: the Accept header must list application/json${json ? '' : ' and text/event-stream'}`,
      );
      return;
    }
    readJsonBodyWith(req, res, parsedBody, maxBodyBytes, (read) => {
      if (!read.ok) return;
      try {
        serve(req, res, read.body);
      } catch (error) {
        log.error({ err: error }, 'POST failed');
        refuse(res, 500, 'Internal Server Error', ErrorCode.InternalError);
      }
    });
  }

  /** Serves a POST whose body was read and parsed. */
  function serve(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const items = Array.isArray(body) ? (body as unknown[]) : [body];
    if (items.length === 0) {
      refuse(res, 400, 'Invalid request: empty batch', ErrorCode.InvalidRequest);
      return;
    }
    for (const item of items) {
      const kind = classify(item);
      if (kind.kind === 'invalid' || kind.kind === 'batch') {
        refuse(
          res,
          400,
          `Invalid request: ${kind.kind === 'batch' ? 'a batch may not contain a batch' : kind.reason}`,
          ErrorCode.InvalidRequest,
        );
        return;
      }
    }
    if (
      options.auth &&
      lacksScopes(options.auth, options.server?.requiredScopes?.bind(options.server), req, res, items)
    )
      return;
    if (isStateless(req, body)) {
      serveStatelessPost(req, res, body, receiver!, statelessOptions);
      return;
    }
    const frame = body as JsonRpcMessage | JsonRpcMessage[];
    const initialize = items.some((item) => (item as { method?: unknown }).method === 'initialize');
    if (initialize && items.length > 1) {
      refuse(res, 400, 'Invalid request: initialize may not be batched', ErrorCode.InvalidRequest);
      return;
    }
    if (!sessionsServed) {
      refuseHandshake(res, body);
      return;
    }
    if (!initialize && versionRefused(req, res, body)) return;

    if (stateless) {
      const session = newSession(undefined, !initialize);
      setCaller(session.transport, req);
      if (!initialize) {
        const version = headerValue(req, VERSION_HEADER) ?? ASSUMED_REVISION;
        session.inject({
          jsonrpc: '2.0',
          id: STATELESS_INIT_ID,
          method: 'initialize',
          params: {
            protocolVersion: version,
            capabilities: {},
            clientInfo: { name: 'stateless-client', version: '0.0.0' },
          },
        });
        session.inject({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
      session.post(res, frame, json, {}, req.headers);
      return;
    }

    if (initialize && headerValue(req, SESSION_HEADER) === undefined) {
      // An initialize that cannot succeed opens no session (#13).
      const checked = checkParams('initialize', LATEST_STATEFUL_REVISION, (body as { params?: unknown }).params ?? {});
      if (checked && !checked.success) {
        const error = JsonRpcError.invalidParams(toValidationIssues(checked.error)).toJSON();
        const text = JSON.stringify(errorResponse((body as { id: string | number }).id, error));
        res.writeHead(400, { 'content-type': 'application/json' }).end(text);
        return;
      }
      if (sessions.size >= maxSessions) {
        log.warn({ sessions: sessions.size }, 'initialize refused: too many sessions');
        refuse(
          res,
          503,
          `Service Unavailable: ${maxSessions} sessions are open, the most this server holds`,
          ErrorCode.ConnectionClosed,
          {
            'retry-after': '5',
          },
        );
        return;
      }
      const sessionId = generateSessionId();
      const session = newSession(sessionId, false);
      setCaller(session.transport, req);
      session.post(res, frame, json, { [SESSION_HEADER]: sessionId }, req.headers);
      return;
    }
    const entry = sessionFor(req, res);
    if (!entry || !sameCaller(entry.session.transport, req, res, log)) return;
    setCaller(entry.session.transport, req);
    entry.session.post(
      res,
      frame,
      json,
      { [SESSION_HEADER]: entry.session.transport.sessionId as string },
      req.headers,
    );
  }

  /**
   * A deployment of stateless revisions only answers a handshake-family POST with -32022 naming the
   * revisions it serves (spec 2026-07-28: Versioning → a modern-only server names its versions in
   * any error to initialize).
   */
  function refuseHandshake(res: ServerResponse, body: unknown): void {
    const message = body as { id?: unknown; params?: { protocolVersion?: unknown } };
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
    const requested = message.params?.protocolVersion ?? 'none';
    const error = {
      code: -32022,
      message: `Unsupported protocol version: this server keeps no sessions; it serves ${served.join(', ')}`,
      data: { supported: [...served].reverse(), requested },
    };
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(errorResponse(id, error)));
  }

  function get(req: IncomingMessage, res: ServerResponse): void {
    if (stateless || !sessionsServed) {
      refuse(
        res,
        405,
        'Method Not Allowed: this server is stateless and offers no GET stream',
        ErrorCode.ConnectionClosed,
        { allow: 'POST' },
      );
      return;
    }
    if (!accepts(req, 'text/event-stream')) {
      refuse(res, 406, 'Not Acceptable: the Accept header must list text/event-stream');
      return;
    }
    if (versionRefused(req, res)) return;
    const entry = sessionFor(req, res);
    if (!entry || !sameCaller(entry.session.transport, req, res, log)) return;
    entry.session.get(res, headerValue(req, 'last-event-id'), {
      [SESSION_HEADER]: entry.session.transport.sessionId as string,
    });
  }

  function remove(req: IncomingMessage, res: ServerResponse): void {
    if (stateless || !sessionsServed) {
      refuse(
        res,
        405,
        'Method Not Allowed: this server is stateless and has no sessions to delete',
        ErrorCode.ConnectionClosed,
        { allow: 'POST' },
      );
      return;
    }
    if (versionRefused(req, res)) return;
    const entry = sessionFor(req, res);
    if (!entry || !sameCaller(entry.session.transport, req, res, log)) return;
    entry.session.transport.close('session deleted by the client');
    res.writeHead(200).end();
  }

  const handle = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): void => {
    if (closed) {
      refuse(res, 503, 'Service Unavailable: the server is shutting down');
      return;
    }
    const refusal = checkHostAndOrigin(req, options);
    if (refusal !== undefined) {
      log.warn({ host: req.headers.host, origin: req.headers.origin }, refusal);
      refuse(res, 403, `Forbidden: ${refusal}`);
      return;
    }
    if (options.auth) guardRequest(options.auth, req, res, () => route(req, res, parsedBody));
    else route(req, res, parsedBody);
  };

  const route = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): void => {
    switch (req.method) {
      case 'POST':
        try {
          post(req, res, parsedBody);
        } catch (error) {
          log.error({ err: error }, 'POST failed');
          refuse(res, 500, 'Internal Server Error', ErrorCode.InternalError);
        }
        return;
      case 'GET':
        get(req, res);
        return;
      case 'DELETE':
        remove(req, res);
        return;
      default:
        refuse(res, 405, `Method Not Allowed: ${req.method ?? ''}`, ErrorCode.ConnectionClosed, {
          allow: stateless ? 'POST' : 'GET, POST, DELETE',
        });
    }
  };

  return {
    handle,
    sessions: transports,
    close() {
      if (closed) return;
      closed = true;
      for (const entry of [...sessions.values()]) entry.session.transport.close('server closed');
      for (const session of [...statelessSessions]) session.transport.close('server closed');
    },
  };
}
