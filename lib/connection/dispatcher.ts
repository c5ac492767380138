import { from, isObservable, Observable, of } from '../rx/rxjs';
import type { Unsubscribable } from '../rx/rxjs';
import type { Logger } from 'pino';
import {
  CapabilityNotSupportedError,
  ErrorCode,
  JsonRpcError,
  MessageEncodingError,
  RequestTimeoutError,
} from '../jsonrpc/errors';
import type { JsonRpcErrorObject, JsonRpcRequest, RequestId } from '../jsonrpc/message';
import { encodable } from './unencodable';
import { LOG_LEVELS, LogUpdate, PartialResult, ProgressUpdate, TaskStart } from './handler-events';
import type { HandlerEvent, LogLevel } from './handler-events';
import { IdTable } from '../jsonrpc/id-table';
import { missingClientCapability } from './modern';
import type { ModernPeer } from './modern';
import { DeferredOutput } from './request-handler';
import type {
  HandlerOutput,
  HandlerResult,
  NestedRequestOptions,
  OutputSink,
  RequestContext,
  RequestHandler,
} from './request-handler';
import type { ParamsOf, RequestMethod, ResultFor } from '../schema/method-map';
import type { MessageParams } from '../schema/request-meta';
import type { Revision } from '../schema/revisions';

export { DeferredOutput } from './request-handler';
export type {
  HandlerOutput,
  HandlerResult,
  NestedRequestOptions,
  OutputSink,
  OwnerArgument,
  RequestContext,
  RequestHandler,
} from './request-handler';

const PASSES_PARAMS_THROUGH: unique symbol = Symbol('rxmcp.passesParamsThrough');

/**
 * Marks `handler` as one that sends its params on, unchecked, to a peer that checks them itself (a
 * proxy's forwarding handlers): a session then skips its own check of those params, and a bad one
 * gets the peer's error instead. Returns the handler.
 */
export function passParamsThrough(handler: RequestHandler): RequestHandler {
  (handler as RequestHandler & { [PASSES_PARAMS_THROUGH]?: true })[PASSES_PARAMS_THROUGH] = true;
  return handler;
}

/** Whether `handler` was marked with {@link passParamsThrough}. */
export function passesParamsThrough(handler: RequestHandler): boolean {
  return (handler as RequestHandler & { [PASSES_PARAMS_THROUGH]?: true })[PASSES_PARAMS_THROUGH] === true;
}

/** Where the dispatcher's effects go; the connection supplies these. */
export interface DispatcherSink {
  notifyFor(method: string, params: Record<string, unknown>, relatedRequestId: RequestId): void;
  logFor(level: LogLevel, data: unknown, logger: string | undefined, relatedRequestId: RequestId): void;
  requestFor(
    method: string,
    params: Record<string, unknown> | undefined,
    options: NestedRequestOptions | undefined,
    relatedRequestId: RequestId,
  ): Observable<Record<string, unknown>>;
}

/** The answer to a request: a result, an error, or `null` when cancelled (no response is sent). */
export type Answer = { readonly result: HandlerResult } | { readonly error: JsonRpcErrorObject } | null;

/** A request in flight: what cancels its work, and whether it was cancelled. */
export interface InFlight {
  subscription?: Unsubscribable | undefined;
  abort?: AbortController;
  cancelled: boolean;
}

const levelRank = new Map<string, number>(LOG_LEVELS.map((level, index) => [level, index]));

/** A modern request gets log messages only when it asked for them, at its level or above (spec 2026-07-28: Logging). */
function peerWantsLog(peer: ModernPeer, level: LogLevel): boolean {
  return peer.logLevel !== undefined && levelRank.get(level)! >= levelRank.get(peer.logLevel)!;
}

/** Whether a handler's output is a promise (or any thenable). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * A handler's output of any form (a value, a promise, an Observable) as an Observable of what it
 * gives, for code that wraps handlers; the dispatcher itself reads each form directly.
 */
export function observeOutput<R>(output: HandlerOutput<R> | DeferredOutput<R>): Observable<R | HandlerEvent> {
  if (isObservable(output)) return output;
  if (output instanceof DeferredOutput) return new Observable((subscriber) => output.start(subscriber));
  // No result (`undefined`) passes as it is: the dispatcher reads it as an empty result.
  if (isThenable(output)) return from(output as PromiseLike<R>);
  return of(output as R);
}

