import { endJson } from '../../http/http-exchange';
import type { HttpRequestLike, HttpResponseLike } from '../../http/http-exchange';
import type pino from 'pino';
import { classify } from '../../../jsonrpc/classify';
import { ErrorCode, JsonRpcError } from '../../../jsonrpc/errors';
import { childLogger } from '../../../base/logger';
import { errorResponse } from '../../../jsonrpc/message';
import type { JsonRpcMessage } from '../../../jsonrpc/message';
import { toValidationIssues } from '../../../validation/issues';
import { checkParams } from '../../../schema/methods';
import { LATEST_LEGACY_REVISION, LEGACY_REVISIONS } from '../../../schema/revisions';
import { accepts, guardHostAndOrigin, headerValue, readJsonBodyWith, refuse } from '../../http/http-guards';
import { guardRequest, verifiedCallers } from '../../http/request-auth';
import { applyCors } from '../../http/cors';
import { principalOf } from '../../transport';
import type { ImpliedInitialize, ModernReceiver } from '../../transport';
import { bindOwner, lacksScopes, ownerOf, sameCaller, setCaller } from '../endpoint-auth';
import { createInMemoryEventStore } from './event-store';
import { followSessions, followModern } from '../operations-endpoints';
import type { FollowedHandlerOptions } from '../operations-endpoints';
import { refusedBatch, RevisionPolicy, VERSION_HEADER } from '../revision-policy';
import { SESSION_HEADER, SessionTable } from './session-table';
import { serveModernPost } from '../modern-exchange';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
} from './streamable-http-handler-options';
import type { StreamableHttpHandler } from './streamable-http-handler-options';
import type { StreamableHttpServerTransport } from './streamable-http-session';
import type { CallTracker } from '../../../operations/call-tracker';

export {
  DEFAULT_JSON_WINDOW_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_RETRY_MS,
  DEFAULT_SESSION_IDLE_MS,
} from './streamable-http-handler-options';
export type {
  McpEndpointServer,
  StreamableHttpHandler,
  StreamableHttpHandlerOptions,
} from './streamable-http-handler-options';

const SESSIONLESS_CLIENT = { name: 'sessionless-client', version: '0.0.0' };

/** What a sessionless POST's session is taken to have been initialized with, by the revision it names. */
const implied = new Map<string, ImpliedInitialize>();
function impliedInitialize(protocolVersion: string): ImpliedInitialize {
  let found = implied.get(protocolVersion);
  if (found === undefined) {
    found = { protocolVersion, capabilities: {}, clientInfo: SESSIONLESS_CLIENT };
    // Bounded: the header is the client's word, and only a few revisions exist.
    if (implied.size < 32) implied.set(protocolVersion, found);
  }
  return found;
}
/** Spec: Transports → Protocol Version Header: a server that cannot tell SHOULD assume 2025-03-26. */
const ASSUMED_REVISION = '2025-03-26';

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
 * - Refusals: 400 no Host header, 403 Host/Origin not allowed (see `allowedHosts`), 405 method,
 *   406 Accept lacks `application/json` and `text/event-stream` (GET: the latter), 413 body too
 *   large, 415 not `application/json`, 400 unparsable JSON (-32700), not JSON-RPC (-32600),
 *   unsupported `MCP-Protocol-Version`, a batch under a revision without batches (all but
 *   2025-03-26), or a non-initialize request without a session id, 404
 *   unknown or ended session, 409 a second standalone GET or a request id already in flight.
 *   Bodies of refusals are JSON-RPC error responses without an id. A POST whose body a body
 *   parser read before the handler, with no `parsedBody` passed, gets 500 (-32603) saying so.
 * - `createStreamableHttpFetchHandler` serves the same endpoint to web `Request`/`Response` hosts.
 * - A peer's protocol version header may differ from the negotiated revision as long as it is a
 *   supported one (some clients send an older value on later requests).
 *
 * @example
 * const server = createServer({ name: 'demo', version: '1.0.0' });
 * const mcp = createStreamableHttpHandler({ onSession: (t) => server.connect(t) });
 * http.createServer((req, res) => mcp.handle(req, res)).listen(3000, '127.0.0.1');
 */
