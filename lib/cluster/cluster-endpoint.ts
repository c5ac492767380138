import type { IncomingMessage, ServerResponse } from 'node:http';
import type pino from 'pino';
import type { PersistedSession } from '../server/server-context';
import { headerValue, readJsonBodyWith, refuse } from '../transport/http/http-guards';
import { guardRequest, verifiedCallers } from '../transport/http/request-auth';
import type { RequestAuthenticator } from '../transport/http/request-auth';
import { SESSION_HEADER } from '../transport/http-server/streamable-http/session-table';
import type { StreamableHttpHandler } from '../transport/http-server/streamable-http/streamable-http-handler-options';
import type { StreamableHttpServerTransport } from '../transport/http-server/streamable-http/streamable-http-session';
import { ErrorCode, MessageEncodingError } from '../jsonrpc/errors';
import { errorResponse } from '../jsonrpc/message';
import { principalOf } from '../transport/transport';
import type { AuthInfo } from '../transport/transport';
import { forward, FORWARDED_HEADER, MISDIRECTED, OWNER_HEADER } from './forward';
import { forwardedRequestOf, PROOF_HEADER } from './forward-proof';
import type { ForwardProof } from './forward-proof';
import type { OwnershipLease } from './ownership-lease';
import type { SessionRecord, SessionRegistry } from './session-registry';

/** Streams of a session taken over for the `epoch`th time are numbered from `epoch * STREAMS_PER_EPOCH`. */
const STREAMS_PER_EPOCH = 1e9;
/** How many times a request looks its session up again after losing a race to take it over. */
const MAX_ROUTES = 3;

/** What the endpoint needs of its cluster. */
export interface ClusterEndpointOptions {
  readonly processId: string;
  /** The handler of this process's own sessions. */
  readonly local: StreamableHttpHandler;
  readonly registry: SessionRegistry;
  /** While valid, this process serves its own sessions without asking Redis whether they are still its own. */
  readonly lease: OwnershipLease;
  readonly maxBodyBytes: number;
  /**
   * Checks every request's credentials before anything else (the same authenticator as the local
   * handler's, which reuses the outcome); none: the endpoint is open and sessions belong to nobody.
   */
  readonly auth: RequestAuthenticator | undefined;
  /** Signs the requests this process forwards and checks those it receives. */
  readonly proof: ForwardProof;
  /**
   * Connects a session taken over from another process, resumed from what it persisted, with the
   * verified caller of the request that took it over.
   */
  readonly resume: (
    transport: StreamableHttpServerTransport,
    record: SessionRecord & { readonly state: PersistedSession },
    opener: AuthInfo | undefined,
  ) => void;
  /** Where the cluster's event log is now: a new session's record starts there. */
  readonly busPosition: () => string;
  readonly log: pino.Logger;
}

/**
 * Serves one process's share of a cluster's endpoint. Every request's credentials are checked first
 * (with `auth`), before anything is looked up, claimed, forwarded or written in Redis. Then a
 * request for a session this process owns, a request without a session (an `initialize`, which
 * makes this process the new session's owner, or a modern request) and a forwarded request with
 * a valid proof go to the local handler; a request for a session another process owns is forwarded
 * to it; a request for a session whose owner is gone takes the session over (resumed from its
 * persisted state) and is served here. A session belongs to the principal that opened it: a request
 * from another is refused with 403 wherever it lands, and takes nothing over.
 */
export class ClusterEndpoint {
  /** The id each initialize request's session gets, registered before the handler names it. */
  private readonly pendingIds = new WeakMap<object, string>();
  /** The responses the local handler is writing, by session: cut when another process takes it over. */
  private readonly answering = new Map<string, Set<ServerResponse>>();
  /**
   * The takeovers under way here, by session, each settled once the session is restored: another
   * request for the session waits for it rather than claim the session a second time (a second
   * claim would move the epoch on under the first, and refuse the writes it already made).
   */
  private readonly takingOver = new Map<string, Promise<void>>();

  constructor(private readonly options: ClusterEndpointOptions) {}

