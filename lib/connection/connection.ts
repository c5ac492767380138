import { asyncScheduler, BehaviorSubject, Observable, ReplaySubject, Subject } from 'rxjs';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { Logger } from 'pino';
import type { AnyMachineSnapshot, InspectionEvent } from 'xstate';
import { classify } from '../jsonrpc/classify';
import type { Classified } from '../jsonrpc/classify';
import {
  CapabilityNotSupportedError,
  ConnectionClosedError,
  ErrorCode,
  JsonRpcError,
  NotInitializedError,
  ProtocolError,
  UnsupportedProtocolVersionError,
} from '../jsonrpc/errors';
import { errorResponse, notification as makeNotification, resultResponse } from '../jsonrpc/message';
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from '../jsonrpc/message';
import { describeIssues, toValidationIssues } from '../schema/issues';
import { checkParams, checkResult, methodDefinition } from '../schema/methods';
import { featuresOf, isStatefulRevision, LATEST_STATEFUL_REVISION, STATEFUL_REVISIONS } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import { MalformedFrame } from '../transport/transport';
import type { SendOptions, Transport, TransportClose } from '../transport/transport';
import { hasCapability } from './capabilities';
import { clientLifecycle } from './client-lifecycle.machine';
import { Correlator } from './correlator';
import type { ProgressParams } from './correlator';
import { Deadlines } from './deadlines';
import { Dispatcher } from './dispatcher';
import type { Answer, DispatcherSink, NestedRequestOptions, RequestHandler } from './dispatcher';
import type { LogLevel } from './handler-events';
import { LifecycleRunner } from './lifecycle-runner';
import { DEFAULT_REQUEST_TIMEOUT_MS, sendRequest } from './request-pipeline';
import type { RequesterDeps, RequestOptions } from './request-pipeline';
import { serverLifecycle } from './server-lifecycle.machine';
import {
  admitStatelessRequest,
  decorateStatelessResult,
  discoverResult,
  isRefusal,
  isStatelessRevision,
  META,
  statelessRevisionOf,
  STATELESS_REVISIONS,
} from './stateless';
import type { CacheHint, StatelessPolicy } from './stateless';
import { childLogger } from '../jsonrpc/logger';

/** Which end of the protocol a connection is. */
export type Role = 'client' | 'server';

/** The coarse lifecycle state a user can observe. */
export type ConnectionState = 'initializing' | 'operating' | 'shutdown';

/** How long a server waits for the client's initialize before it gives up on the connection. */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 60_000;

