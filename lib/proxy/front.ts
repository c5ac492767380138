import type { Logger } from 'pino';
import { openConnection } from '../connection/connection';
import type { Connection } from '../connection/connection';
import { observeOutput } from '../connection/dispatcher';
import type { RequestContext, RequestHandler } from '../connection/dispatcher';
import { defer, finalize, Subject } from '../rx/rxjs';
import { LOG_LEVELS } from '../connection/handler-events';
import type { LogLevel } from '../connection/handler-events';
import { ModernEndpoint } from '../connection/modern-endpoint';
import { MODERN_REVISIONS } from '../connection/modern';
import { LEGACY_REVISIONS } from '../schema/revisions';
import { placeExtensions } from '../schema/extensions';
import type { ModernReceiver, Transport } from '../transport/transport';
import type { ServerMiddleware } from '../server/middleware';
import { withFrontMiddleware } from './front-middleware';
import { mayTell } from './event-declarations';

/** A server definition that serves what upstream MCP servers offer, to any number of clients. */
export interface McpProxy {
  /** Serves one downstream client over `transport` (any transport; the HTTP helpers call it per session). */
  connect(transport: Transport): Connection;
  /** Serves requests of the modern revisions (2026-07-28 on) one by one, for the Streamable HTTP handler. */
  readonly modern: ModernReceiver;
  /** The downstream connections open now. */
  readonly sessions: ReadonlySet<Connection>;
  /** Closes every downstream connection; the upstream clients are left open (they are the caller's). */
  close(reason?: string): void;
}

/** What one downstream client holds at the proxy: its log level, and where its notifications go. */
export class DownstreamSession {
  level: LogLevel = 'debug';
  connection!: Connection;
  /** The transport it is served on: who the caller is (`auth`), and its request headers. */
  transport: Transport | undefined;
}

/**
 * A handler of the front's requests: its owner is the downstream session the request came in,
 * none for a request of a modern revision (the front's modern endpoint passes no owner).
 */
export type FrontHandler = RequestHandler<string, DownstreamSession | undefined>;

/** What a {@link Front} serves. */
export interface FrontConfig {
  readonly info: { readonly name: string; readonly version: string };
  readonly instructions: string | undefined;
  readonly capabilities: () => Record<string, unknown>;
  /** Shared by every downstream connection; each finds its `DownstreamSession` as the owner. */
  readonly handlers: Readonly<Record<string, RequestHandler>>;
  /** Server middleware around every handler (limits, policies): see `withFrontMiddleware`. */
  readonly middleware?: readonly ServerMiddleware[] | undefined;
  readonly logger: Logger;
  /** A downstream client said its roots changed (`notifications/roots/list_changed`). */
  readonly onRootsChanged?: (session: DownstreamSession) => void;
  /** A downstream client went away: release what it held upstream. */
  readonly onSessionClosed: (session: DownstreamSession) => void;
  /** The front closed. */
  readonly onClose: () => void;
}

const levelRank = new Map<string, number>(LOG_LEVELS.map((level, index) => [level, index]));

/** The downstream side of a proxy or an aggregate: its sessions, its modern endpoint, and what reaches them all. */
export class Front implements McpProxy {
  readonly sessions = new Set<Connection>();
  private readonly downstream = new Set<DownstreamSession>();
  /** The modern requests being served now: the upstream's log messages reach them too. */
  private readonly modernCalls = new Set<RequestContext>();
  private endpoint: ModernEndpoint | undefined;

  /** The handlers, with the middleware around them. */
  private readonly handlers: Readonly<Record<string, RequestHandler>>;

  constructor(private readonly config: FrontConfig) {
    this.handlers = withFrontMiddleware(config.handlers, config.middleware);
  }

  connect(transport: Transport): Connection {
    const { config } = this;
    const session = new DownstreamSession();
    session.transport = transport;
    const connection = openConnection({
      transport,
      role: 'server',
      info: config.info,
      ...(config.instructions !== undefined ? { instructions: config.instructions } : {}),
      // Extensions go where the caller's revision keeps them (`experimental` before 2026-07-28).
      capabilities: () => placeExtensions(config.capabilities(), connection.revision),
      handlers: this.handlers,
      owner: session,
      logger: config.logger,
      onNotification: (message) => {
        if (message.method === 'notifications/roots/list_changed') config.onRootsChanged?.(session);
      },
      onClose: () => {
        config.onSessionClosed(session);
        this.downstream.delete(session);
        this.sessions.delete(connection);
      },
    });
    session.connection = connection;
    if (connection.state !== 'shutdown') {
      this.downstream.add(session);
      this.sessions.add(connection);
    }
    return connection;
  }

  get modern(): ModernReceiver {
    const { config } = this;
    return (this.endpoint ??= new ModernEndpoint({
      info: config.info,
      ...(config.instructions !== undefined ? { instructions: config.instructions } : {}),
      capabilities: config.capabilities,
      handlers: this.trackedHandlers(),
      supportedRevisions: [...LEGACY_REVISIONS, ...MODERN_REVISIONS],
      logger: config.logger,
    }));
  }

  /** Each `broadcast`, by method: what modern callers' `subscriptions/listen` streams follow. */
  readonly broadcasts = new Subject<string>();

  /** A notification with no params to every operating downstream session (and listen stream). */
  broadcast(method: string): void {
    this.broadcasts.next(method);
    for (const session of this.downstream) {
      if (session.connection.state === 'operating' && mayTell(session.connection, method))
        session.connection.notify(method);
    }
  }

  /**
   * A log message to every downstream session whose level lets it through, and to every modern
   * request in progress whose own level does (with the request, as a modern revision has it).
   */
  log(message: { readonly level: string } & Record<string, unknown>): void {
    const rank = levelRank.get(message.level) ?? 0;
    for (const session of this.downstream) {
      if (session.connection.state === 'operating' && rank >= levelRank.get(session.level)!)
        session.connection.notify('notifications/message', message);
    }
    for (const context of this.modernCalls) {
      const wanted = context.peer?.logLevel;
      if (wanted !== undefined && rank >= levelRank.get(wanted)!)
        context.log(
          logLevelOf(message.level),
          message.data,
          typeof message.logger === 'string' ? message.logger : undefined,
        );
    }
  }

  /** The handlers for modern requests: each request is known while it is served. */
  private trackedHandlers(): Record<string, RequestHandler> {
    const tracked: Record<string, RequestHandler> = {};
    for (const [method, handler] of Object.entries(this.handlers)) {
      // A listen stream carries only what it subscribed to.
      if (method === 'subscriptions/listen') {
        tracked[method] = handler;
        continue;
      }
      tracked[method] = (params, context, owner) =>
        defer(() => {
          this.modernCalls.add(context);
          return observeOutput(handler(params, context, owner));
        }).pipe(finalize(() => this.modernCalls.delete(context)));
    }
    return tracked;
  }

  close(reason = 'proxy closed'): void {
    for (const session of [...this.downstream]) session.connection.close(reason);
    this.endpoint?.close(reason);
    this.config.onClose();
  }
}

/** `logging/setLevel`, answered by the proxy for each downstream client (the upstream keeps its own level). */
export const setLevelHandler: RequestHandler<'logging/setLevel', DownstreamSession> = (params, _context, owner) => {
  owner.level = params.level;
  return {};
};

/** A log message's level as one of the levels; an unknown word (a peer's) counts as the least severe. */
function logLevelOf(level: string): LogLevel {
  return LOG_LEVELS.find((known) => known === level) ?? 'debug';
}