export function createStreamableHttpHandler(options: FollowedHandlerOptions): StreamableHttpHandler {
  const endpoint = new StreamableHttpEndpoint(options);
  return {
    handle: (req, res, parsedBody) => endpoint.handle(req, res, parsedBody),
    sessions: endpoint.sessions.transports,
    close() {
      endpoint.close();
    },
    restoreSession(sessionId, connect, firstStream, principal) {
      if (endpoint.sessions.entries.has(sessionId)) throw new Error(`session ${sessionId} is already open`);
      const followed = options.calls ? followSessions(options.calls, connect) : connect;
      const transport = endpoint.sessions.open(sessionId, { connect: followed, firstStream }).transport;
      bindOwner(transport, undefined, principal);
      return transport;
    },
  };
}

/**
 * The handler's state and the serving of each HTTP method; its sessions are a {@link SessionTable}.
 * Serves Node's request and response, and the web `Request`/`Response` adapters of the fetch handler.
 */
export class StreamableHttpEndpoint {
  readonly sessions: SessionTable;
  private readonly log: pino.Logger;
  private readonly sessionless: boolean;
  private readonly maxBodyBytes: number;
  private readonly json: boolean;
  private readonly revisions: RevisionPolicy;
  private readonly maxSessions: number;
  private readonly maxSessionsPerPrincipal: number;
  private readonly generateSessionId: (req: HttpRequestLike) => string;
  private readonly receiver: ModernReceiver | undefined;
  private readonly modernOptions: { log: pino.Logger; maxBufferedBytes: number; keepAliveMs: number };
  private readonly calls: CallTracker | undefined;
  private closed = false;

  constructor(private readonly options: FollowedHandlerOptions) {
    this.log = childLogger(options.logger, { component: 'transport', transport: 'streamable-http-server' });
    this.sessionless = options.sessionless ?? false;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.json = options.enableJsonResponse ?? false;
    this.revisions = new RevisionPolicy(options.supportedRevisions ?? LEGACY_REVISIONS);
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.maxSessionsPerPrincipal = options.maxSessionsPerPrincipal ?? DEFAULT_MAX_SESSIONS_PER_PRINCIPAL;
    const eventStore =
      this.sessionless || options.eventStore === false ? undefined : (options.eventStore ?? createInMemoryEventStore());
    this.generateSessionId = options.generateSessionId ?? (() => globalThis.crypto.randomUUID());
    const server = options.server;
    const connectOptions = options.inspect ? { inspect: options.inspect } : undefined;
    const onSession =
      options.onSession ??
      (server
        ? (transport: StreamableHttpServerTransport) => void server.connect(transport, connectOptions)
        : undefined);
    if (!onSession) throw new TypeError('createStreamableHttpHandler needs a server or an onSession callback');
    const calls = (this.calls = options.calls);
    const followed = calls ? followSessions(calls, onSession) : onSession;
    this.sessions = new SessionTable(options, this.log, eventStore, followed);
    const receiver = options.modernReceiver ?? server?.modern;
    this.receiver = calls && receiver ? followModern(calls, receiver) : receiver;
    this.modernOptions = {
      log: this.log,
      maxBufferedBytes: options.maxBufferedBytes ?? 8 * 1024 * 1024,
      keepAliveMs: options.keepAliveMs ?? 30_000,
    };
  }

  handle(req: HttpRequestLike, res: HttpResponseLike, parsedBody?: unknown): void {
    if (this.options.cors && applyCors(req, res, this.options.cors)) return;
    if (this.closed) {
      refuse(res, 503, 'Service Unavailable: the server is shutting down');
      return;
    }
    const refusal = guardHostAndOrigin(req, this.options);
    if (refusal !== undefined) {
      this.log.warn({ host: req.headers.host, origin: req.headers.origin }, refusal.reason);
      refuse(res, refusal.status, `${refusal.status === 400 ? 'Bad Request' : 'Forbidden'}: ${refusal.reason}`);
      return;
    }
    if (this.options.auth) guardRequest(this.options.auth, req, res, () => this.route(req, res, parsedBody));
    else this.route(req, res, parsedBody);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sessions.closeAll('server closed');
  }