/** Options of `createConnection`. */
export interface ConnectionOptions {
  readonly transport: Transport;
  readonly role: Role;
  /** Our name and version: `serverInfo` or `clientInfo` in the handshake. */
  readonly info: { readonly name: string; readonly version: string } & Record<string, unknown>;
  /** The capabilities we declare; read when the handshake runs and when a request arrives. */
  readonly capabilities?: () => Record<string, unknown>;
  /** Server only: instructions sent in the initialize result. */
  readonly instructions?: string;
  /**
   * Revisions we speak, oldest first. Default: every revision rxmcp supports. The handshake
   * revisions among them are negotiated by initialize; a server serves requests of the stateless
   * ones (2026-07-28 on) as they come, and a client enters one with `useStateless`.
   */
  readonly supportedRevisions?: readonly string[];
  /** Server only: caching hints for results of stateless revisions, by method (see `DEFAULT_CACHE_HINTS`). */
  readonly cacheHints?: Readonly<Record<string, CacheHint>>;
  /** Receives the lifecycle's XState inspection events (see `LifecycleRunner`). */
  readonly inspect?: (event: InspectionEvent) => void;
  /**
   * Resumes a connection from `getPersistedSnapshot()` of an earlier one (in another process, say):
   * its lifecycle state, negotiated revision and what the peer declared. Requests that were in
   * flight are not part of it.
   */
  readonly snapshot?: unknown;
  /** Client only: the revision offered in initialize. Default: the latest supported. */
  readonly protocolVersion?: Revision;
  /**
   * Request handlers by method; more can be added with `setRequestHandler`. The record is read,
   * never copied or changed, so one record can serve many connections (see `owner`).
   */
  readonly handlers?: Readonly<Record<string, RequestHandler>>;
  /** Passed to every request handler as its third argument: lets shared handlers find their session. */
  readonly owner?: unknown;
  /** Called with every valid notification from the peer, before `notifications$` emits it. */
  readonly onNotification?: (message: JsonRpcNotification) => void;
  /** Called once, when the connection has shut down, before `closed$` emits. */
  readonly onClose?: (close: TransportClose) => void;
  /**
   * Refuse locally, with `CapabilityNotSupportedError`, a request whose capability the peer did not
   * declare. Default: true for a server (sampling, elicitation, roots), false for a client.
   */
  readonly enforcePeerCapabilities?: boolean;
  /** Validate results the peer sends against the negotiated revision's schema. Default true. */
  readonly validateResults?: boolean;
  /** Default timeout of outbound requests. */
  readonly requestTimeoutMs?: number;
  /** Server only: how long to wait for initialize. Default 60 s; `Infinity` waits for ever. */
  readonly initializeTimeoutMs?: number;
  /** Decides whether a log message from a handler is sent (the server filters by the session's level). */
  readonly shouldSendLog?: (level: LogLevel) => boolean;
  readonly logger?: Logger;
  /** Where timeouts and lifecycle delays are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * One MCP connection: a lifecycle actor, a correlator for the requests we send, a dispatcher for
 * the requests we serve, over one transport. Shared by client and server.
 */
export interface Connection {
  /** Unique within the process; appears in log lines. */
  readonly id: string;
  readonly role: Role;
  readonly state: ConnectionState;
  /** The lifecycle state; replays the current state to each subscriber. Completes on shutdown. */
  readonly state$: Observable<ConnectionState>;
  /** The negotiated revision, once initialize has been answered. */
  readonly revision: Revision | undefined;
  /** The capabilities the peer declared, once known. */
  readonly peerCapabilities: Record<string, unknown> | undefined;
  /** The peer's `clientInfo` or `serverInfo`, once known. */
  readonly peerInfo: Record<string, unknown> | undefined;
  /** Client only: the server's instructions, if it sent any. */
  readonly instructions: string | undefined;
  /** Hot: every valid notification from the peer, in order. Completes on shutdown. */
  readonly notifications$: Observable<JsonRpcNotification>;
  /** Emits once, when the connection has shut down, and completes; replays to late subscribers. */
  readonly closed$: Observable<TransportClose>;
  /** Requests we sent that await a response. */
  readonly pendingRequests: number;
  /** Requests from the peer that are being handled. */
  readonly inFlightRequests: number;
  /**
   * Sends a request. Cold: each subscription sends it once with a fresh id. Emits the result and
   * completes, or errors with the peer's `JsonRpcError`, a `RequestTimeoutError`, a
   * `ConnectionClosedError`, a `ProtocolError` (invalid result), or a local refusal
   * (`NotInitializedError`, `CapabilityNotSupportedError`). Unsubscribing before the response
   * sends `notifications/cancelled`.
   */
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Observable<Record<string, unknown>>;
  /** Sends a notification; dropped (and logged) once the connection is closed. */
  notify(method: string, params?: Record<string, unknown>, options?: SendOptions): void;
  /** Adds or replaces the handler of a request method. */
  setRequestHandler(method: string, handler: RequestHandler): void;
  removeRequestHandler(method: string): void;
  /**
   * Client only: speaks the stateless `revision` (2026-07-28 on) from now on, instead of running
   * the handshake: every request carries the revision, our capabilities and info in `_meta`.
   * `server` is what `server/discover` said, when the client asked. Throws when the revision is
   * not one we speak, or when the connection has already initialized or closed.
   */
  useStateless(
    revision: string,
    server?: {
      readonly capabilities?: Record<string, unknown>;
      readonly serverInfo?: Record<string, unknown>;
      readonly instructions?: string;
    },
  ): void;
  /**
   * Client only: runs the handshake (initialize, then notifications/initialized). Cold; emits the
   * server's InitializeResult and completes once the connection is operating. Errors with
   * `UnsupportedProtocolVersionError` (and closes) when the server answers a revision we do not speak.
   */
  initialize(): Observable<Record<string, unknown>>;
  /** The lifecycle's snapshot in a form that survives JSON: `snapshot` in the options of a later connection restores it. */
  getPersistedSnapshot(): unknown;
  /** Closes the connection: pending requests fail, handlers in flight are cancelled. Idempotent. */
  close(reason?: string): void;
}

let connectionCount = 0;

type Reply = (response: JsonRpcResponse | null) => void;

type Lifecycle = LifecycleRunner<typeof serverLifecycle> | LifecycleRunner<typeof clientLifecycle>;

const NO_HANDLERS: Readonly<Record<string, RequestHandler>> = Object.freeze({});

/** Every revision a connection speaks unless told otherwise, oldest first. */
const ALL_REVISIONS: readonly string[] = Object.freeze([...STATEFUL_REVISIONS, ...STATELESS_REVISIONS]);

/**
 * Creates the connection actor for a transport. It starts reading the transport at once; a server
 * connection then waits for initialize, a client connection for `initialize()`.
 */
export function createConnection(options: ConnectionOptions): Connection {
  return new McpConnection(options);
}

/**
 * The connection. A class, so that a connection costs one object with its fields and its methods
 * live on the prototype: a server holds one per session, and an idle session should cost little
 * (see benchmarks/results/ANALYSIS.md). Subjects and maps are made on first use.
 */
class McpConnection implements Connection, DispatcherSink, RequesterDeps {
  readonly id: string;
  readonly role: Role;
  revision: Revision | undefined;
  peerCapabilities: Record<string, unknown> | undefined;
  peerInfo: Record<string, unknown> | undefined;
  instructions: string | undefined;
  readonly correlator = new Correlator();
  readonly scheduler: SchedulerLike;
  readonly requestTimeoutMs: number;
  requestMeta: Record<string, unknown> | undefined;

