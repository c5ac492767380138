import type { IncomingMessage, ServerResponse } from 'node:http';
import type pino from 'pino';
import { classify } from '../../../jsonrpc/classify';
import { ErrorCode } from '../../../jsonrpc/errors';
import { assertAuthenticator, scopeRuleOf, scopesToChallenge } from '../../http/caller';
import type { ScopeRule, TransportServer } from '../../http/caller';
import { checkHostAndOrigin, readJsonBody, refuse } from '../../http/http-guards';
import type { OriginPolicy } from '../../http/http-guards';
import { answerRefusal, guardRequest, verifiedCallers } from '../../http/request-auth';
import type { RequestAuthenticator } from '../../http/request-auth';
import { childLogger } from '../../../base/logger';
import type { LoggerOption } from '../../../base/logger';
import { principalOf } from '../../transport';
import type { AuthInfo } from '../../transport';
import { HttpSseSession } from './http-sse-session';
import type { HttpSseServerTransport, HttpSseSessionSettings } from './http-sse-session';

/** Options of {@link createHttpSseHandler}. */
export interface HttpSseHandlerOptions extends OriginPolicy {
  /**
   * The server to serve, as `createServer` makes it: each session goes to its `connect` (unless
   * `onSession` is given), and under `auth` its `requiredScopes` are checked on every POST.
   */
  readonly server?: TransportServer;
  /** Called with the transport of each new SSE connection (each session). Default: `server.connect`. */
  readonly onSession?: (transport: HttpSseServerTransport) => void;
  /**
   * Protects both endpoints, as `auth` protects the Streamable HTTP one: the GET and every POST
   * need a valid token (else 401 with the `WWW-Authenticate` challenge), a POST whose message
   * needs a scope of `server.requiredScopes` that the token lacks gets 403 `insufficient_scope`, and
   * a session takes POSTs only from the principal who opened it (403 otherwise). The verified
   * caller is the session transport's `auth`. `createResourceServer` makes one.
   */
  readonly auth?: RequestAuthenticator;
  /**
   * The path (or URL) of the POST endpoint, announced in the `endpoint` event with
   * `?sessionId=<id>` appended. Default `/messages`.
   */
  readonly messagesPath?: string;
  /** The largest POST body accepted; larger ones get 413. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * A session whose SSE stream has more than this many bytes waiting unsent (a client that does not
   * read) is closed, so that it cannot make the server buffer without bound. Default 8 MiB.
   */
  readonly maxBufferedBytes?: number;
  /**
   * How often an idle SSE stream gets a comment line, so that proxies keep it open and a peer that
   * vanished is noticed when the write fails. Default 30 s; 0 sends none.
   */
  readonly keepAliveMs?: number;
  /** Sessions opened/closed at info, refusals at warn, messages at trace. Silent by default. */
  readonly logger?: LoggerOption;
}

export type { HttpSseServerTransport } from './http-sse-session';