  private route(req: HttpRequestLike, res: HttpResponseLike, parsedBody?: unknown): void {
    switch (req.method) {
      case 'POST':
        try {
          this.post(req, res, parsedBody);
        } catch (error) {
          this.log.error({ err: error }, 'POST failed');
          refuse(res, 500, 'Internal Server Error', ErrorCode.InternalError);
        }
        return;
      case 'GET':
        this.get(req, res);
        return;
      case 'DELETE':
        this.remove(req, res);
        return;
      default:
        refuse(res, 405, `Method Not Allowed: ${req.method ?? ''}`, ErrorCode.ConnectionClosed, {
          allow: this.sessionless ? 'POST' : 'GET, POST, DELETE',
        });
    }
  }

  private post(req: HttpRequestLike, res: HttpResponseLike, parsedBody: unknown): void {
    const json = this.json;
    if (!accepts(req, 'application/json') || (!json && !accepts(req, 'text/event-stream'))) {
      refuse(
        res,
        406,
        `Not Acceptable: the Accept header must list application/json${json ? '' : ' and text/event-stream'}`,
      );
      return;
    }
    readJsonBodyWith(req, res, parsedBody, this.maxBodyBytes, (read) => {
      if (!read.ok) {
        if (read.consumed) this.log.error('POST refused: a body parser read the body and it was not passed on');
        return;
      }
      try {
        this.serve(req, res, read.body);
      } catch (error) {
        this.log.error({ err: error }, 'POST failed');
        refuse(res, 500, 'Internal Server Error', ErrorCode.InternalError);
      }
    });
  }

  /** Serves a POST whose body was read and parsed. */
  private serve(req: HttpRequestLike, res: HttpResponseLike, body: unknown): void {
    const items = Array.isArray(body) ? (body as unknown[]) : [body];
    if (!validItems(res, items)) return;
    const { auth, server } = this.options;
    if (auth && lacksScopes(auth, server?.requiredScopes?.bind(server), req, res, items)) return;
    if (this.revisions.isModern(req, body, this.receiver)) {
      serveModernPost(req, res, body, this.receiver!, this.modernOptions);
      return;
    }
    const frame = body as JsonRpcMessage | JsonRpcMessage[];
    const initialize = items.some((item) => (item as { method?: unknown }).method === 'initialize');
    if (initialize && items.length > 1) {
      refuse(res, 400, 'Invalid request: initialize may not be batched', ErrorCode.InvalidRequest);
      return;
    }
    if (!this.revisions.sessionsServed) {
      this.revisions.refuseHandshake(res, body);
      return;
    }
    if (!initialize && this.revisions.refused(req, res, body)) return;
    if (this.sessionless) this.serveSessionless(req, res, frame, initialize);
    else if (initialize && headerValue(req, SESSION_HEADER) === undefined) this.initialize(req, res, frame);
    else {
      const entry = this.sessions.find(req, res);
      if (!entry || !sameCaller(entry.session.transport, req, res, this.log)) return;
      const session = entry.session;
      if (refusedBatch(res, body, session.transport.protocolVersion)) return;
      setCaller(session.transport, req);
      this.calls?.received(session.transport, items);
      session.post(res, frame, this.json, { [SESSION_HEADER]: entry.id }, req.headers);
    }
  }

  /**
   * Sessionless mode: the POST gets a transport of its own. One that is not `initialize` opens a
   * session that is already initialized, with the revision its header names (`impliedInitialize`):
   * no handshake is run for it.
   */
  private serveSessionless(
    req: HttpRequestLike,
    res: HttpResponseLike,
    frame: JsonRpcMessage | JsonRpcMessage[],
    initialize: boolean,
  ): void {
    const revision = headerValue(req, VERSION_HEADER) ?? ASSUMED_REVISION;
    if (!initialize && refusedBatch(res, frame, revision)) return;
    const implied = initialize ? undefined : impliedInitialize(revision);
    const session = this.sessions.open(undefined, undefined, implied);
    bindOwner(session.transport, req);
    this.calls?.received(session.transport, frame);
    session.post(res, frame, this.json, {}, req.headers);
  }