  private readonly options: ConnectionOptions;
  private readonly transport: Transport;
  /** The handshake revisions we negotiate among. */
  private readonly supported: readonly Revision[];
  /** Every revision we speak, for stateless requests and the errors that list them. */
  private readonly supportedAll: readonly string[];
  private statelessPolicyCache: StatelessPolicy | undefined;
  private readonly log: Logger;
  private readonly traceEnabled: boolean;
  private readonly dispatcher: Dispatcher;
  private readonly lifecycle: Lifecycle;
  /** Handlers set or removed after creation (null: removed), over `options.handlers`. */
  private handlerChanges: Map<string, RequestHandler | null> | undefined;
  private requestIds = 0;
  // What the lifecycle's tags allow, refreshed on every transition.
  private acceptsInitialize = false;
  private acceptsRequests = false;
  private acceptsStateless = false;
  private maySendRequests = false;
  private maySendInitialize = false;
  private closed = false;
  private currentState: ConnectionState = 'initializing';
  private closeInfo: TransportClose | undefined;
  private stateSubject: BehaviorSubject<ConnectionState> | undefined;
  private notificationSubject: Subject<JsonRpcNotification> | undefined;
  private closedSubject: ReplaySubject<TransportClose> | undefined;
  private incoming: Subscription | undefined;
  private transportClosed: Subscription | undefined;
  private deadlineTimer: Deadlines | undefined;

  constructor(options: ConnectionOptions) {
    this.options = options;
    this.transport = options.transport;
    this.role = options.role;
    // Shared arrays unless revisions were given: a connection should cost little (benchmarks).
    this.supportedAll = options.supportedRevisions ?? ALL_REVISIONS;
    this.supported = options.supportedRevisions ? this.supportedAll.filter(isStatefulRevision) : STATEFUL_REVISIONS;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.id = `${this.role[0]}${++connectionCount}`;
    this.log = childLogger(options.logger, { component: 'connection', connectionId: this.id, role: this.role });
    this.traceEnabled = this.log.isLevelEnabled('trace');
    this.dispatcher = new Dispatcher(this, this.log);
    const runnerOptions = {
      onTransition: (snapshot: AnyMachineSnapshot) => this.onLifecycle(snapshot),
      inspect: options.inspect,
      snapshot: options.snapshot,
    };
    this.lifecycle =
      this.role === 'server'
        ? new LifecycleRunner(
            serverLifecycle,
            {
              supported: this.supported,
              initializeTimeoutMs: options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
            },
            this.scheduler,
            runnerOptions,
          )
        : new LifecycleRunner(clientLifecycle, { supported: this.supportedAll }, this.scheduler, runnerOptions);
    if (options.snapshot !== undefined) this.adoptRestored();
    this.onLifecycle(this.lifecycle.snapshot);

    this.transportClosed = this.transport.closed$.subscribe((close) => this.shutdown(close.reason, close.error));
    if (!this.closed) {
      this.incoming = this.transport.incoming$.subscribe({
        next: (frame) => this.onFrame(frame),
        // closed$ carries the reason and any error; some transports complete incoming$ just before
        // it, so wait a microtask before falling back to a generic reason.
        complete: () => queueMicrotask(() => this.shutdown('transport ended')),
      });
    }
    this.log.info('connection opened');
  }

  // ---- what a user sees ------------------------------------------------------------------------

  get state(): ConnectionState {
    return this.closed ? 'shutdown' : this.currentState;
  }

  get state$(): Observable<ConnectionState> {
    if (!this.stateSubject) {
      this.stateSubject = new BehaviorSubject<ConnectionState>(this.currentState);
      if (this.closed) this.stateSubject.complete();
    }
    return this.stateSubject.asObservable();
  }

