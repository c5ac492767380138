import { unrefTimer } from '../../http/http-exchange';
import type { HttpRequestLike, HttpResponseLike, TimerHandle } from '../../http/http-exchange';
import type pino from 'pino';
import { childLogger } from '../../../base/logger';
import { headerValue, refuse } from '../../http/http-guards';
import type { ImpliedInitialize } from '../../transport';
import type { EventStore } from './event-store';
import { DEFAULT_JSON_WINDOW_MS, DEFAULT_RETRY_MS, DEFAULT_SESSION_IDLE_MS } from './streamable-http-handler-options';
import type { StreamableHttpHandlerOptions } from './streamable-http-handler-options';
import { createSession } from './streamable-http-session';
import type { Session, StreamableHttpServerTransport } from './streamable-http-session';

/** The header that names a request's session. */
export const SESSION_HEADER = 'mcp-session-id';

/** A session with an id, and what its idle timer needs. */
export interface SessionEntry {
  /** The session's id, as its `Mcp-Session-Id` header names it. */
  readonly id: string;
  readonly session: Session;
  timer?: TimerHandle;
  /** The session's open HTTP responses: while there is one, the session is not idle. */
  open: number;
}

/**
 * The sessions of one handler: makes them (each handed to `onSession`), finds the one a request
 * names, closes those idle for `sessionIdleMs`, and forgets them when they close. Sessionless
 * transports (one per POST) are kept only so that closing the handler closes them.
 */
export class SessionTable {
  /** The sessions by id. */
  readonly entries = new Map<string, SessionEntry>();
  /** Their transports by id: the handler's `sessions`. */
  readonly transports = new Map<string, StreamableHttpServerTransport>();
  private readonly modernSessions = new Set<Session>();
  private readonly idleMs: number;

  constructor(
    private readonly options: StreamableHttpHandlerOptions,
    private readonly log: pino.Logger,
    private readonly eventStore: EventStore | undefined,
    private readonly onSession: (transport: StreamableHttpServerTransport) => void,
  ) {
    this.idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  }

  /**
   * Makes a session (sessionless without an id), registers it and hands its transport to
   * `onSession` (or to `restored.connect`: a session resumed from another process, whose new
   * streams are numbered from `restored.firstStream`). With `impliedInitialize` the session starts
   * initialized (sessionless mode).
   */
  open(
    sessionId: string | undefined,
    restored?: { readonly connect: (transport: StreamableHttpServerTransport) => void; readonly firstStream: number },
    impliedInitialize?: ImpliedInitialize,
  ): Session {
    const { options, eventStore } = this;
    const sessionLog = childLogger(this.log, sessionId === undefined ? { sessionless: true } : { sessionId });
    let entry: SessionEntry | undefined;
    const session = createSession({
      sessionId,
      eventStore,
      retryMs: options.retryMs ?? DEFAULT_RETRY_MS,
      jsonWindowMs: options.jsonWindowMs ?? (eventStore ? DEFAULT_JSON_WINDOW_MS : Infinity),
      maxBufferedBytes: options.maxBufferedBytes ?? 8 * 1024 * 1024,
      maxHeldMessages: options.maxHeldMessages ?? 1000,
      logger: sessionLog,
      ...(restored ? { firstStream: restored.firstStream } : {}),
      ...(impliedInitialize ? { impliedInitialize } : {}),
      onClose: () => {
        if (entry?.timer) clearTimeout(entry.timer);
        if (sessionId !== undefined) {
          this.entries.delete(sessionId);
          this.transports.delete(sessionId);
        } else this.modernSessions.delete(session);
      },
      onConnectionsChange: (open) => {
        if (!entry) return;
        entry.open = open;
        this.arm(entry);
      },
    });
    if (sessionId === undefined) this.modernSessions.add(session);
    else {
      entry = { id: sessionId, session, open: 0 };
      this.entries.set(sessionId, entry);
      this.transports.set(sessionId, session.transport);
      sessionLog.info('session opened');
    }
    (restored?.connect ?? this.onSession)(session.transport);
    return session;
  }

  /** Finds the session a request names: 400 without the header, 404 when unknown. */
  find(req: HttpRequestLike, res: HttpResponseLike): SessionEntry | undefined {
    const id = headerValue(req, SESSION_HEADER);
    if (id === undefined) {
      refuse(res, 400, 'Bad Request: Mcp-Session-Id header is required');
      return undefined;
    }
    const entry = this.entries.get(id);
    if (!entry) {
      refuse(res, 404, 'Session not found');
      return undefined;
    }
    this.arm(entry);
    return entry;
  }

  /** Closes every session, sessionless ones included. */
  closeAll(reason: string): void {
    for (const entry of [...this.entries.values()]) entry.session.transport.close(reason);
    for (const session of [...this.modernSessions]) session.transport.close(reason);
  }

  /** (Re)starts the idle timer of a session with no open response; stops it while one is open. */
  private arm(entry: SessionEntry): void {
    const idleMs = this.idleMs;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    if (entry.open > 0 || !Number.isFinite(idleMs) || entry.session.closed) return;
    entry.timer = unrefTimer(setTimeout(() => entry.session.transport.close(`session idle for ${idleMs} ms`), idleMs));
  }
}
