import { asyncScheduler, BehaviorSubject, ReplaySubject, Subject } from '../rx/rxjs';
import type { Observable, SchedulerLike, Unsubscribable } from '../rx/rxjs';
import type { Logger } from 'pino';
import type { AnyMachineSnapshot } from 'xstate';
import { CapabilityNotSupportedError, ConnectionClosedError, NotInitializedError } from '../jsonrpc/errors';
import { notification as makeNotification, type JsonRpcMessage, type JsonRpcNotification } from '../jsonrpc/message';
import type { JsonRpcResponse, RequestId } from '../jsonrpc/message';
import { childLogger } from '../base/logger';
import { methodDefinition } from '../schema/methods';
import { isLegacyRevision, LATEST_LEGACY_REVISION, LEGACY_REVISIONS, type Revision } from '../schema/revisions';
import type { ParamsOf as Params, RequestMethod as Method, ResultFor as Result } from '../schema/method-map';
import type { SendOptions, Transport, TransportClose } from '../transport/transport';
import { hasCapability } from './capabilities';
import type { DiscoveredServer } from './client-handshake';
import { clientPart, serverInitializeRefusal } from './client-part';
import type { Connection, ConnectionOptions, ConnectionState, Role } from './connection-api';
import type { ConnectionCore, Lifecycle } from './connection-core';
import { Correlator } from './correlator';
import { sendResponse } from './unencodable';
import { Deadlines } from '../operators/deadlines';
import { Dispatcher, type DispatcherSink, type NestedRequestOptions, type RequestHandler } from './dispatcher';
import type { LogLevel } from './handler-events';
import { readClose, readFrames, stopReading, TransportReader, type Reading } from './transport-reader';
import { adoptLifecycleContext, createLifecycle } from './connection-lifecycle';
import { Flag, flagsOf } from './lifecycle-flags';
import type { LifecycleRunner } from './lifecycle-runner';
import { checkedResult, DEFAULT_REQUEST_TIMEOUT_MS, sendRequest, startRequest } from './request-pipeline';
import type { RequesterDeps, RequestOptions as Sending, RequestSink } from './request-pipeline';
import type { serverLifecycle } from './server-lifecycle.machine';
import { MODERN_REVISIONS, type ModernPolicy } from './modern';
import { PARTIAL_RESULT_METHOD } from './partial-results';

export { DEFAULT_INITIALIZE_TIMEOUT_MS } from './connection-api';
export type { Connection, ConnectionOptions, ConnectionState, Role } from './connection-api';

let connectionCount = 0;
type Plain = Record<string, unknown>;
const NO_HANDLERS: Readonly<Record<string, RequestHandler>> = Object.freeze({});

/** Every revision a connection speaks unless told otherwise, oldest first. */
const ALL_REVISIONS: readonly string[] = Object.freeze([...LEGACY_REVISIONS, ...MODERN_REVISIONS]);

/**
 * Makes the connection actor for a transport, as `createConnection` does (see create-connection.ts):
 * a server's sessions make theirs here, without the client's part of a connection.
 */
export function openConnection(options: ConnectionOptions): Connection {
  return new McpConnection(options);
}

/**
 * The connection. A class, so that a connection costs one object with its fields and its methods
 * live on the prototype: a server holds one per session, and an idle session should cost little
 * (see benchmarks/results/ANALYSIS.md). Subjects and maps are made on first use.
 */
class McpConnection implements Connection, ConnectionCore, DispatcherSink, RequesterDeps {
  readonly id: string;
  revision: Revision | undefined;
  peerCapabilities: Record<string, unknown> | undefined;
  peerInfo: Record<string, unknown> | undefined;
  instructions: string | undefined;
  requestMeta: Record<string, unknown> | undefined;
  readonly options: ConnectionOptions;
  readonly log: Logger;
  readonly traceEnabled: boolean;
  readonly lifecycle: Lifecycle;
  /** What the lifecycle's tags allow, `closed` among them, as bits (written by `onLifecycle` only). */
  private flags = 0;
  /** Whether the shutdown's work (failing calls, closing the transport) has been done. */
  private finished = false;
  private requestIds = 0;
  private correlatorPart: Correlator | undefined;
  private dispatcherPart: Dispatcher | undefined;
  private modernPolicyCache: ModernPolicy | undefined;
  /** Handlers set or removed after creation (null: removed), over `options.handlers`. */
  private handlerChanges: Map<string, RequestHandler | null> | undefined;
  private closeInfo: TransportClose | undefined;
  private stateSubject: BehaviorSubject<ConnectionState> | undefined;
  private notificationSubject: Subject<JsonRpcNotification> | undefined;
  private closedSubject: ReplaySubject<TransportClose> | undefined;
  private incoming: Reading | undefined;
  private transportClosed: Reading | undefined;
  private deadlineTimer: Deadlines | undefined;