  get notifications$(): Observable<JsonRpcNotification> {
    if (!this.notificationSubject) {
      this.notificationSubject = new Subject<JsonRpcNotification>();
      if (this.closed) this.notificationSubject.complete();
    }
    return this.notificationSubject.asObservable();
  }

  get closed$(): Observable<TransportClose> {
    if (!this.closedSubject) {
      this.closedSubject = new ReplaySubject<TransportClose>(1);
      if (this.closeInfo) {
        this.closedSubject.next(this.closeInfo);
        this.closedSubject.complete();
      }
    }
    return this.closedSubject.asObservable();
  }

  /** The idle deadlines of our requests, on one timer; made when the first request is sent. */
  get deadlines(): Deadlines {
    return (this.deadlineTimer ??= new Deadlines(this.scheduler));
  }

  get pendingRequests(): number {
    return this.correlator.size;
  }

  get inFlightRequests(): number {
    return this.dispatcher.size;
  }

  request(
    method: string,
    params?: Record<string, unknown>,
    requestOptions: RequestOptions = {},
  ): Observable<Record<string, unknown>> {
    return sendRequest(this, method, params, requestOptions, true);
  }

  notify(method: string, params?: Record<string, unknown>, sendOptions?: SendOptions): void {
    if (this.closed) {
      this.log.debug({ method }, 'notification dropped: connection closed');
      return;
    }
    this.send(makeNotification(method, params), sendOptions);
  }

  setRequestHandler(method: string, handler: RequestHandler): void {
    (this.handlerChanges ??= new Map()).set(method, handler);
  }

  removeRequestHandler(method: string): void {
    (this.handlerChanges ??= new Map()).set(method, null);
  }

  useStateless(
    revision: string,
    server: {
      readonly capabilities?: Record<string, unknown>;
      readonly serverInfo?: Record<string, unknown>;
      readonly instructions?: string;
    } = {},
  ): void {
    if (this.role !== 'client') throw new Error('useStateless() is for client connections');
    if (this.closed) throw new ConnectionClosedError(this.closeReason, { method: 'useStateless' });
    if (!this.maySendInitialize) throw new Error('useStateless() must come before any handshake, once per connection');
    if (!isStatelessRevision(revision) || !this.supportedAll.includes(revision)) {
      throw new UnsupportedProtocolVersionError(revision, this.supportedAll.filter(isStatelessRevision));
    }
    this.revision = revision as Revision;
    this.peerCapabilities = server.capabilities;
    this.peerInfo = server.serverInfo;
    this.instructions = server.instructions;
    this.requestMeta = {
      [META.protocolVersion]: revision,
      [META.clientCapabilities]: this.capabilities(),
      [META.clientInfo]: this.options.info,
    };
    this.transport.setProtocolVersion?.(revision);
    this.sendLifecycle({ type: 'local.stateless', protocolVersion: revision, ...server });
    this.log.info({ revision, server: this.peerInfo }, 'stateless revision in use');
  }

  initialize(): Observable<Record<string, unknown>> {
    return new Observable<Record<string, unknown>>((subscriber) => {
      if (this.role !== 'client') {
        subscriber.error(new Error('initialize() is for client connections; a server answers initialize'));
        return undefined;
      }
      if (this.closed) {
        subscriber.error(new ConnectionClosedError(this.closeReason, { method: 'initialize' }));
        return undefined;
      }
      if (!this.maySendInitialize) {
        subscriber.error(new Error('initialize() may be called once per connection'));
        return undefined;
      }
      this.sendLifecycle({ type: 'local.initialize' });
      const params = {
        protocolVersion: this.options.protocolVersion ?? this.supported.at(-1) ?? LATEST_STATEFUL_REVISION,
        capabilities: this.capabilities(),
        clientInfo: this.options.info,
      };
      // Lifecycle → Initialization: the client MUST NOT cancel its initialize request.
      return sendRequest(this, 'initialize', params, {}, false).subscribe({
        next: (result) => {
          const version = String(result.protocolVersion);
          if (!isStatefulRevision(version) || !this.supported.includes(version)) {
            // Lifecycle → Version Negotiation: a client that cannot speak the answer disconnects.
            const error = new UnsupportedProtocolVersionError(version, this.supported);
            this.shutdown(error.message, error);
            subscriber.error(error);
            return;
          }
          this.revision = version;
          this.peerCapabilities = result.capabilities as Record<string, unknown>;
          this.peerInfo = result.serverInfo as Record<string, unknown>;
          this.instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
          this.transport.setProtocolVersion?.(version);
          this.notify('notifications/initialized');
          this.sendLifecycle({
            type: 'peer.initializeResult',
            protocolVersion: version,
            capabilities: this.peerCapabilities,
            serverInfo: this.peerInfo,
            instructions: this.instructions,
          });
          this.log.info({ revision: this.revision, server: this.peerInfo }, 'initialized');
          subscriber.next(result);
          subscriber.complete();
        },
        error: (error: unknown) => {
          const reason = `initialize failed: ${error instanceof Error ? error.message : String(error)}`;
          this.sendLifecycle({ type: 'peer.initializeFailed', reason });
          subscriber.error(error);
        },
      });
    });
  }

