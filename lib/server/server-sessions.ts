import type { Logger } from 'pino';
import type { SchedulerLike } from '../rx/rxjs';
import { hasCapability } from '../connection/capabilities';
import { openConnection } from '../connection/connection';
import type { ConnectionOptions } from '../connection/connection';
import type { RequestHandler } from '../connection/dispatcher';
import { LOG_LEVELS } from '../connection/handler-events';
import type { LogLevel } from '../connection/handler-events';
import type { CacheHint } from '../connection/modern';
import type { LifecycleInspector } from '../base/inspection';
import { placeExtensions } from '../schema/extensions';
import type { Implementation, ServerCapabilities } from '../schema/lifecycle';
import type { Transport } from '../transport/transport';
import type { PersistedSession, ServerSession } from './server-context';
import { Session } from './session';
import { capabilitiesForRevision } from './tasks/task-capabilities';
import type { SessionHost } from './session';
import type { ListChangeListener } from './registry';
import type { DefinitionParts } from './definition-parts';
import type { HandlerParts } from './handler-parts';

/** Options of `connect`: a session resumed from another process, hooks on its state, its inspector. */
export interface ConnectOptions {
  /** Resumes the session `persist()` returned (in another process, say) instead of awaiting initialize. */
  readonly restore?: PersistedSession;
  /**
   * Called when the session starts operating and whenever its log level or resource subscriptions
   * change; the answer to the request that changed them waits for a Promise it returns (a cluster
   * records the state before the client learns of the change).
   */
  readonly onChange?: (session: ServerSession) => void | Promise<void>;
  /**
   * Receives the XState inspection events of this session's lifecycle machine, in place of the
   * server's `inspect` (see `ServerOptions.inspect`): a function, or an observer whose `next` is
   * called, such as `inspector.inspect` of `@statelyai/inspect`.
   * @example
   * import { createBrowserInspector } from '@statelyai/inspect';
   * const inspector = createBrowserInspector();
   * server.connect(transport, { inspect: inspector.inspect });
   */
  readonly inspect?: LifecycleInspector;
}

/** The options of a `connect` called without any: one object for every such session. */
const NO_CONNECT_OPTIONS: ConnectOptions = {};

const levelRank = new Map<LogLevel, number>(LOG_LEVELS.map((level, index) => [level, index]));

/** What every session of one server definition is started with. */
export interface SessionConfig {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly supportedRevisions: readonly string[] | undefined;
  readonly cacheHints: Readonly<Record<string, CacheHint>> | undefined;
  readonly requestTimeoutMs: number | undefined;
  readonly initializeTimeoutMs: number | undefined;
  readonly defaultLogLevel: LogLevel;
  /** One set of handlers for every session: each finds its session as the connection's owner. */
  readonly handlers: Readonly<Record<string, RequestHandler>>;
  /** What the handlers work with, found through their owner (a session, or the modern stand-in). */
  readonly handlerParts: DefinitionParts;
  readonly scheduler: SchedulerLike | undefined;
  readonly logger: Logger;
  /** Inspects the lifecycle of every session whose `connect` names no inspector of its own. */
  readonly inspect?: LifecycleInspector;
}

/**
 * The open sessions of a server definition, and what reaches all of them: list changes, resource
 * updates and log messages, each sent only where the session's declarations and level allow.
 */
export class ServerSessions implements SessionHost, ListChangeListener {
  readonly all = new Set<Session>();
  private warnedNoLogging = false;

  constructor(private readonly config: SessionConfig) {}

  get handlerParts(): HandlerParts {
    return this.config.handlerParts;
  }

  /** Starts a session over `transport` (resumed with `restore`); it leaves the set when its connection closes. */
  open(transport: Transport, options: ConnectOptions = NO_CONNECT_OPTIONS): Session {
    const { restore } = options;
    const session = new Session(this, restore?.logLevel ?? this.config.defaultLogLevel);
    session.transport = transport;
    if (restore) session.declared = restore.declared;
    session.onChange = options.onChange;
    session.connection = openConnection(new SessionConnectionOptions(this, session, transport, options));
    if (restore) for (const uri of restore.subscriptions) this.config.handlerParts.watchFor(session, uri);
    // A transport that was already closed ends the session before it is counted.
    if (session.connection.state !== 'shutdown') this.all.add(session);
    return session;
  }

  /** A session's connection closed: its subscriptions end and it leaves the set. */
  closed(session: Session): void {
    session.unwatchAll();
    this.all.delete(session);
  }

  /** What every session's connection is configured with. */
  get shared(): SessionConfig {
    return this.config;
  }