  constructor(options: ConnectionOptions) {
    this.options = options;
    this.id = `${options.role[0]}${++connectionCount}`;
    this.log = childLogger(options.logger, { component: 'connection', connectionId: this.id, role: options.role });
    this.traceEnabled = this.log.isLevelEnabled('trace');
    this.lifecycle = createLifecycle(this, options);
    this.onLifecycle(this.lifecycle.snapshot);
    const reader = new TransportReader(this);
    this.transportClosed = readClose(options.transport, reader);
    if (!this.closed) this.incoming = readFrames(options.transport, reader);
    this.log.info('connection opened');
  }

  // Read from the options on use, rather than kept: a connection should cost little (benchmarks).
  get role(): Role {
    return this.options.role;
  }

  get transport(): Transport {
    return this.options.transport;
  }

  get scheduler(): SchedulerLike {
    return this.options.scheduler ?? asyncScheduler;
  }

  get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** Every revision we speak, for modern requests and the errors that list them. */
  get supportedAll(): readonly string[] {
    return this.options.supportedRevisions ?? ALL_REVISIONS;
  }

  /** The handshake revisions we negotiate among. */
  get supported(): readonly Revision[] {
    const given = this.options.supportedRevisions;
    return given ? (given.filter(isLegacyRevision) as Revision[]) : LEGACY_REVISIONS;
  }

  /** The requests we sent that await a response; made with the first one. */
  get correlator(): Correlator {
    return (this.correlatorPart ??= new Correlator());
  }

  /** The requests from the peer being handled; made with the first one. */
  get dispatcher(): Dispatcher {
    return (this.dispatcherPart ??= new Dispatcher(this, this.log));
  }

  get closed(): boolean {
    return (this.flags & Flag.closed) !== 0;
  }

  get acceptsPing(): boolean {
    return (this.flags & Flag.acceptsPing) !== 0;
  }

  get acceptsInitialize(): boolean {
    return (this.flags & Flag.acceptsInitialize) !== 0;
  }

  get acceptsRequests(): boolean {
    return (this.flags & Flag.acceptsRequests) !== 0;
  }

  get acceptsModern(): boolean {
    return (this.flags & Flag.acceptsModern) !== 0;
  }

  get maySendRequests(): boolean {
    return (this.flags & Flag.maySendRequests) !== 0;
  }

  get maySendInitialize(): boolean {
    return (this.flags & Flag.maySendInitialize) !== 0;
  }

  get state(): ConnectionState {
    return this.closed ? 'shutdown' : this.maySendRequests ? 'operating' : 'initializing';
  }