  close(reason = 'closed locally'): void {
    this.shutdown(reason);
  }

  getPersistedSnapshot(): unknown {
    return this.lifecycle.getPersistedSnapshot();
  }

  /** Takes what a restored lifecycle knows of the peer: the negotiated revision and its declarations. */
  private adoptRestored(): void {
    const context = this.lifecycle.snapshot.context as unknown as Record<string, unknown>;
    const revision = context.revision as Revision | undefined;
    this.revision = revision;
    if (this.role === 'server') {
      this.peerCapabilities = context.clientCapabilities as Record<string, unknown> | undefined;
      this.peerInfo = context.clientInfo as Record<string, unknown> | undefined;
    } else {
      this.peerCapabilities = context.serverCapabilities as Record<string, unknown> | undefined;
      this.peerInfo = context.serverInfo as Record<string, unknown> | undefined;
      this.instructions = context.instructions as string | undefined;
      if (revision !== undefined && this.lifecycle.snapshot.hasTag('stateless')) {
        this.requestMeta = {
          [META.protocolVersion]: revision,
          [META.clientCapabilities]: this.capabilities(),
          [META.clientInfo]: this.options.info,
        };
      }
    }
    if (revision !== undefined) this.transport.setProtocolVersion?.(revision);
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  private get closeReason(): string {
    return this.closeInfo?.reason ?? 'not closed';
  }

  private capabilities(): Record<string, unknown> {
    return this.options.capabilities?.() ?? {};
  }

  /** Feeds the lifecycle machine; the events of both machines are checked by the caller's role. */
  private sendLifecycle(event: { readonly type: string } & Record<string, unknown>): void {
    (this.lifecycle as LifecycleRunner<typeof serverLifecycle>).send(event as never);
  }

  private onLifecycle(snapshot: AnyMachineSnapshot): void {
    this.acceptsInitialize = snapshot.hasTag('accepts-initialize');
    this.acceptsRequests = snapshot.hasTag('accepts-requests');
    this.acceptsStateless = snapshot.hasTag('accepts-stateless-requests');
    this.maySendRequests = snapshot.hasTag('may-send-requests');
    this.maySendInitialize = snapshot.hasTag('may-send-initialize');
    if (this.log.isLevelEnabled('debug')) this.log.debug({ state: snapshot.value }, 'lifecycle transition');
    if (snapshot.hasTag('closed')) {
      this.shutdown(String((snapshot.context as { closeReason?: string }).closeReason ?? 'closed'));
      return;
    }
    const next: ConnectionState = this.maySendRequests ? 'operating' : 'initializing';
    if (this.currentState !== next) {
      this.currentState = next;
      this.stateSubject?.next(next);
    }
  }

  private shutdown(reason: string, error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.acceptsRequests = this.maySendRequests = this.acceptsInitialize = this.maySendInitialize = false;
    this.acceptsStateless = false;
    const close: TransportClose = error ? { reason, error } : { reason };
    this.closeInfo = close;
    this.log.info({ reason }, 'connection closed');
    this.sendLifecycle({ type: 'local.close', reason });
    this.lifecycle.stop();
    this.correlator.failAll(
      (method, requestId) => new ConnectionClosedError(reason, { method, id: requestId }, { cause: error }),
    );
    this.dispatcher.cancelAll(`connection closed: ${reason}`);
    this.deadlineTimer?.stop();
    this.incoming?.unsubscribe();
    this.transportClosed?.unsubscribe();
    this.transport.close(reason);
    this.notificationSubject?.complete();
    this.currentState = 'shutdown';
    this.stateSubject?.next('shutdown');
    this.stateSubject?.complete();
    this.options.onClose?.(close);
    this.closedSubject?.next(close);
    this.closedSubject?.complete();
  }

  // ---- inbound ---------------------------------------------------------------------------------

  private onFrame(frame: unknown): void {
    if (frame instanceof MalformedFrame) {
      this.log.warn({ reason: frame.reason }, 'frame is not JSON');
      this.send(errorResponse(null, JsonRpcError.parseError(frame.reason).toJSON()));
      return;
    }
    if (this.traceEnabled) this.log.trace({ message: frame }, 'message in');
    const classified = classify(frame);
    if (classified.kind === 'batch') this.onBatch(classified.messages);
    else if (this.failMalformedResponse(frame, classified)) return;
    else this.onMessage(classified, this.replyAlone);
  }

  /** Sends the answer to a message that did not come in a batch. */
  private readonly replyAlone: Reply = (response) => {
    if (response) this.send(response, response.id === null ? undefined : { relatedRequestId: response.id });
  };

  /** JSON-RPC batches exist only in 2025-03-26 (Basic → Messages); elsewhere an array is refused. */
  private onBatch(messages: readonly unknown[]): void {
    const revision = this.revision;
    if (revision === undefined || !featuresOf(revision).batching) {
      this.log.warn({ size: messages.length, revision }, 'batch refused');
      const why =
        revision === undefined
          ? 'JSON-RPC batches are not accepted before initialization (and initialize may not be batched)'
          : `JSON-RPC batches are not supported by protocol revision ${revision}`;
      this.send(errorResponse(null, JsonRpcError.invalidRequest(why).toJSON()));
      return;
    }
    if (messages.length === 0) {
      this.send(errorResponse(null, JsonRpcError.invalidRequest('empty batch').toJSON()));
      return;
    }
    const responses: JsonRpcResponse[] = [];
    let outstanding = 0;
    let scanned = false;
    const flush = () => {
      if (scanned && outstanding === 0 && responses.length > 0) this.send(responses);
    };
    for (const item of messages) {
      const classified: Classified = Array.isArray(item)
        ? { kind: 'invalid', reason: 'a batch may not contain a batch', id: null }
        : classify(item);
      if (this.failMalformedResponse(item, classified)) continue;
      const answers = classified.kind === 'request' || classified.kind === 'invalid';
      if (answers) outstanding++;
      this.onMessage(classified, (response) => {
        if (response) responses.push(response);
        outstanding--;
        flush();
      });
    }
    scanned = true;
    flush();
  }

  /**
   * A frame shaped like a response (no method; a result or an error) that is not a valid one, for
   * a request we await: that request fails with a ProtocolError naming the problem, and nothing
   * else is affected. Responses are never answered. True when handled here.
   */
  private failMalformedResponse(frame: unknown, classified: Classified): boolean {
    if (classified.kind !== 'invalid' || classified.id === null) return false;
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame) || 'method' in frame) return false;
    if (!('result' in frame) && !('error' in frame)) return false;
    const { reason } = classified;
    const peer = this.role === 'server' ? 'client' : 'server';
    const failed = this.correlator.fail(
      classified.id,
      (method) => new ProtocolError(`Malformed response to ${method} from the ${peer}: ${reason}`),
    );
    if (failed) this.log.warn({ id: classified.id, reason }, 'malformed response');
    return failed;
  }