  /**
   * Another process took `sessionId` over: the answers this process is writing for it are cut (the
   * clients resume them from the new owner, which answers what this one left owing), and the
   * session is closed here.
   */
  drop(sessionId: string): void {
    const responses = this.answering.get(sessionId);
    this.answering.delete(sessionId);
    for (const res of responses ?? []) res.destroy();
    this.options.local.sessions.get(sessionId)?.close('taken over by another process');
  }

  /** Lets the local handler answer a request of a session this process owns, keeping its response to cut it. */
  private serveOwn(req: IncomingMessage, res: ServerResponse, sessionId: string, body: unknown): void {
    let responses = this.answering.get(sessionId);
    if (!responses) this.answering.set(sessionId, (responses = new Set()));
    responses.add(res);
    res.once('close', () => {
      const set = this.answering.get(sessionId);
      set?.delete(res);
      if (set?.size === 0) this.answering.delete(sessionId);
    });
    this.options.local.handle(req, res, body);
  }

  /** For the local handler's `generateSessionId`. */
  sessionIdFor(req: object): string {
    return this.pendingIds.get(req) ?? globalThis.crypto.randomUUID();
  }

  handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): void {
    const { auth, local } = this.options;
    // A CORS preflight carries no credentials; the local handler answers it without Redis.
    if (req.method === 'OPTIONS') local.handle(req, res, parsedBody);
    else if (auth === undefined) this.dispatch(req, res, parsedBody);
    else guardRequest(auth, req, res, () => this.dispatch(req, res, parsedBody));
  }

  /** Routes a request whose caller was verified. */
  private dispatch(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): void {
    const { local, maxBodyBytes } = this.options;
    const sessionId = headerValue(req, SESSION_HEADER);
    const claimsForwarded = req.headers[FORWARDED_HEADER] !== undefined || req.headers[PROOF_HEADER] !== undefined;
    if (!claimsForwarded) {
      // Past the lease, whether the session is still this process's own is asked in Redis first (route).
      if (sessionId !== undefined && local.sessions.has(sessionId) && this.options.lease.valid) {
        if (this.belongs(req, res, sessionId)) this.serveOwn(req, res, sessionId, parsedBody);
        return;
      }
      if (sessionId === undefined && req.method !== 'POST') {
        local.handle(req, res, parsedBody);
        return;
      }
    }
    if (req.method !== 'POST') {
      this.served(req, res, sessionId, undefined);
      return;
    }
    readJsonBodyWith(req, res, parsedBody, maxBodyBytes, (read) => {
      if (read.ok) this.served(req, res, sessionId, read.body);
    });
  }

  /** Serves a request whose body (if any) was read: as forwarded when its proof holds, else as any other. */
  private served(req: IncomingMessage, res: ServerResponse, sessionId: string | undefined, body: unknown): void {
    const { local, proof, log } = this.options;
    if (req.headers[FORWARDED_HEADER] !== undefined || req.headers[PROOF_HEADER] !== undefined) {
      const from = headerValue(req, FORWARDED_HEADER) ?? '';
      const owner = headerValue(req, OWNER_HEADER) ?? '';
      if (proof.verify(req.headers, forwardedRequestOf(req, sessionId, from, owner, body))) {
        this.servedForwarded(req, res, sessionId, owner, body).catch((error: unknown) => {
          log.error({ err: error, sessionId }, 'cannot serve a forwarded request');
          if (!res.headersSent)
            refuse(res, 503, 'Service Unavailable: the cluster cannot serve this session now', -32000);
        });
        return;
      }
      // Anyone who reaches the port can write these headers: without a valid proof the request is
      // one from outside, routed like any other.
      log.warn({ sessionId }, 'a request claims to be forwarded without a valid proof: served as any other');
      delete req.headers[FORWARDED_HEADER];
      delete req.headers[OWNER_HEADER];
      delete req.headers[PROOF_HEADER];
    }
    if (sessionId !== undefined) this.route(req, res, sessionId, body);
    else if (req.method === 'POST' && isInitialize(body)) this.initialize(req, res, body);
    else local.handle(req, res, body);
  }

  /** Serves a request another process forwarded here (its proof holds), if this process still owns its session. */
  private async servedForwarded(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string | undefined,
    owner: string,
    body: unknown,
  ): Promise<void> {
    const { local, processId } = this.options;
    // Sent here by a process that read this one's claim: served once the session is restored.
    const restoring = sessionId === undefined ? undefined : this.takingOver.get(sessionId);
    if (restoring !== undefined) await restoring;
    const here = sessionId !== undefined && local.sessions.has(sessionId);
    const own = here && (await this.stillOwn(sessionId));
    if (!own && (here || owner !== processId)) {
      // Meant for a process that was here before this one, or for a session another took over since:
      // its sender looks the session up again (and takes it over when its owner is gone).
      refuse(res, MISDIRECTED, 'Misdirected Request: the session’s process is gone', -32000);
      return;
    }
    if (!own) return local.handle(req, res, body);
    if (this.belongs(req, res, sessionId!)) this.serveOwn(req, res, sessionId!, body);
  }

  /**
   * Whether this process still owns a session it serves: at once while the lease holds, else asked
   * in Redis (a session another process took over meanwhile is dropped here then).
   */
  private async stillOwn(sessionId: string): Promise<boolean> {
    if (this.options.lease.valid) return true;
    if (await this.options.registry.verify(sessionId)) return true;
    this.drop(sessionId);
    return false;
  }

  /** Whether the verified caller of `req` may use the session `sessionId` this process owns; else refused 403. */
  private belongs(req: IncomingMessage, res: ServerResponse, sessionId: string): boolean {
    const bound = this.options.registry.principalOf(sessionId);
    if (bound === undefined || bound === callerOf(req)) return true;
    this.forbid(res, sessionId);
    return false;
  }

  private forbid(res: ServerResponse, sessionId: string): void {
    this.options.log.warn({ sessionId }, 'request refused: the session belongs to another principal');
    refuse(res, 403, 'Forbidden: this session belongs to another user');
  }

  /** Registers the new session's owner and principal before anyone can learn its id, then lets the handler open it. */
  private initialize(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const { registry, local, log } = this.options;
    const sessionId = globalThis.crypto.randomUUID();
    this.pendingIds.set(req, sessionId);
    registry.register(sessionId, callerOf(req), this.options.busPosition()).then(
      (registered) => {
        if (registered) {
          // An initialize the handler refuses opens no session: its record goes (it counted for the quota).
          res.once('close', () => {
            if (!local.sessions.has(sessionId))
              registry
                .forget(sessionId)
                .catch((error: unknown) => log.error({ err: error }, 'cannot forget a session'));
          });
          local.handle(req, res, body);
        } else {
          log.warn('initialize refused: the caller holds its quota of sessions');
          refuse(res, 429, 'Too Many Requests: this user holds the most sessions it may', -32000, {
            'retry-after': '60',
          });
        }
      },
      (error: unknown) => {
        log.error({ err: error }, 'cannot register a session in Redis');
        refuse(res, 503, 'Service Unavailable: the session registry cannot be reached', -32000, { 'retry-after': '1' });
      },
    );
  }

  private route(req: IncomingMessage, res: ServerResponse, sessionId: string, body: unknown, attempt = 0): void {
    this.routeAsync(req, res, sessionId, body, attempt).catch((error: unknown) => {
      if (error instanceof MessageEncodingError) {
        // The caller's message, which the owner would have to read again: refused, as the caller's fault.
        this.options.log.warn({ err: error, sessionId }, 'a request could not be forwarded to its session');
        return refuse(
          res,
          400,
          `Bad Request: it cannot be forwarded to its session: ${error.message}`,
          ErrorCode.InvalidRequest,
        );
      }
      this.options.log.error({ err: error, sessionId }, 'cannot route a request of the cluster');
      if (!res.headersSent) refuse(res, 503, 'Service Unavailable: the cluster cannot serve this session now', -32000);
      else res.destroy();
    });
  }

  private async routeAsync(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string,
    body: unknown,
    attempt: number,
  ): Promise<void> {
    const { local, registry, processId, proof } = this.options;
    if (local.sessions.has(sessionId) && (await this.stillOwn(sessionId))) {
      if (this.belongs(req, res, sessionId)) this.serveOwn(req, res, sessionId, body);
      return;
    }
    const record = await registry.lookup(sessionId);
    // Unknown here and in Redis: the handler answers 404.
    if (!record) return local.handle(req, res, body);
    // Another principal's session: refused here, neither forwarded nor taken over.
    if (record.principal !== callerOf(req)) return this.forbid(res, sessionId);
    if (record.ownerUrl !== undefined && record.owner !== processId) {
      const target = { url: record.ownerUrl, owner: record.owner };
      let outcome = await forward(req, res, target, processId, body, sessionId, proof);
      if (!outcome.answered && outcome.code !== 'ECONNREFUSED' && outcome.code !== 'MISDIRECTED') {
        // The owner may have got the requests and run them before it went: never run them twice.
        if (!(outcome.reused && outcome.code === 'ECONNRESET') && answerLost(res, body)) return;
        // A pooled connection the owner closed, or nothing that runs twice: a new one tells whether the owner is there.
        outcome = await forward(req, res, target, processId, body, sessionId, proof);
        // Gone now: it may have gone after it got the first attempt. Its session is taken over by a later request.
        if (!outcome.answered && answerLost(res, body)) return;
      }
      if (outcome.answered) return;
      this.options.log.warn({ sessionId, owner: record.owner }, 'session owner unreachable: taking the session over');
    }
    await this.takeOver(req, res, sessionId, body, record, attempt);
  }

  /** The owner is gone: this process resumes the session for its own principal, unless another process did first. */
  private async takeOver(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string,
    body: unknown,
    record: SessionRecord,
    attempt: number,
  ): Promise<void> {
    const { local, registry, resume, log, processId } = this.options;
    const restoring = this.takingOver.get(sessionId);
    if (restoring !== undefined || (record.owner === processId && local.sessions.has(sessionId))) {
      // Taken over here already, or being: the request is served by the session restored here.
      await restoring;
      if (attempt + 1 >= MAX_ROUTES) throw new Error(`session ${sessionId} keeps changing owner`);
      return this.routeAsync(req, res, sessionId, body, attempt + 1);
    }
    const state = record.state;
    if (!state) {
      // Never initialized: there is nothing to resume.
      await registry.forget(sessionId, { owner: record.owner, epoch: record.epoch });
      return local.handle(req, res, body);
    }
    let restored: () => void = () => undefined;
    this.takingOver.set(sessionId, new Promise<void>((resolve) => (restored = resolve)));
    let epoch: Awaited<ReturnType<typeof registry.claim>>;
    try {
      epoch = await registry.claim(sessionId, record.owner, callerOf(req), state);
      if (typeof epoch === 'number' && !local.sessions.has(sessionId)) {
        const opener = verifiedCallers.get(req);
        // Bound again to the principal that opened it, so that the session refuses any other by itself.
        local.restoreSession!(
          sessionId,
          (transport) => resume(transport, { ...record, state }, opener),
          epoch * STREAMS_PER_EPOCH,
          record.principal === '' ? undefined : record.principal,
        );
        log.info({ sessionId, from: record.owner, epoch }, 'session taken over');
      }
    } finally {
      this.takingOver.delete(sessionId);
      restored();
    }
    if (epoch === 'forbidden') return this.forbid(res, sessionId);
    if (epoch === 'taken') {
      if (attempt + 1 >= MAX_ROUTES) throw new Error(`session ${sessionId} keeps changing owner`);
      return this.routeAsync(req, res, sessionId, body, attempt + 1);
    }
    this.serveOwn(req, res, sessionId, body);
  }
}

/**
 * Answers the requests of a POST body that was forwarded to an owner that went away before it
 * answered: each gets -32603 saying its outcome is unknown (it may have run). False, with nothing
 * written, when the body carries no request (notifications and responses may be sent again).
 */
function answerLost(res: ServerResponse, body: unknown): boolean {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  const ids = messages.flatMap((message) => {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? [id] : [];
  });
  if (ids.length === 0 || res.headersSent) return false;
  const error = {
    code: -32603,
    message: 'Internal error: the server process handling this request stopped before it answered; it may have run',
  };
  const answers = ids.map((id) => errorResponse(id, error));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
  return true;
}

/** The principal of a request's verified caller; '' when no `auth` checked it. */
function callerOf(req: IncomingMessage): string {
  return principalOf(verifiedCallers.get(req)) ?? '';
}

function isInitialize(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
}
