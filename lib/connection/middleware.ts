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