  private onMessage(classified: Classified, reply: Reply): void {
    switch (classified.kind) {
      case 'request':
        this.onRequest(classified.message, reply);
        return;
      case 'notification':
        this.onNotification(classified.message);
        return;
      case 'result':
      case 'error':
        if (!this.correlator.settle(classified.message)) {
          this.log.warn(
            { id: classified.message.id },
            'response to no request in flight (late, cancelled or unknown id)',
          );
        }
        return;
      case 'invalid':
        this.log.warn({ reason: classified.reason }, 'invalid JSON-RPC envelope');
        reply(errorResponse(classified.id, JsonRpcError.invalidRequest(classified.reason).toJSON()));
        return;
      case 'batch':
        reply(errorResponse(null, JsonRpcError.invalidRequest('a batch may not contain a batch').toJSON()));
    }
  }

  private handlerFor(method: string): RequestHandler | undefined {
    const changed = this.handlerChanges?.get(method);
    if (changed !== undefined) return changed ?? undefined;
    const handlers = this.options.handlers ?? NO_HANDLERS;
    // Own properties only: a peer's method name must not find Object.prototype's members.
    return Object.hasOwn(handlers, method) ? handlers[method] : undefined;
  }

  private onRequest(request: JsonRpcRequest, reply: Reply): void {
    const { method } = request;
    if (this.closed) return;
    // A server that holds no session serves stateless requests (spec 2026-07-28: Versioning → a
    // dual-era server selects its behaviour from how the client opens).
    // An initialize that carries a stateless `_meta` is a stateless request for a removed method.
    if (this.role === 'server' && this.revision === undefined) {
      const statelessRevision = statelessRevisionOf(request.params);
      if (statelessRevision !== undefined)
        this.sendLifecycle({ type: 'peer.statelessRequest', protocolVersion: statelessRevision });
      if (this.acceptsStateless && (method !== 'initialize' || statelessRevision !== undefined)) {
        this.onStatelessRequest(request, reply);
        return;
      }
    }
    if (method === 'ping') {
      reply(resultResponse(request.id, {}));
      return;
    }
    if (method === 'initialize' && this.role === 'server') {
      this.onInitialize(request, reply);
      return;
    }
    if (!this.acceptsRequests) {
      this.log.warn({ id: request.id, method }, 'request before initialization');
      const message =
        this.role === 'server'
          ? `Invalid request: ${method} arrived before initialization; send initialize first`
          : `Invalid request: ${method} arrived before the client finished initializing`;
      reply(errorResponse(request.id, new JsonRpcError(ErrorCode.InvalidRequest, message).toJSON()));
      return;
    }
    const handler = this.handlerFor(method);
    const negotiated = this.revision ?? LATEST_STATEFUL_REVISION;
    const definition = methodDefinition(method, negotiated);
    if (!handler || (definition && definition.kind !== 'request')) {
      reply(errorResponse(request.id, JsonRpcError.methodNotFound(method).toJSON()));
      return;
    }
    if (definition?.capability && !hasCapability(this.capabilities(), definition.capability)) {
      const error = JsonRpcError.methodNotFound(method, `the ${definition.capability} capability is not declared`);
      reply(errorResponse(request.id, error.toJSON()));
      return;
    }
    let params = request.params ?? {};
    if (definition) {
      const parsed = checkParams(method, negotiated, params);
      if (parsed && !parsed.success) {
        reply(errorResponse(request.id, JsonRpcError.invalidParams(toValidationIssues(parsed.error)).toJSON()));
        return;
      }
      if (parsed) params = parsed.data as Record<string, unknown>;
    }
    this.dispatcher.dispatch(request, params, handler, negotiated, this.options.owner, (answer: Answer) => {
      if (answer === null) reply(null);
      else if ('error' in answer) reply(errorResponse(request.id, answer.error));
      else reply(resultResponse(request.id, answer.result));
    });
  }