function isResultObject(value: unknown): value is HandlerResult {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The context of one request in flight. A class, so that the per-request cost is one object with
 * a fixed shape and the methods live on the prototype (this runs for every request).
 */
class HandlerContext implements RequestContext {
  readonly requestId: RequestId;
  readonly method: string;
  readonly meta: Record<string, unknown> | undefined;
  readonly progressToken: string | number | undefined;

  constructor(
    request: JsonRpcRequest,
    params: MessageParams,
    readonly revision: Revision,
    private readonly entry: InFlight,
    private readonly sink: DispatcherSink,
    readonly peer: ModernPeer | undefined,
  ) {
    this.requestId = request.id;
    this.method = request.method;
    this.meta = params._meta;
    this.progressToken = params._meta?.progressToken;
  }

  get signal(): AbortSignal {
    // Created on first use: most handlers never look at it.
    this.entry.abort ??= new AbortController();
    return this.entry.abort.signal;
  }

  progress(progressValue: number, total?: number, message?: string): void {
    if (this.progressToken === undefined || this.entry.cancelled) return;
    const params: Record<string, unknown> = { progressToken: this.progressToken, progress: progressValue };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.sink.notifyFor('notifications/progress', params, this.requestId);
  }

  log(level: LogLevel, data: unknown, loggerName?: string): void {
    if (this.entry.cancelled || (this.peer !== undefined && !peerWantsLog(this.peer, level))) return;
    this.sink.logFor(level, data, loggerName, this.requestId);
  }

  notify(method: string, params?: Record<string, unknown>): void {
    if (!this.entry.cancelled) this.sink.notifyFor(method, params ?? {}, this.requestId);
  }

  request<M extends RequestMethod, P extends ParamsOf<M>>(
    method: M,
    params?: P,
    options?: NestedRequestOptions,
  ): Observable<ResultFor<M, P>>;
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: NestedRequestOptions,
  ): Observable<Record<string, unknown>>;
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: NestedRequestOptions,
  ): Observable<Record<string, unknown>> {
    return this.sink.requestFor(method, params, options, this.requestId);
  }
}

/**
 * Runs request handlers and keeps track of the ones in flight so they can be cancelled. One per
 * connection; the map of requests in flight is made when the first request arrives.
 */
export class Dispatcher {
  private inflight: IdTable<InFlight> | undefined;

  constructor(
    private readonly sink: DispatcherSink,
    private readonly logger: Logger,
  ) {}

  /** How many requests are in flight. */
  get size(): number {
    return this.inflight?.size ?? 0;
  }

  /**
   * Runs `handler` for `request` (params already validated) and calls `answer` once, unless the
   * request is cancelled first. A request id that is already in flight is answered -32600. `peer`
   * is given for a request of a modern revision.
   */
  dispatch(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    handler: RequestHandler,
    revision: Revision,
    owner: unknown,
    answer: (answer: Answer) => void,
    peer?: ModernPeer,
  ): void {
    const id = request.id;
    const entry: InFlight = { cancelled: false };
    if (!this.track(id, entry)) {
      answer({
        error: JsonRpcError.invalidRequest(
          `request id ${String(id)} is already in use by a request in flight`,
        ).toJSON(),
      });
      return;
    }
    const context = new HandlerContext(request, params, revision, entry, this.sink, peer);
    let output: unknown;
    try {
      output = handler(params, context, owner);
    } catch (error) {
      if (this.finish(id, entry)) answer({ error: this.toError(error, request, peer) });
      return;
    }
    const deferred = output instanceof DeferredOutput;
    if (deferred || isObservable(output)) {
      const observer = new OutputObserver(this, request, entry, context, answer, peer);
      const subscription = deferred
        ? (output as DeferredOutput<unknown>).start(observer)
        : (output as Observable<unknown>).subscribe(observer);
      if (!observer.done) entry.subscription = subscription;
      return;
    }
    if (isThenable(output)) {
      output.then(
        (value) => {
          if (this.finish(id, entry)) answer(this.toResult(value, request));
        },
        (error: unknown) => {
          if (this.finish(id, entry)) answer({ error: this.toError(error, request, peer) });
        },
      );
      return;
    }
    if (this.finish(id, entry)) answer(this.toResult(output, request));
  }

  /** The context of `request`, counted in flight as `entry` (a relayed request's, made when asked for). */
  contextFor(request: JsonRpcRequest, params: MessageParams, revision: Revision, entry: InFlight): RequestContext {
    return new HandlerContext(request, params, revision, entry, this.sink, undefined);
  }

  /**
   * A reader of a handler's output for `request`, counted in flight as `entry`, as `dispatch` reads
   * it: events to `context`, the last value the result, the end answered through `answer`.
   */
  observer(
    request: JsonRpcRequest,
    entry: InFlight,
    context: RequestContext,
    answer: (answer: Answer) => void,
  ): OutputSink<unknown> {
    return new OutputObserver(this, request, entry, context, answer, undefined);
  }

  /**
   * Counts a request as in flight under `id` (one run by `dispatch`, or one served without a
   * handler: a relay, see relay.ts); false, and nothing counted, when that id is in use already.
   */
  track(id: RequestId, entry: InFlight): boolean {
    return (this.inflight ??= new IdTable()).add(id, entry);
  }

