import { catchError, filter, Observable, throwError, timer, switchMap } from '../rx/rxjs';
import type { SchedulerLike } from '../rx/rxjs';
import { ProgressUpdate } from '../connection/handler-events';
import { isResultEvent, RequestSent, runMiddleware } from '../connection/middleware';
import type { Middleware, MiddlewareEvent, MiddlewareRequest } from '../connection/middleware';
import type { OutboundHook, RequestOptions, SendRequest } from '../connection/request-pipeline';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';

/** A request the client sends, as client middleware sees it: with its per-request options. */
export interface ClientRequest extends MiddlewareRequest {
  /** Timeouts, signal, extra `_meta` (`options.meta`), progress callback, HTTP headers. */
  readonly options: RequestOptions;
}

/** What client middleware knows besides the request; read when the request is sent. */
export interface ClientMiddlewareContext {
  /** The revision spoken with the server; undefined while `connect` is still deciding. */
  readonly revision: string | undefined;
  /** The server's name and version, once known. */
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
  /** The transport's session id (Streamable HTTP in a handshake revision), when it has one. */
  readonly sessionId: string | undefined;
}

/**
 * Client middleware: runs around every request the client sends (each page of a list, each round
 * of a modern multi round-trip request, each retry), before its `_meta` is completed and it
 * goes out. `next()` streams `RequestSent` (with the request's id) as it goes out, its progress
 * (`ProgressUpdate`, when the caller asked for progress), and then its result; unsubscribing
 * sends `notifications/cancelled`, as for any request. `initialize` passes no middleware.
 * @example
 * const traced: ClientMiddleware = (request, _context, next) =>
 *   next({ ...request, options: { ...request.options, meta: { ...request.options.meta, 'example.com/user': 'ada' } } });
 */
export type ClientMiddleware = Middleware<ClientRequest, ClientMiddlewareContext>;

/** The connection hook that runs `chain` around each request; undefined for no middleware. */
export function clientOutbound(
  chain: readonly ClientMiddleware[] | undefined,
  context: ClientMiddlewareContext,
): OutboundHook | undefined {
  if (chain === undefined || chain.length === 0) return undefined;
  const list = [...chain];
  return (method, params, options, send) => {
    const onProgress = options.onProgress;
    return runMiddleware(list, { method, params: params ?? {}, options }, context, (request) =>
      sendStreaming(send, request, params),
    ).pipe(
      filter((event): event is Record<string, unknown> => {
        // Progress that came through the chain reaches the caller's callback here.
        if (event instanceof ProgressUpdate) onProgress?.(event);
        return isResultEvent(event);
      }),
    );
  };
}

/** Sends the request, its progress emitted as events on the way (when the caller asked for it). */
function sendStreaming(
  send: SendRequest,
  request: ClientRequest,
  original: Record<string, unknown> | undefined,
): Observable<MiddlewareEvent> {
  return new Observable<MiddlewareEvent>((subscriber) => {
    const given = request.options;
    const options: RequestOptions = given.onProgress
      ? { ...given, onProgress: (p) => subscriber.next(new ProgressUpdate(p.progress, p.total, p.message)) }
      : given;
    // A request sent with no params still goes without, unless a middleware gave it some.
    const params = original === undefined && Object.keys(request.params).length === 0 ? undefined : request.params;
    return send(request.method, params, options, (id) => subscriber.next(new RequestSent(id))).subscribe(subscriber);
  });
}

/**
 * A client middleware that adds `_meta` fields to every request (or those `meta` returns fields
 * for); fields the caller set win.
 */
export function withMeta(
  meta: Record<string, unknown> | ((request: ClientRequest) => Record<string, unknown> | undefined),
): ClientMiddleware {
  return (request, _context, next) => {
    const extra = typeof meta === 'function' ? meta(request) : meta;
    if (extra === undefined) return next();
    return next({ ...request, options: { ...request.options, meta: { ...extra, ...request.options.meta } } });
  };
}

/** Options of `retrying`. */
export interface RetryingOptions {
  /** Retries after the first attempt. Default 2. */
  readonly count?: number;
  /** Wait before retry `n` (1-based). Default: none. */
  readonly delayMs?: number | ((attempt: number, error: unknown) => number);
  /**
   * Which failures are retried. Default: all but the JSON-RPC errors that a retry cannot mend
   * (invalid request, method not found, invalid params).
   */
  readonly when?: (error: unknown, request: ClientRequest) => boolean;
  readonly scheduler?: SchedulerLike;
}

const FINAL_CODES = new Set<number>([ErrorCode.InvalidRequest, ErrorCode.MethodNotFound, ErrorCode.InvalidParams]);

function retriable(error: unknown): boolean {
  return !(error instanceof JsonRpcError && FINAL_CODES.has(error.code));
}

/**
 * A client middleware that sends a failed request again (with a new id), up to `count` times.
 * Only what is safe to repeat should pass it: give `when` to leave out tools with side effects.
 */
export function retrying(options: RetryingOptions = {}): ClientMiddleware {
  const { count = 2, delayMs = 0, when = retriable, scheduler } = options;
  return (request, _context, next) => {
    const attempt = (n: number): Observable<MiddlewareEvent> =>
      next().pipe(
        catchError((error: unknown) => {
          if (n > count || !when(error, request)) return throwError(() => error);
          const wait = typeof delayMs === 'function' ? delayMs(n, error) : delayMs;
          return wait > 0 ? timer(wait, scheduler).pipe(switchMap(() => attempt(n + 1))) : attempt(n + 1);
        }),
      );
    return attempt(1);
  };
}
