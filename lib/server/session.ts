import type { Observable, Subscription } from '../rx/rxjs';
import type { Connection } from '../connection/connection';
import type { NestedRequestOptions } from '../connection/dispatcher';
import type { LogLevel } from '../connection/handler-events';
import type { ElicitResult } from '../schema/elicitation';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../schema/lifecycle';
import type { Revision } from '../schema/revisions';
import type { ListRootsResult } from '../schema/roots';
import type { CreateMessageRequestParams, CreateMessageResult } from '../schema/sampling';
import type { AuthInfo, Transport, TransportClose } from '../transport/transport';
import type { HandlerParts } from './handler-parts';
import { createClientRequests } from './server-context';
import type {
  ClientRequests,
  ElicitFormParams,
  ElicitUrlParams,
  PersistedSession,
  ServerSession,
} from './server-context';

/** What a session asks of the server it belongs to. */
export interface SessionHost {
  /** What the server's request handlers work with: they find it through the session, their owner. */
  readonly handlerParts: HandlerParts;
  /** Sends a log message to `session` if the server declared logging and the session's level lets it through. */
  sendLog(session: Session, level: LogLevel, data: unknown, logger?: string): void;
}

/**
 * One client's session with a server. A class, so that an idle session costs one object: the
 * server's request handlers are shared by every session and find this one as their `owner`, and
 * the client requests and the map of resource subscriptions are made on first use.
 */
export class Session implements ServerSession {
  /** The log level the client asked for (the server's default until then). */
  level: LogLevel;
  /** The capabilities declared to this client, fixed when first read (at initialize). */
  declared: ServerCapabilities | undefined;
  /** Resource subscriptions by URI. */
  watches: Map<string, Subscription> | undefined;
  private clientRequests: ClientRequests | undefined;
  // Set right after construction: the connection needs the session as its owner first.
  connection!: Connection;
  /** The transport, for what it verified of the client (`auth`). */
  transport: Transport | undefined;
  /** Told when the log level or the subscriptions change, or the session starts operating (see `connect`). */
  onChange: ((session: ServerSession) => void | Promise<void>) | undefined;

  constructor(
    private readonly host: SessionHost,
    level: LogLevel,
  ) {
    this.level = level;
  }

  get handlerParts(): HandlerParts {
    return this.host.handlerParts;
  }

  get id(): string {
    return this.connection.id;
  }

  get auth(): AuthInfo | undefined {
    return this.transport?.auth;
  }

  get closed$(): Observable<TransportClose> {
    return this.connection.closed$;
  }

  get revision(): Revision | undefined {
    return this.connection.revision;
  }

  get clientInfo(): Implementation | undefined {
    return this.connection.peerInfo as Implementation | undefined;
  }

  get clientCapabilities(): ClientCapabilities | undefined {
    return this.connection.peerCapabilities as ClientCapabilities | undefined;
  }

  get logLevel(): LogLevel {
    return this.level;
  }

  get subscriptions(): ReadonlySet<string> {
    return new Set(this.watches?.keys());
  }

  /** Initialized and not closed: notifications may be sent. */
  get operating(): boolean {
    return this.connection.state === 'operating';
  }

  /** Tells `onChange`; its Promise, when it returns one, so that an answer waits for it. */
  changed(): Promise<void> | undefined {
    const recorded = this.onChange?.(this);
    return recorded instanceof Promise ? recorded : undefined;
  }

  persist(): PersistedSession {
    return {
      lifecycle: this.connection.getPersistedSnapshot(),
      declared: this.declared,
      logLevel: this.level,
      subscriptions: [...(this.watches?.keys() ?? [])],
    };
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    this.host.sendLog(this, level, data, logger);
  }

  close(reason?: string): void {
    this.connection.close(reason);
  }

  /** Drops every resource subscription (the session has ended). */
  unwatchAll(): void {
    const watches = this.watches;
    this.watches = undefined;
    if (watches) for (const subscription of watches.values()) subscription.unsubscribe();
  }

  private get requests(): ClientRequests {
    this.clientRequests ??= createClientRequests(this.connection, (method, params, options) =>
      this.connection.request(method, params, { timeoutMs: options?.timeoutMs, signal: options?.signal }),
    );
    return this.clientRequests;
  }

  sample(params: CreateMessageRequestParams, options?: NestedRequestOptions): Observable<CreateMessageResult> {
    return this.requests.sample(params, options);
  }

  elicit(params: ElicitFormParams, options?: NestedRequestOptions): Observable<ElicitResult> {
    return this.requests.elicit(params, options);
  }

  elicitUrl(params: ElicitUrlParams, options?: NestedRequestOptions): Observable<ElicitResult> {
    return this.requests.elicitUrl(params, options);
  }

  listRoots(options?: NestedRequestOptions): Observable<ListRootsResult> {
    return this.requests.listRoots(options);
  }
}