  /** Cancels a request in flight: its work is unsubscribed or aborted and no answer is given. */
  cancel(id: RequestId, reason?: string): boolean {
    const entry = this.inflight?.take(id);
    if (!entry) return false;
    entry.cancelled = true;
    entry.subscription?.unsubscribe();
    entry.abort?.abort(reason ?? 'cancelled');
    this.logger.debug({ id, reason }, 'request cancelled by the peer');
    return true;
  }

  /** Cancels everything in flight (the connection is closing). */
  cancelAll(reason: string): void {
    const inflight = this.inflight;
    if (!inflight) return;
    for (const [, entry] of inflight.drain()) {
      entry.cancelled = true;
      entry.subscription?.unsubscribe();
      entry.abort?.abort(reason);
    }
  }

  /** A handler's event that JSON cannot write was left out (its call goes on). */
  eventLeftOut(error: MessageEncodingError, request: JsonRpcRequest): void {
    this.logger.warn({ err: error, id: request.id, method: request.method }, 'handler event left out');
  }

  /** @internal */
  toError(error: unknown, request: JsonRpcRequest, peer: ModernPeer | undefined): JsonRpcErrorObject {
    if (error instanceof JsonRpcError) return error.toJSON();
    // A modern request needed what its client did not declare (spec 2026-07-28: Basic → `_meta`).
    if (peer !== undefined && error instanceof CapabilityNotSupportedError && error.peer === 'client') {
      return missingClientCapability([error.capability], `${error.method} needs it`).toJSON();
    }
    // A request of the handler's own went unanswered (a proxy's upstream call): the peer learns it timed out.
    if (error instanceof RequestTimeoutError) {
      this.logger.warn({ err: error, id: request.id, method: request.method }, 'request handler timed out waiting');
      return new JsonRpcError(ErrorCode.RequestTimeout, error.message).toJSON();
    }
    // A request of the handler's own that JSON cannot write, from params the caller's own message
    // holds that JSON cannot write again (nested deeper than it follows; a proxy passing them on).
    if (error instanceof MessageEncodingError && !encodable(request.params)) {
      this.logger.warn({ err: error, id: request.id, method: request.method }, 'params could not be passed on');
      return new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: nested too deeply to be passed on').toJSON();
    }
    // Details stay in our log; the peer learns only that something went wrong (STYLE: Errors).
    this.logger.error({ err: error, id: request.id, method: request.method }, 'request handler failed');
    return JsonRpcError.internalError().toJSON();
  }

  /** @internal */
  toResult(value: unknown, request: JsonRpcRequest): Answer {
    if (value === undefined) return { result: {} };
    if (isResultObject(value)) return { result: value };
    this.logger.error(
      { id: request.id, method: request.method, type: typeof value },
      'request handler returned a non-object result',
    );
    return { error: JsonRpcError.internalError('Internal error: handler returned an invalid result').toJSON() };
  }

  /** @internal */
  finish(id: RequestId, entry: InFlight): boolean {
    return !entry.cancelled && this.inflight !== undefined && this.inflight.deleteIf(id, entry);
  }
}

/**
 * Reads an Observable's or a `DeferredOutput`'s output for the dispatcher: events go to the
 * context, the last other value is the result, and the end (complete or error) answers the
 * request. One object per request rather than an observer literal and its three closures.
 */
class OutputObserver implements OutputSink<unknown> {
  private last: unknown;
  /** How many partial results went out as progress. */
  private partials: number | undefined;
  /** Whether the output ended (on the subscribing call stack, for a synchronous one). */
  done = false;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly request: JsonRpcRequest,
    private readonly entry: InFlight,
    private readonly context: RequestContext,
    private readonly answer: (answer: Answer) => void,
    private readonly peer: ModernPeer | undefined,
  ) {}

  next(value: unknown): void {
    try {
      if (value instanceof ProgressUpdate) this.context.progress(value.progress, value.total, value.message);
      else if (value instanceof LogUpdate) this.context.log(value.level, value.data, value.logger);
      else if (value instanceof PartialResult) {
        // Not taken as a partial result (no client asked, or the server serves none): progress.
        this.context.progress((this.partials = (this.partials ?? 0) + 1), undefined, value.text());
      } else if (!(value instanceof TaskStart)) this.last = value;
    } catch (error) {
      // An event JSON cannot write (see unencodable.ts) is left out, and said in the log: the call goes on.
      if (!(error instanceof MessageEncodingError)) throw error;
      this.dispatcher.eventLeftOut(error, this.request);
    }
  }

  error(error: unknown): void {
    this.done = true;
    if (this.dispatcher.finish(this.request.id, this.entry))
      this.answer({ error: this.dispatcher.toError(error, this.request, this.peer) });
  }

  complete(): void {
    this.done = true;
    if (this.dispatcher.finish(this.request.id, this.entry))
      this.answer(this.dispatcher.toResult(this.last, this.request));
  }
}
