import type { IncomingMessage, ServerResponse } from 'node:http';
import type pino from 'pino';
import type { PersistedSession } from '../server/server-context';
import { headerValue, readJsonBodyWith, refuse } from '../transport/http/http-guards';
import { SESSION_HEADER } from '../transport/streamable-http/session-table';
import type { StreamableHttpHandler } from '../transport/streamable-http/streamable-http-handler-options';
import type { StreamableHttpServerTransport } from '../transport/streamable-http/streamable-http-session';
import { forward, FORWARDED_HEADER, MISDIRECTED, OWNER_HEADER } from './forward';
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
  readonly maxBodyBytes: number;
  /** Connects a session taken over from another process, resumed from what it persisted. */
  readonly resume: (transport: StreamableHttpServerTransport, state: PersistedSession) => void;
  readonly log: pino.Logger;
}

/**
 * Serves one process's share of a cluster's endpoint: a request for a session this process owns,
 * a request without a session (an `initialize`, which makes this process the new session's owner,
 * or a stateless request) and a forwarded request go to the local handler; a request for a session
 * another process owns is forwarded to it; a request for a session whose owner is gone takes the
 * session over (resumed from its persisted state) and is served here.
 */
export class ClusterEndpoint {
  /** The id each initialize request's session gets, registered before the handler names it. */
  private readonly pendingIds = new WeakMap<object, string>();

  constructor(private readonly options: ClusterEndpointOptions) {}

  /** For the local handler's `generateSessionId`. */
  sessionIdFor(req: object): string {
    return this.pendingIds.get(req) ?? globalThis.crypto.randomUUID();
  }

  handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): void {
    const { local, maxBodyBytes } = this.options;
    const sessionId = headerValue(req, SESSION_HEADER);
    const own = sessionId !== undefined && local.sessions.has(sessionId);
    if (req.headers[FORWARDED_HEADER] !== undefined && !own && req.headers[OWNER_HEADER] !== this.options.processId) {
      // Meant for a process that was here before this one: its sender takes the session over.
      refuse(res, MISDIRECTED, 'Misdirected Request: the session’s process is gone', -32000);
      return;
    }
    if (own || req.headers[FORWARDED_HEADER] !== undefined || (sessionId === undefined && req.method !== 'POST')) {
      local.handle(req, res, parsedBody);
      return;
    }
    if (req.method !== 'POST') {
      this.route(req, res, sessionId!, undefined);
      return;
    }
    readJsonBodyWith(req, res, parsedBody, maxBodyBytes, (read) => {
      if (!read.ok) return;
      if (sessionId !== undefined) this.route(req, res, sessionId, read.body);
      else if (isInitialize(read.body)) this.initialize(req, res, read.body);
      else local.handle(req, res, read.body);
    });
  }

  /** Registers the new session's owner before anyone can learn its id, then lets the handler open it. */
  private initialize(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const { registry, processId, local, log } = this.options;
    const sessionId = globalThis.crypto.randomUUID();
    this.pendingIds.set(req, sessionId);
    registry.register(sessionId, processId).then(
      () => local.handle(req, res, body),
      (error: unknown) => {
        log.error({ err: error }, 'cannot register a session in Redis');
        refuse(res, 503, 'Service Unavailable: the session registry cannot be reached', -32000, { 'retry-after': '1' });
      },
    );
  }

  private route(req: IncomingMessage, res: ServerResponse, sessionId: string, body: unknown, attempt = 0): void {
    this.routeAsync(req, res, sessionId, body, attempt).catch((error: unknown) => {
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
    const { local, registry, processId } = this.options;
    if (local.sessions.has(sessionId)) return local.handle(req, res, body);
    const record = await registry.lookup(sessionId);
    // Unknown here and in Redis: the handler answers 404.
    if (!record) return local.handle(req, res, body);
    if (record.ownerUrl !== undefined && record.owner !== processId) {
      const target = { url: record.ownerUrl, owner: record.owner };
      let outcome = await forward(req, res, target, processId, body);
      // A pooled connection the owner closed fails once; a new one tells whether the owner is there.
      if (!outcome.answered && outcome.code !== 'ECONNREFUSED' && outcome.code !== 'MISDIRECTED')
        outcome = await forward(req, res, target, processId, body);
      if (outcome.answered) return;
      this.options.log.warn({ sessionId, owner: record.owner }, 'session owner unreachable: taking the session over');
    }
    await this.takeOver(req, res, sessionId, body, record, attempt);
  }

  /** The owner is gone: this process resumes the session, unless another did first. */
  private async takeOver(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string,
    body: unknown,
    record: SessionRecord,
    attempt: number,
  ): Promise<void> {
    const { local, registry, processId, resume, log } = this.options;
    const state = record.state;
    if (!state) {
      // Never initialized: there is nothing to resume.
      await registry.forget(sessionId);
      return local.handle(req, res, body);
    }
    const epoch = await registry.claim(sessionId, record.owner, processId);
    if (epoch === undefined) {
      if (attempt + 1 >= MAX_ROUTES) throw new Error(`session ${sessionId} keeps changing owner`);
      return this.routeAsync(req, res, sessionId, body, attempt + 1);
    }
    if (!local.sessions.has(sessionId)) {
      local.restoreSession!(sessionId, (transport) => resume(transport, state), epoch * STREAMS_PER_EPOCH);
      log.info({ sessionId, from: record.owner, epoch }, 'session taken over');
    }
    local.handle(req, res, body);
  }
}

function isInitialize(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
}