  /** An `initialize` without a session id opens a session, unless it cannot succeed or too many are open. */
  private initialize(req: HttpRequestLike, res: HttpResponseLike, frame: JsonRpcMessage | JsonRpcMessage[]): void {
    const message = frame as { readonly id: string | number; readonly params?: unknown };
    // An initialize that cannot succeed opens no session (#13).
    const checked = checkParams('initialize', LATEST_LEGACY_REVISION, message.params ?? {});
    if (checked && !checked.success) {
      const error = JsonRpcError.invalidParams(toValidationIssues(checked.error)).toJSON();
      const text = JSON.stringify(errorResponse(message.id, error));
      endJson(res, 400, text);
      return;
    }
    const open = this.sessions.entries.size;
    if (open >= this.maxSessions) {
      this.log.warn({ sessions: open }, 'initialize refused: too many sessions');
      this.calls?.limitHit('sessions');
      refuse(
        res,
        503,
        `Service Unavailable: ${this.maxSessions} sessions are open, the most this server holds`,
        ErrorCode.ConnectionClosed,
        {
          'retry-after': '5',
        },
      );
      return;
    }
    if (this.principalHoldsTooMany(req, res)) return;
    const sessionId = this.generateSessionId(req);
    const session = this.sessions.open(sessionId);
    bindOwner(session.transport, req);
    this.calls?.received(session.transport, frame);
    session.post(res, frame, this.json, { [SESSION_HEADER]: sessionId }, req.headers);
  }

  /** Refuses (429) an initialize of a principal that holds `maxSessionsPerPrincipal` sessions already. */
  private principalHoldsTooMany(req: HttpRequestLike, res: HttpResponseLike): boolean {
    const principal = principalOf(verifiedCallers.get(req));
    if (principal === undefined || this.maxSessionsPerPrincipal <= 0) return false;
    let held = 0;
    for (const entry of this.sessions.entries.values()) if (ownerOf(entry.session.transport) === principal) held++;
    if (held < this.maxSessionsPerPrincipal) return false;
    this.log.warn({ sessions: held }, 'initialize refused: the caller holds too many sessions');
    this.calls?.limitHit('sessions_per_principal');
    refuse(
      res,
      429,
      `Too Many Requests: this user holds ${held} sessions, the most one user may; close one (DELETE) first`,
      ErrorCode.RateLimited,
      { 'retry-after': '5' },
    );
    return true;
  }

  private get(req: HttpRequestLike, res: HttpResponseLike): void {
    if (this.sessionless || !this.revisions.sessionsServed) {
      refuse(
        res,
        405,
        'Method Not Allowed: this server is sessionless and offers no GET stream',
        ErrorCode.ConnectionClosed,
        { allow: 'POST' },
      );
      return;
    }
    if (!accepts(req, 'text/event-stream')) {
      refuse(res, 406, 'Not Acceptable: the Accept header must list text/event-stream');
      return;
    }
    if (this.revisions.refused(req, res)) return;
    const entry = this.sessions.find(req, res);
    if (!entry || !sameCaller(entry.session.transport, req, res, this.log)) return;
    entry.session.get(res, headerValue(req, 'last-event-id'), {
      [SESSION_HEADER]: entry.id,
    });
  }

  private remove(req: HttpRequestLike, res: HttpResponseLike): void {
    if (this.sessionless || !this.revisions.sessionsServed) {
      refuse(
        res,
        405,
        'Method Not Allowed: this server is sessionless and has no sessions to delete',
        ErrorCode.ConnectionClosed,
        { allow: 'POST' },
      );
      return;
    }
    if (this.revisions.refused(req, res)) return;
    const entry = this.sessions.find(req, res);
    if (!entry || !sameCaller(entry.session.transport, req, res, this.log)) return;
    entry.session.transport.close('session deleted by the client');
    res.writeHead(200).end();
  }
}

/** Refuses (400) an empty batch, or a body with an item that is not a JSON-RPC message. */
function validItems(res: HttpResponseLike, items: readonly unknown[]): boolean {
  if (items.length === 0) {
    refuse(res, 400, 'Invalid request: empty batch', ErrorCode.InvalidRequest);
    return false;
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
      return false;
    }
  }
  return true;
}
