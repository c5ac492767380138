/**
 * What a request handler is, sees and returns: the types a handler is written against, typed per
 * method by the method map. The dispatcher (dispatcher.ts) runs them.
 */
import type { Observable, Unsubscribable } from '../rx/rxjs';
import type { RequestId } from '../jsonrpc/message';
import type { ParamsOf, RequestMethod, ResultFor, ResultOf } from '../schema/method-map';
import type { Revision } from '../schema/revisions';
import type { HandlerEvent, LogLevel } from './handler-events';
import type { ModernPeer } from './modern';
/** A request's result as a handler produces it. */
export type HandlerResult = Record<string, unknown>;

/**
 * What a request handler may return: a value, a Promise of one, or an Observable that may emit
 * progress and log events (see `progress()` and `log()`) before its result. The last value that is
 * not an event is the result; `undefined` stands for `{}`. Unsubscribing the Observable is how the
 * request is cancelled.
 */
export type HandlerOutput<R> = R | void | PromiseLike<R | void> | Observable<R | HandlerEvent>;

/** Where a {@link DeferredOutput} delivers what it produces. */
export interface OutputSink<R> {
  /** An event, or a value (the last one is the result). */
  next(value: R | HandlerEvent): void;
  /** The work failed. */
  error(error: unknown): void;
  /** The work ended. */
  complete(): void;
}

/**
 * A handler's output that delivers to a sink instead of through an Observable, with the same
 * meaning (events, then the result, then complete; or an error): code that forwards requests on
 * the hot path returns one to spare the per-request Observable. `start` is called once; what it
 * returns cancels the work (undefined when it has already finished).
 */
export abstract class DeferredOutput<R = HandlerResult> {
  /** Starts the work, delivering to `sink`; returns what cancels it (nothing when it already ended). */
  abstract start(sink: OutputSink<R>): Unsubscribable | undefined;
}

/** Options for a request sent to the peer while handling another. */
export interface NestedRequestOptions {
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * Modern revisions (2026-07-28 on): the key of this input request in the input-required
   * result and in the client's `inputResponses`. Default: the request's kind and its order in the
   * handler (`elicitation-0`, `sampling-1`, ...). Ignored in a session, where it is a request.
   */
  readonly inputKey?: string | undefined;
}

/** What a request handler can see and do besides reading its params. */
export interface RequestContext {
  /** The id of the request being handled. */
  readonly requestId: RequestId;
  readonly method: string;
  /** The negotiated protocol revision (a modern request's own). */
  readonly revision: Revision;
  /** The progress token the caller sent in `_meta`, kept with its type. */
  readonly progressToken?: string | number | undefined;
  /** The request's `_meta`, as sent. */
  readonly meta?: Record<string, unknown> | undefined;
  /**
   * Modern revisions (2026-07-28 on) only: what this request's `_meta` says of its client (its
   * revision, capabilities, info and log level). Undefined in a session of a handshake revision,
   * where the session holds these.
   */
  readonly peer?: ModernPeer | undefined;
  /** Aborted when the request is cancelled or the connection closes. */
  readonly signal: AbortSignal;
  /** Sends `notifications/progress` for this request; does nothing when the caller sent no token. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log message to the peer, routed with this request. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Sends a notification to the peer, routed with this request. */
  notify(method: string, params?: Record<string, unknown>): void;
  /**
   * Sends a request to the peer while handling this one (e.g. sampling from a tool). Cold. A method
   * of the registry takes its params and emits its result as the method map types them.
   */
  request<M extends RequestMethod, P extends ParamsOf<M>>(
    method: M,
    params?: P,
    options?: NestedRequestOptions,
  ): Observable<ResultFor<M, P>>;
  /** Sends a request of any method to the peer, with plain records for its params and result. */
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: NestedRequestOptions,
  ): Observable<Record<string, unknown>>;
}

/**
 * The owner argument of a request handler: optional in the untyped form, given when the handler
 * names its owner's type (the connection passes what it was created with as its `owner`).
 */
export type OwnerArgument<O> = unknown extends O ? [owner?: unknown] : [owner: O];

/**
 * A function that answers one request method. `owner` is what the connection was created with as
 * its `owner` (a server passes its session), so one handler can serve every connection.
 *
 * `RequestHandler<'tools/call'>` takes the method's params, validated, and answers its result, as
 * the method map types them; `RequestHandler` (any method) takes and answers plain records, for
 * custom methods. `O` names the owner's type, for handlers shared by the connections of one kind;
 * `R` what the handler answers, when more than the method's result (an interim answer, say).
 * The typed and untyped forms are assignable to each other's slots (a typed handler in a record of
 * handlers by method), as method parameters are.
 * @example
 * const callTool: RequestHandler<'tools/call'> = (params) => ({
 *   content: [{ type: 'text', text: `called ${params.name}` }],
 * });
 */
export type RequestHandler<M extends string = string, O = unknown, R = ResultOf<M>> = {
  // A method's parameters are compared both ways, so a typed handler fits a record of untyped ones.
  /** Answers one request: its params, what the handler can see and do, and the connection's owner. */
  handle(
    params: ParamsOf<M>,
    context: RequestContext,
    ...owner: OwnerArgument<O>
  ): HandlerOutput<R> | DeferredOutput<R>;
}['handle'];