  shouldSendLog(session: Session, level: LogLevel): boolean {
    if (!hasCapability(session.declared, 'logging')) {
      if (!this.warnedNoLogging)
        this.config.logger.warn('log message not sent: declare the logging capability to send log messages');
      this.warnedNoLogging = true;
      return false;
    }
    return levelRank.get(level)! >= levelRank.get(session.level)!;
  }

  sendLog(session: Session, level: LogLevel, data: unknown, loggerName?: string): void {
    if (!session.operating || !this.shouldSendLog(session, level)) return;
    const params: Record<string, unknown> = { level, data };
    if (loggerName !== undefined) params.logger = loggerName;
    session.connection.notify('notifications/message', params);
  }

  /** A log message to every session whose level lets it through. */
  log(level: LogLevel, data: unknown, loggerName?: string): void {
    for (const session of this.all) this.sendLog(session, level, data, loggerName);
  }

  /** A registry of `kind` changed: its `list_changed`, to the sessions told `listChanged`. */
  listChanged(kind: string): void {
    if (kind === 'tools') this.broadcast('notifications/tools/list_changed', 'tools.listChanged');
    else if (kind === 'prompts') this.broadcast('notifications/prompts/list_changed', 'prompts.listChanged');
    else this.broadcast('notifications/resources/list_changed', 'resources.listChanged');
  }

  /** A notification with no params to every operating session that was told `capability`. */
  broadcast(method: string, capability: string): void {
    for (const session of this.all) {
      if (session.operating && hasCapability(session.declared, capability)) session.connection.notify(method);
    }
  }

  /** `notifications/resources/updated` to exactly the sessions subscribed to `uri`. */
  resourceUpdated(uri: string): void {
    for (const session of this.all) {
      if (session.watches?.has(uri) && session.operating)
        session.connection.notify('notifications/resources/updated', { uri });
    }
  }

  closeAll(reason: string): void {
    for (const session of [...this.all]) session.close(reason);
  }
}

/**
 * The options of one session's connection, as one small object: what every session shares is read
 * from the server's configuration, and the session's own hooks are methods rather than closures
 * made per session (an idle session should cost little; see benchmarks/results/ANALYSIS.md).
 */
class SessionConnectionOptions implements ConnectionOptions {
  readonly role = 'server';

  constructor(
    private readonly sessions: ServerSessions,
    private readonly session: Session,
    readonly transport: Transport,
    /** Those of `connect`: kept rather than what the session needs of them, so that the common case holds one shared object. */
    private readonly connectOptions: ConnectOptions,
  ) {}

  get info(): Implementation {
    return this.sessions.shared.info;
  }

  get instructions(): string | undefined {
    return this.sessions.shared.instructions;
  }

  get supportedRevisions(): readonly string[] | undefined {
    return this.sessions.shared.supportedRevisions;
  }

  get cacheHints(): Readonly<Record<string, CacheHint>> | undefined {
    return this.sessions.shared.cacheHints;
  }

  get requestTimeoutMs(): number | undefined {
    return this.sessions.shared.requestTimeoutMs;
  }

  get initializeTimeoutMs(): number | undefined {
    return this.sessions.shared.initializeTimeoutMs;
  }

  get scheduler(): SchedulerLike | undefined {
    return this.sessions.shared.scheduler;
  }

  get logger(): Logger {
    return this.sessions.shared.logger;
  }

  get handlers(): Readonly<Record<string, RequestHandler>> {
    return this.sessions.shared.handlers;
  }

  get owner(): Session {
    return this.session;
  }

  /** Starts a resumed session from its persisted lifecycle. */
  get snapshot(): unknown {
    return this.connectOptions.restore?.lifecycle;
  }

  /** The session's own inspector, else the server's; read once, when the connection is made. */
  get inspect(): LifecycleInspector | undefined {
    return this.connectOptions.inspect ?? this.sessions.shared.inspect;
  }

  /** The session starts operating once the client says it is initialized. */
  onNotification(message: { readonly method: string }): void {
    if (message.method === 'notifications/initialized' && this.session.onChange)
      queueMicrotask(() => void this.session.changed());
  }

  /** Fixed when first read, which is when initialize is answered: those of the negotiated revision. */
  capabilities(): Record<string, unknown> {
    // Those of the session's revision (core tasks before 2026-07-28, the extension from it), with
    // extensions where the revision carries them (`experimental` before 2026-07-28).
    const declared = (this.session.declared ??= capabilitiesForRevision(
      this.sessions.shared.handlerParts.capabilities() as ServerCapabilities,
      this.session.revision,
    )) as Record<string, unknown>;
    return placeExtensions(declared, this.session.revision);
  }

  shouldSendLog(level: LogLevel): boolean {
    return this.sessions.shouldSendLog(this.session, level);
  }

  onClose(): void {
    this.sessions.closed(this.session);
  }
}
