import { Observable } from '../rx/rxjs';
import type { SchedulerLike, Unsubscribable } from '../rx/rxjs';
import { ProtocolError } from '../jsonrpc/errors';
import type { RequestLocation, RequestTimeoutError } from '../jsonrpc/errors';
import { describeIssues, toValidationIssues } from '../validation/issues';
import { checkResult } from '../schema/methods';
import type { MessageParams } from '../schema/request-meta';
import type { Revision } from '../schema/revisions';
import { request as makeRequest } from '../jsonrpc/message';
import { withProperty } from '../base/objects';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/message';
import type { SendOptions } from '../transport/transport';
import { abortReasonText, whenAborted } from '../operators/abort-on-signal';
import { cancelledNotification, DEFAULT_CANCEL_REASON, timeoutCancelReason } from '../operators/cancel-on-unsubscribe';
import type { Deadlines } from '../operators/deadlines';
import type { ProgressEvent } from '../operators/progress';
import { RequestClock } from '../operators/request-clock';
import type { Correlator, PartialResultParams, PendingRequest } from './correlator';

/** How long a request may wait without a response or progress, unless the caller says otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Per-request options of `Connection.request`. */
export interface RequestOptions {
  /** Fail when this long passes without a response (or progress, see below). Default 60 s. */
  readonly timeoutMs?: number;
  /** Whether progress notifications restart the timeout. Default: true when `onProgress` is given. */
  readonly resetTimeoutOnProgress?: boolean;
  /** Fail when this long passes in all, progress or not. Default: no maximum. */
  readonly maxTotalTimeoutMs?: number;
  /** Asks the peer for progress (a progress token is added to `_meta`) and receives it here. */
  readonly onProgress?: (progress: ProgressEvent) => void;
  /**
   * Asks the peer for partial results (SEP-2998: a `partialResultToken` goes in `_meta`) and
   * receives each `notifications/tools/partial_result` for this request here, in `seq` order (one
   * that repeats or goes back is dropped). They restart the timeout as progress does.
   */
  readonly onPartialResult?: (partial: PartialResultParams) => void;
  /** Aborting it cancels the request (the peer gets `notifications/cancelled`). */
  readonly signal?: AbortSignal;
  /** Extra `_meta` fields to send with the request. */
  readonly meta?: Record<string, unknown>;
  /** The inbound request this one is sent on behalf of (routes it on Streamable HTTP). */
  readonly relatedRequestId?: RequestId;
  /** Extra HTTP headers for the POST that carries the request (Streamable HTTP clients). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Whether the result is checked against the method's result schema before it is emitted.
   * Default true. An intermediary whose own caller checks the result (a proxy passing it on) may
   * skip the check it would otherwise repeat; the result is then emitted as the peer sent it.
   */
  readonly checkResult?: boolean;
}

/**
 * Sends one request as `Connection.request` does (the end of an `OutboundHook`'s chain);
 * `onSent` learns the id it goes with.
 */
export type SendRequest = (
  method: string,
  params: Record<string, unknown> | undefined,
  options: RequestOptions,
  onSent?: (id: RequestId) => void,
) => Observable<Record<string, unknown>>;

/**
 * Wraps every request a connection sends with `request` (client middleware is built on it); not
 * `initialize`, which the handshake sends itself. Must call `send` to send.
 */
export type OutboundHook = (
  method: string,
  params: Record<string, unknown> | undefined,
  options: RequestOptions,
  send: SendRequest,
) => Observable<Record<string, unknown>>;

/** What the request pipeline needs from its connection. */
export interface RequesterDeps {
  /** A fresh id for the next request. */
  nextRequestId(): RequestId;
  readonly correlator: Correlator;
  readonly scheduler: SchedulerLike;
  /** The connection's idle deadlines (one timer for all its requests). */
  readonly deadlines: Deadlines;
  readonly requestTimeoutMs: number;
  /**
   * `_meta` fields every request carries: in a modern revision, the revision, the client's
   * capabilities and info (spec 2026-07-28: Basic → `_meta`). Undefined in a handshake revision.
   */
  readonly requestMeta: Record<string, unknown> | undefined;
  /** Why the request may not be sent now, if it may not (lifecycle, capabilities). */
  refusal(method: string): Error | undefined;
  /** Checks (and may replace) a result; throws a `ProtocolError` for an invalid one. */
  validate(method: string, result: Record<string, unknown>, taskAugmented: boolean): Record<string, unknown>;
  send(message: JsonRpcMessage, options: SendOptions | undefined): void;
  notify(method: string, params: Record<string, unknown>, options: SendOptions | undefined): void;
}