  private get statelessPolicy(): StatelessPolicy {
    return (this.statelessPolicyCache ??= { supported: this.supportedAll, capabilities: () => this.capabilities() });
  }

  /** Serves one request of a stateless revision: admitted on its own `_meta`, answered with `resultType` and our identity. */
  private onStatelessRequest(request: JsonRpcRequest, reply: Reply): void {
    const outcome = admitStatelessRequest(request, this.statelessPolicy);
    if (isRefusal(outcome)) {
      this.log.warn({ id: request.id, method: request.method, code: outcome.error.code }, 'stateless request refused');
      reply(errorResponse(request.id, outcome.error.toJSON()));
      return;
    }
    const decoration = { serverInfo: this.options.info, cacheHints: this.options.cacheHints };
    const { method } = request;
    if (method === 'server/discover') {
      reply(
        resultResponse(
          request.id,
          decorateStatelessResult(
            method,
            discoverResult(this.supportedAll, this.capabilities(), this.options.instructions),
            decoration,
          ),
        ),
      );
      return;
    }
    const handler = this.handlerFor(method);
    if (!handler) {
      reply(errorResponse(request.id, JsonRpcError.methodNotFound(method).toJSON()));
      return;
    }
    this.dispatcher.dispatch(
      request,
      outcome.params,
      handler,
      outcome.peer.revision,
      this.options.owner,
      (answer: Answer) => {
        if (answer === null) reply(null);
        else if ('error' in answer) reply(errorResponse(request.id, answer.error));
        else reply(resultResponse(request.id, decorateStatelessResult(method, answer.result, decoration)));
      },
      outcome.peer,
    );
  }