/** The 2024-11-05 HTTP+SSE endpoints for `node:http`. */
export interface HttpSseHandler {
  /**
   * Serves both endpoints: GET opens the SSE stream (a new session), POST delivers a message to
   * the session named by `?sessionId=`; other methods get 405. Mount it on the SSE path and on
   * `messagesPath`. Pass `parsedBody` when a body parser already consumed the body.
   */
  readonly handle: (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => void;
  readonly sessions: ReadonlyMap<string, HttpSseServerTransport>;
  /** Closes every session (ending their SSE streams). */
  close(): void;
}

/**
 * Creates the server side of the deprecated HTTP+SSE transport (spec 2024-11-05: Transports →
 * HTTP with SSE), for clients that predate Streamable HTTP. A GET opens an SSE stream whose first
 * event, `endpoint`, names the POST URL with the session id; server messages follow as `message`
 * events. Each POST carries one message (or batch) and is answered 202 at once. The session ends
 * when the SSE connection closes (from either side), when its transport is closed, or when more
 * than `maxBufferedBytes` wait unsent on its stream (reason `'slow reader'`). An idle stream gets a
 * comment line every `keepAliveMs`.
 *
 * Refusals: 403 Host/Origin (see {@link OriginPolicy}), 401 no or bad token and 403 a token without
 * the scopes a message needs or from another principal than the session's (with `auth`), 415 not
 * JSON, 413 too large, 400 unparsable or not JSON-RPC, 400 no `sessionId`, 404 unknown session,
 * 405 other methods. A refused POST delivers nothing to the session.
 *
 * Throws a `TypeError` when there is neither `server` nor `onSession`, or when `auth` is not a
 * `RequestAuthenticator`.
 */
export function createHttpSseHandler(options: HttpSseHandlerOptions): HttpSseHandler {
  assertAuthenticator(options.auth, 'createHttpSseHandler');
  const { server, auth } = options;
  const given =
    options.onSession ?? (server ? (transport: HttpSseServerTransport) => void server.connect(transport) : undefined);
  if (!given) throw new TypeError('createHttpSseHandler needs a server or an onSession callback');
  const onSession = given;
  const log = childLogger(options.logger, { component: 'transport', transport: 'http-sse-server' });
  const sessions = new Map<string, HttpSseSession>();
  const transports = new Map<string, HttpSseServerTransport>();
  const settings: HttpSseSessionSettings = {
    messagesPath: options.messagesPath ?? '/messages',
    maxBufferedBytes: options.maxBufferedBytes ?? 8 * 1024 * 1024,
    keepAliveMs: options.keepAliveMs ?? 30_000,
    log,
    forget: (sessionId) => {
      sessions.delete(sessionId);
      transports.delete(sessionId);
    },
  };
  const inbound: Inbound = {
    sessions,
    maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
    auth,
    rule: scopeRuleOf(server),
    log,
  };

  function openStream(req: IncomingMessage, res: ServerResponse): void {
    const session = new HttpSseSession(res, settings, verifiedCallers.get(req));
    session.open();
    sessions.set(session.sessionId, session);
    transports.set(session.sessionId, session.transport);
    session.log.info('session opened');
    onSession(session.transport);
  }

  function route(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): void {
    if (req.method === 'GET') openStream(req, res);
    else if (req.method === 'POST') {
      receive(req, res, parsedBody, inbound).catch((error: unknown) => {
        log.error({ err: error }, 'POST failed');
        refuse(res, 500, 'Internal Server Error', ErrorCode.InternalError);
      });
    } else
      refuse(res, 405, `Method Not Allowed: ${req.method ?? ''}`, ErrorCode.ConnectionClosed, { allow: 'GET, POST' });
  }

  return {
    handle(req, res, parsedBody) {
      const refusal = checkHostAndOrigin(req, options);
      if (refusal !== undefined) {
        log.warn({ host: req.headers.host, origin: req.headers.origin }, refusal);
        refuse(res, 403, `Forbidden: ${refusal}`);
        return;
      }
      if (auth) guardRequest(auth, req, res, () => route(req, res, parsedBody));
      else route(req, res, parsedBody);
    },
    sessions: transports,
    close() {
      for (const { transport } of [...sessions.values()]) transport.close('server closed');
    },
  };
}

/** What the POST endpoint needs: the open sessions, the body limit, and with `auth` the scope rule. */
interface Inbound {
  readonly sessions: ReadonlyMap<string, HttpSseSession>;
  readonly maxBodyBytes: number;
  readonly auth: RequestAuthenticator | undefined;
  readonly rule: ScopeRule | undefined;
  readonly log: pino.Logger;
}

// Delivers a POSTed message to the session named by its `sessionId` query parameter.
async function receive(
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  inbound: Inbound,
): Promise<void> {
  const sessionId = new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId');
  if (sessionId === null) {
    refuse(res, 400, 'Bad Request: the sessionId query parameter is required');
    return;
  }
  const session = inbound.sessions.get(sessionId);
  if (!session) {
    refuse(res, 404, 'Session not found');
    return;
  }
  // The session stays with whoever opened it: the principal, whichever of its tokens is used.
  const caller = verifiedCallers.get(req);
  if (principalOf(caller) !== session.owner) {
    session.log.warn('POST refused: the session belongs to another user');
    refuse(res, 403, 'Forbidden: this session belongs to another user');
    return;
  }
  const read = await readJsonBody(req, res, parsedBody, inbound.maxBodyBytes);
  if (!read.ok) return;
  const body = read.body;
  const kind = classify(body).kind;
  if (kind === 'invalid' || (Array.isArray(body) && body.length === 0)) {
    refuse(res, 400, 'Invalid request: not a JSON-RPC message', ErrorCode.InvalidRequest);
    return;
  }
  if (lacksScopes(inbound, caller, body, res)) return;
  res.writeHead(202, { 'content-type': 'text/plain' }).end('Accepted');
  session.push(body, caller);
}

/** Refuses (403 `insufficient_scope`) a POST whose message needs a scope the caller's token lacks. */
function lacksScopes(inbound: Inbound, caller: AuthInfo | undefined, body: unknown, res: ServerResponse): boolean {
  const { auth } = inbound;
  if (auth === undefined || caller === undefined) return false;
  const scopes = scopesToChallenge(caller, inbound.rule, Array.isArray(body) ? body : [body]);
  if (scopes === undefined) return false;
  inbound.log.warn({ scopes }, 'POST refused: insufficient scope');
  answerRefusal(res, auth.insufficientScope(scopes));
  return true;
}