/** Where a request started on the hot path delivers: its result, then complete; or an error. */
export interface RequestSink {
  /** The request's result. */
  next(result: Record<string, unknown>): void;
  /** The request failed. */
  error(error: unknown): void;
  /** After the result. */
  complete(): void;
}

/**
 * A request as a cold Observable: subscribing checks `deps.refusal` (when `cancellable`), sends the
 * request with a fresh id, and emits its validated result; unsubscribing before the answer sends
 * `notifications/cancelled` (when `cancellable`: initialize may not be cancelled). One object per
 * request (`Call`) runs the `RequestClock` that `timeoutWithReset` runs, and cancels with the
 * reasons and message of `cancelOnUnsubscribe` and `abortOnSignal`: this runs for every request.
 */
export function sendRequest(
  deps: RequesterDeps,
  method: string,
  params: Record<string, unknown> | undefined,
  requestOptions: RequestOptions,
  cancellable: boolean,
  onSent?: (id: RequestId) => void,
): Observable<Record<string, unknown>> {
  return new Observable<Record<string, unknown>>((subscriber) =>
    startRequest(deps, method, params, requestOptions, cancellable, subscriber, onSent),
  );
}

/**
 * Sends one request as {@link sendRequest}'s subscription does, delivering to `sink` directly (no
 * Observable in between: for code that forwards requests on the hot path). Returns what cancels
 * the request (sending `notifications/cancelled` when `cancellable`), or undefined when the sink
 * was already told the request failed.
 */
export function startRequest(
  deps: RequesterDeps,
  method: string,
  params: MessageParams | undefined,
  requestOptions: RequestOptions,
  cancellable: boolean,
  sink: RequestSink,
  onSent?: (id: RequestId) => void,
): Unsubscribable | undefined {
  if (cancellable) {
    const refusal = deps.refusal(method);
    if (refusal) {
      sink.error(refusal);
      return undefined;
    }
  }
  const idleMs = requestOptions.timeoutMs ?? deps.requestTimeoutMs;
  const totalMs = requestOptions.maxTotalTimeoutMs ?? Infinity;
  if (!(idleMs >= 0) || !(totalMs >= 0)) {
    sink.error(new RangeError(`request timeouts must be non-negative numbers, got ${idleMs} and ${totalMs}`));
    return undefined;
  }
  const requestId = deps.nextRequestId();
  onSent?.(requestId);
  const { signal } = requestOptions;
  if (signal?.aborted) {
    sink.error(signal.reason);
    return undefined;
  }
  let outParams = params;
  const base = deps.requestMeta;
  if (requestOptions.onProgress || requestOptions.meta || base || requestOptions.onPartialResult) {
    const meta: Record<string, unknown> = {
      ...base,
      ...params?._meta,
      ...requestOptions.meta,
    };
    if (requestOptions.onProgress) meta.progressToken = requestId;
    if (requestOptions.onPartialResult) meta.partialResultToken = requestId;
    outParams = withProperty(params, '_meta', meta);
  }
  const call = new Call(deps, method, requestId, sink, requestOptions, cancellable, params?.task !== undefined, idleMs);
  deps.correlator.register(requestId, call);
  call.startClock(totalMs);
  try {
    deps.send(makeRequest(requestId, method, outParams), sendOptionsOf(requestOptions));
  } catch (error) {
    // Nothing went out (a message the transport cannot carry): fail the call, cancel nothing.
    call.reject(error);
    return undefined;
  }
  if (signal) call.watch(signal);
  return call;
}

/**
 * One request in flight: what the correlator delivers to, and its teardown, on the request clock
 * of `timeoutWithReset` (progress resets it). Settled once it has a result, an error or a
 * timeout; a teardown before that is a cancellation, with the reasons `cancelOnUnsubscribe` gives.
 */
class Call extends RequestClock implements PendingRequest, Unsubscribable {
  // Assigned in the constructor, as the base's are (see RequestClock): one call per request.
  declare private readonly deps: RequesterDeps;
  declare readonly method: string;
  declare private readonly requestId: RequestId;
  declare private readonly subscriber: RequestSink;
  declare private readonly options: RequestOptions;
  declare private readonly cancellable: boolean;
  declare private readonly taskAugmented: boolean;
  declare private settled: boolean;
  declare private lastSeq: number;
  declare private abortedBy: AbortSignal | undefined;
  /** Stops listening to the caller's abort signal. */
  declare private unwatch: (() => void) | undefined;