  private onInitialize(request: JsonRpcRequest, reply: Reply): void {
    if (!this.acceptsInitialize) {
      reply(errorResponse(request.id, JsonRpcError.invalidRequest('the session is already initialized').toJSON()));
      return;
    }
    const parsed = checkParams('initialize', LATEST_STATEFUL_REVISION, request.params ?? {});
    if (parsed && !parsed.success) {
      reply(errorResponse(request.id, JsonRpcError.invalidParams(toValidationIssues(parsed.error)).toJSON()));
      return;
    }
    const params = (parsed?.data ?? request.params) as {
      protocolVersion: string;
      capabilities: Record<string, unknown>;
      clientInfo: Record<string, unknown>;
    };
    this.sendLifecycle({
      type: 'peer.initialize',
      protocolVersion: params.protocolVersion,
      capabilities: params.capabilities,
      clientInfo: params.clientInfo,
    });
    const revision = (this.lifecycle.snapshot.context as { revision: Revision }).revision;
    this.revision = revision;
    this.peerCapabilities = params.capabilities;
    this.peerInfo = params.clientInfo;
    this.transport.setProtocolVersion?.(revision);
    this.log.info({ revision, requested: params.protocolVersion, client: this.peerInfo }, 'initialized');
    const result: Record<string, unknown> = {
      protocolVersion: revision,
      capabilities: this.capabilities(),
      serverInfo: this.options.info,
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    reply(resultResponse(request.id, result));
  }

  private onNotification(message: JsonRpcNotification): void {
    const { method } = message;
    const negotiated = this.revision ?? LATEST_STATEFUL_REVISION;
    let params = message.params ?? {};
    if (methodDefinition(method, negotiated)) {
      const parsed = checkParams(method, negotiated, params);
      if (parsed && !parsed.success) {
        this.log.warn(
          { method, problem: describeIssues(toValidationIssues(parsed.error)) },
          'invalid notification dropped',
        );
        return;
      }
      if (parsed) params = parsed.data as Record<string, unknown>;
    }
    switch (method) {
      case 'notifications/initialized':
        if (this.role === 'server') this.sendLifecycle({ type: 'peer.initialized' });
        break;
      case 'notifications/cancelled':
        this.dispatcher.cancel(params.requestId as RequestId, params.reason as string | undefined);
        break;
      case 'notifications/progress':
        this.correlator.progress(params.progressToken as RequestId, params as unknown as ProgressParams);
        break;
    }
    const delivered = params === message.params ? message : { ...message, params };
    this.options.onNotification?.(delivered);
    this.notificationSubject?.next(delivered);
  }

  // ---- outbound: what the request pipeline and the dispatcher use ------------------------------

  send(message: JsonRpcMessage | readonly JsonRpcMessage[], sendOptions?: SendOptions): void {
    if (this.traceEnabled) this.log.trace({ message }, 'message out');
    this.transport.send(message, sendOptions);
  }

  nextRequestId(): RequestId {
    return this.requestIds++;
  }

  refusal(method: string): Error | undefined {
    if (this.closed) return new ConnectionClosedError(this.closeReason, { method });
    if (method === 'ping') return undefined;
    if (!this.maySendRequests) return new NotInitializedError(method);
    const enforce = this.options.enforcePeerCapabilities ?? this.role === 'server';
    if (enforce && this.revision) {
      const capability = methodDefinition(method, this.revision)?.capability;
      if (capability && !hasCapability(this.peerCapabilities, capability)) {
        return new CapabilityNotSupportedError(capability, method, this.role === 'server' ? 'client' : 'server');
      }
    }
    return undefined;
  }

  validate(method: string, result: Record<string, unknown>, taskAugmented: boolean): Record<string, unknown> {
    if (this.options.validateResults === false) return result;
    // A task-augmented request (2025-11-25) is answered with a CreateTaskResult instead.
    const parsed = checkResult(method, this.revision ?? LATEST_STATEFUL_REVISION, result, { taskAugmented });
    if (!parsed) return result;
    if (parsed.success) return parsed.data as Record<string, unknown>;
    const problem = describeIssues(toValidationIssues(parsed.error));
    throw new ProtocolError(
      `Invalid result for ${method} from the ${this.role === 'server' ? 'client' : 'server'}: ${problem}`,
    );
  }

  notifyFor(method: string, params: Record<string, unknown>, relatedRequestId: RequestId): void {
    this.notify(method, params, { relatedRequestId });
  }

  logFor(level: LogLevel, data: unknown, loggerName: string | undefined, relatedRequestId: RequestId): void {
    if (this.options.shouldSendLog && !this.options.shouldSendLog(level)) return;
    const params: Record<string, unknown> = { level, data };
    if (loggerName !== undefined) params.logger = loggerName;
    this.notify('notifications/message', params, { relatedRequestId });
  }

  requestFor(
    method: string,
    params: Record<string, unknown> | undefined,
    nested: NestedRequestOptions | undefined,
    relatedRequestId: RequestId,
  ): Observable<Record<string, unknown>> {
    return this.request(method, params, { timeoutMs: nested?.timeoutMs, signal: nested?.signal, relatedRequestId });
  }
}