  get state$(): Observable<ConnectionState> {
    if (!this.stateSubject) {
      this.stateSubject = new BehaviorSubject<ConnectionState>(this.state);
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
    return this.correlatorPart?.size ?? 0;
  }

  get inFlightRequests(): number {
    return this.dispatcherPart?.size ?? 0;
  }

  request<M extends Method, P extends Params<M>>(method: M, params?: P, options?: Sending): Observable<Result<M, P>>;
  request(method: string, params?: Plain, options?: Sending): Observable<Plain>;
  request(method: string, params?: Plain, requestOptions: Sending = {}): Observable<Plain> {
    const outbound = this.options.outbound;
    if (outbound)
      return outbound(method, params, requestOptions, (m, p, o, id) => sendRequest(this, m, p, o, true, id));
    return sendRequest(this, method, params, requestOptions, true);
  }

  startRequest(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: Sending,
    sink: RequestSink,
  ): Unsubscribable | undefined {
    if (this.options.outbound) return this.request(method, params, requestOptions).subscribe(sink);
    return startRequest(this, method, params, requestOptions, true, sink);
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

  useModern(revision: string, server: DiscoveredServer = {}): void {
    if (this.role !== 'client') throw new Error('useModern() is for client connections');
    clientPart().enterModern(this, revision, server);
  }

  initialize(): Observable<Record<string, unknown>> {
    return this.role === 'client' ? clientPart().handshake(this) : serverInitializeRefusal();
  }

  close(reason = 'closed locally'): void {
    this.shutdown(reason);
  }

  getPersistedSnapshot(): unknown {
    return this.lifecycle.getPersistedSnapshot();
  }

  get closeReason(): string {
    return this.closeInfo?.reason ?? 'not closed';
  }

  capabilities(): Record<string, unknown> {
    return this.options.capabilities?.() ?? {};
  }

  /** Feeds the lifecycle machine; the events of both machines are checked by the caller's role. */
  sendLifecycle(event: { readonly type: string } & Record<string, unknown>): void {
    (this.lifecycle as LifecycleRunner<typeof serverLifecycle>).send(event as never);
  }

  /** Takes the lifecycle's tags and what it knows of the peer after a transition (the runner calls it). */
  onLifecycle(snapshot: AnyMachineSnapshot): void {
    const before = this.state;
    this.flags = flagsOf(snapshot);
    if (this.log.isLevelEnabled('debug')) this.log.debug({ state: snapshot.value }, 'lifecycle transition');
    adoptLifecycleContext(this, snapshot);
    if (this.closed) {
      const reason = (snapshot.context as { closeReason?: string }).closeReason;
      this.finish(this.closeInfo ?? { reason: reason ?? 'closed' });
      return;
    }
    const next = this.state;
    if (next !== before) this.stateSubject?.next(next);
  }

  /** Ends the connection: the lifecycle is told, and its step into `shutdown` finishes the work. */
  shutdown(reason: string, error?: Error): void {
    if (this.closed) return;
    this.closeInfo = error ? { reason, error } : { reason };
    this.sendLifecycle({ type: 'local.close', reason });
    if (!this.closed) this.closeWithoutMachine(this.closeInfo);
  }

  /** A machine that failed (an action threw: status error) takes no more steps: close without it. */
  private closeWithoutMachine(close: TransportClose): void {
    this.flags = Flag.closed;
    this.finish(close);
  }

  private finish(close: TransportClose): void {
    if (this.finished) return;
    this.finished = true;
    this.closeInfo = close;
    const { reason, error } = close;
    this.log.info({ reason }, 'connection closed');
    this.lifecycle.stop();
    this.correlatorPart?.failAll(
      (method, requestId) => new ConnectionClosedError(reason, { method, id: requestId }, { cause: error }),
    );
    this.dispatcherPart?.cancelAll(`connection closed: ${reason}`);
    this.deadlineTimer?.stop();
    stopReading(this.incoming);
    stopReading(this.transportClosed);
    this.transport.close(reason);
    this.notificationSubject?.complete();
    this.stateSubject?.next('shutdown');
    this.stateSubject?.complete();
    this.options.onClose?.(close);
    this.closedSubject?.next(close);
    this.closedSubject?.complete();
  }

  /** Sends the answer to a message that did not come in a batch. */
  answer(response: JsonRpcResponse | null): void {
    if (response) sendResponse(this, response);
  }

  handlerFor(method: string): RequestHandler | undefined {
    const changed = this.handlerChanges?.get(method);
    if (changed !== undefined) return changed ?? undefined;
    const handlers = this.options.handlers ?? NO_HANDLERS;
    // Own properties only: a peer's method name must not find Object.prototype's members.
    return Object.hasOwn(handlers, method) ? handlers[method] : undefined;
  }

  get modernPolicy(): ModernPolicy {
    return (this.modernPolicyCache ??= {
      supported: this.supportedAll,
      capabilities: () => this.capabilities(),
      serves: (method) => this.handlerFor(method) !== undefined,
    });
  }

  deliverNotification(message: JsonRpcNotification): void {
    this.options.onNotification?.(message);
    this.notificationSubject?.next(message);
  }

  send(message: JsonRpcMessage | readonly JsonRpcMessage[], sendOptions?: SendOptions): void {
    if (this.traceEnabled) this.log.trace({ message }, 'message out');
    this.transport.send(message, sendOptions);
  }

  nextRequestId(): RequestId {
    return this.requestIds++;
  }

  refusal(method: string): Error | undefined {
    if (this.closed) return new ConnectionClosedError(this.closeReason, { method });
    if (method === 'ping') return (this.flags & Flag.maySendPing) === 0 ? new NotInitializedError(method) : undefined;
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
    return checkedResult(method, this.revision ?? LATEST_LEGACY_REVISION, result, taskAugmented, this.role);
  }

  notifyFor(method: string, params: Record<string, unknown>, relatedRequestId: RequestId): void {
    // A partial result may be missed (the whole answer comes last): a slow reader's transport skips it.
    this.notify(method, params, { relatedRequestId, droppable: method === PARTIAL_RESULT_METHOD });
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
