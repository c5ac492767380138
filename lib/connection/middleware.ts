import { defer } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { RequestId } from '../jsonrpc/message';
import { isHandlerEvent } from './handler-events';
import type { LogUpdate, PartialResult, ProgressUpdate, TaskStart } from './handler-events';

/** A request as middleware sees it: its method and its params (with `_meta`, as sent). */
export interface MiddlewareRequest {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** Client middleware only: the request went out with this id (first event of each attempt). */
export class RequestSent {
  constructor(readonly id: RequestId) {}
}

/**
 * What flows back through middleware, as it happens: on a client, `RequestSent` when the request
 * goes out; progress (`ProgressUpdate`) and, on a server, log events (`LogUpdate`) while the
 * request runs; then its result (a plain object). An error ends the stream: a `JsonRpcError`
 * reaches the peer as it is, anything else as -32603.
 */
export type MiddlewareEvent =
  Record<string, unknown> | ProgressUpdate | LogUpdate | TaskStart | PartialResult | RequestSent;

/**
 * The rest of the chain after one middleware. Cold: each subscription runs it once (so
 * resubscribing retries). Called with no argument it passes the request on as it came; called
 * with a request, that one goes on instead (its `method` is kept: a middleware rewrites params,
 * not where a request goes).
 */
export type Next<R extends MiddlewareRequest = MiddlewareRequest> = (request?: R) => Observable<MiddlewareEvent>;

/**
 * One middleware: sees a request and its context, and returns the stream of its events, usually
 * `next()` piped through operators. Unsubscribing from `next()`'s stream cancels the request
 * below (the handler on a server, the wire request on a client); not calling `next` answers the
 * request without going further (a cache hit, a refusal).
 */
export type Middleware<R extends MiddlewareRequest, C> = (
  request: R,
  context: C,
  next: Next<R>,
) => Observable<MiddlewareEvent>;

/**
 * A middleware that works on either side (server and client), since it reads only the method,
 * the params and the events: logging, metrics and timing are of this kind.
 */
export type AnyMiddleware = <R extends MiddlewareRequest, C>(
  request: R,
  context: C,
  next: Next<R>,
) => Observable<MiddlewareEvent>;

/** True for a request's result, false for the events before it. */
export function isResultEvent(event: MiddlewareEvent): event is Record<string, unknown> {
  return !isHandlerEvent(event) && !(event instanceof RequestSent);
}

/**
 * A middleware's decision on one request made at once, without waiting (see {@link admissionOf}):
 * `undefined` lets the request pass untouched; an `Error` refuses it (the stream errors with it);
 * an {@link AdmissionHold} lets it pass and is released once when the request ends (answered,
 * failed or cancelled); {@link RUN_MIDDLEWARE} asks for the middleware itself to run around it.
 */
export type Admission = undefined | Error | AdmissionHold | typeof RUN_MIDDLEWARE;

/** What an admitted request holds until it ends (a slot of a concurrency limit). */
export interface AdmissionHold {
  /** Called once, when the request it was given for ends. */
  release(): void;
}

/** The admission that asks for the middleware to run as a middleware for this request. */
export const RUN_MIDDLEWARE: unique symbol = Symbol('rxmcp.middleware.run');

/** Where a middleware keeps its synchronous decision. */
const ADMIT: unique symbol = Symbol('rxmcp.middleware.admit');

/**
 * `middleware` with `admit`, its decision made at once: a chain of such middleware runs on the
 * request's path with no stream of its own per step (see `withMiddleware`). `admit` must mean what
 * the middleware does: the middleware's own function runs only when `admit` answers
 * {@link RUN_MIDDLEWARE} (or when the chain runs as streams, e.g. under `runMiddleware`).
 */
export function withAdmission<R extends MiddlewareRequest, C>(
  middleware: Middleware<R, C>,
  admit: (request: R, context: C) => Admission,
): Middleware<R, C> {
  return Object.assign(middleware, { [ADMIT]: admit });
}

/** The synchronous decision `middleware` carries, if it carries one. */
export function admissionOf<R extends MiddlewareRequest, C>(
  middleware: Middleware<R, C>,
): ((request: R, context: C) => Admission) | undefined {
  return (middleware as { [ADMIT]?: (request: R, context: C) => Admission })[ADMIT];
}

/**
 * Runs `request` through `chain` in order (the first middleware is the outermost) and then
 * through `terminal`. Cold: nothing runs before subscription; a middleware that throws makes the
 * stream error. The method of a request passed to `next` is that of the original.
 */
export function runMiddleware<R extends MiddlewareRequest, C>(
  chain: readonly Middleware<R, C>[],
  request: R,
  context: C,
  terminal: (request: R) => Observable<MiddlewareEvent>,
): Observable<MiddlewareEvent> {
  const step = (index: number, current: R): Observable<MiddlewareEvent> => {
    if (index === chain.length) return defer(() => terminal(current));
    const middleware = chain[index]!;
    return defer(() => middleware(current, context, (passed) => step(index + 1, sameMethod(passed, current))));
  };
  return step(0, request);
}

/** What `next` was given, or the request as it came; with the original's method either way. */
function sameMethod<R extends MiddlewareRequest>(passed: R | undefined, original: R): R {
  if (passed === undefined) return original;
  return passed.method === original.method ? passed : { ...passed, method: original.method };
}