  constructor(
    deps: RequesterDeps,
    method: string,
    requestId: RequestId,
    subscriber: RequestSink,
    options: RequestOptions,
    cancellable: boolean,
    taskAugmented: boolean,
    idleMs: number,
  ) {
    super(idleMs, deps.scheduler, deps.deadlines);
    this.deps = deps;
    this.method = method;
    this.requestId = requestId;
    this.subscriber = subscriber;
    this.options = options;
    this.cancellable = cancellable;
    this.taskAugmented = taskAugmented;
    this.settled = false;
    this.lastSeq = -1;
    this.abortedBy = undefined;
    this.unwatch = undefined;
  }

  resolve(raw: Record<string, unknown>): void {
    if (this.settled) return;
    this.settle();
    if (this.options.checkResult === false) {
      this.subscriber.next(raw);
      this.subscriber.complete();
      return;
    }
    let result: Record<string, unknown>;
    try {
      // A task-augmented request (2025-11-25) is answered with a CreateTaskResult instead.
      result = this.deps.validate(this.method, raw, this.taskAugmented);
    } catch (error) {
      this.subscriber.error(error);
      return;
    }
    this.subscriber.next(result);
    this.subscriber.complete();
  }

  reject(error: unknown): void {
    if (this.settled) return;
    this.settle();
    this.subscriber.error(error);
  }

  progress(params: ProgressEvent): void {
    if (this.settled) return;
    this.options.onProgress?.(params);
    // Progress keeps the request alive when asked (the default when there is an onProgress).
    if (this.options.resetTimeoutOnProgress ?? this.options.onProgress !== undefined) this.resetIdle();
  }

  partial(params: PartialResultParams): void {
    if (this.settled || this.options.onPartialResult === undefined) return;
    // In seq order: a chunk replayed after a reconnect, or out of order, is dropped.
    if (params.seq <= this.lastSeq) return;
    this.lastSeq = params.seq;
    this.options.onPartialResult(params);
    this.resetIdle();
  }

  protected timeoutContext(): RequestLocation {
    return { method: this.method, id: this.requestId };
  }

  protected timedOut(error: RequestTimeoutError): void {
    if (this.settled) return;
    this.settle();
    // The peer hears of the cancellation before the caller hears of the timeout.
    if (this.cancellable) this.cancel(timeoutCancelReason(error) ?? error.message);
    this.subscriber.error(error);
  }

  /** Cancels the request when `signal` aborts: the caller hears of it first, then the peer. */
  watch(signal: AbortSignal): void {
    this.unwatch = whenAborted(signal, () => {
      this.abortedBy = signal;
      // Error first: the teardown that follows finds the call unsettled and cancels it.
      if (!this.settled) this.subscriber.error(signal.reason);
      this.unsubscribe();
    });
  }

  /** The teardown: the caller unsubscribed, or the subscriber ended (then the call is settled). */
  unsubscribe(): void {
    if (this.settled) return;
    this.settle();
    if (this.cancellable) this.cancel(this.abortedBy ? abortReasonText(this.abortedBy) : DEFAULT_CANCEL_REASON);
  }

  private settle(): void {
    this.settled = true;
    this.unwatch?.();
    this.stopClock();
    this.deps.correlator.forget(this.requestId, this);
  }

  private cancel(reason: string): void {
    const { method, params } = cancelledNotification(this.requestId, reason);
    this.deps.notify(method, params!, sendOptionsOf(this.options));
  }
}

function sendOptionsOf(requestOptions: RequestOptions): SendOptions | undefined {
  const { relatedRequestId, headers } = requestOptions;
  if (headers !== undefined) return relatedRequestId === undefined ? { headers } : { relatedRequestId, headers };
  return relatedRequestId === undefined ? undefined : { relatedRequestId };
}

/**
 * A result of `method` as checked against the revision's schema (a task-augmented request of
 * 2025-11-25 is answered with a CreateTaskResult instead); throws a `ProtocolError` naming what
 * is wrong with an invalid one. `role` is ours.
 */
export function checkedResult(
  method: string,
  revision: Revision,
  result: Record<string, unknown>,
  taskAugmented: boolean,
  role: 'client' | 'server',
): Record<string, unknown> {
  const parsed = checkResult(method, revision, result, { taskAugmented });
  if (!parsed) return result;
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const problem = describeIssues(toValidationIssues(parsed.error));
  throw new ProtocolError(
    `Invalid result for ${method} from the ${role === 'server' ? 'client' : 'server'}: ${problem}`,
  );
}
