import { from, isObservable, map, of } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import { DeferredOutput, isThenable, observeOutput } from '../connection/dispatcher';
import type { HandlerOutput, HandlerResult, RequestHandler } from '../connection/dispatcher';
import { runMiddleware } from '../connection/middleware';
import type { Middleware, MiddlewareEvent, MiddlewareRequest } from '../connection/middleware';
import { contextOf } from './request-contexts';
import type { ServerContext } from './server-context';

/**
 * Server middleware: runs around the handler of every request a server serves (in a session and
 * modern alike), after the params were checked against the revision's schema and before the
 * handler sees them. `context` is what handlers get: the session (or none, for a modern
 * request), `auth`, `headers`, the client's info and capabilities, the abort signal. `next()`
 * streams the handler's progress and log events as they happen, then its result; the client's
 * cancellation unsubscribes the chain, and so the handler. `initialize`, `ping` and
 * `server/discover` are answered by the runtime itself and pass no middleware.
 * @example
 * const onlyAdmins: ServerMiddleware = (request, context, next) =>
 *   request.method === 'tools/call' && !context.auth?.scopes.includes('admin')
 *     ? throwError(() => new JsonRpcError(-32600, 'admin scope required'))
 *     : next();
 */
export type ServerMiddleware = Middleware<MiddlewareRequest, ServerContext>;

/** A handler's output of any form as a stream of events; no result (`undefined`) stands for `{}`. */
export function eventsOf(output: HandlerOutput<HandlerResult> | DeferredOutput): Observable<MiddlewareEvent> {
  if (isObservable(output) || output instanceof DeferredOutput) return observeOutput(output);
  if (isThenable(output))
    return from(output as PromiseLike<HandlerResult | void>).pipe(map((value) => (value ?? {}) as MiddlewareEvent));
  return of((output ?? {}) as MiddlewareEvent);
}

/** `handler` with `chain` around it, every middleware run as a stream. */
export function streamed(handler: RequestHandler, chain: readonly ServerMiddleware[]): RequestHandler {
  return (params, context, owner) =>
    runMiddleware(chain, { method: context.method, params }, contextOf(context, owner), (request) =>
      eventsOf(handler(request.params, context, owner)),
    ) as Observable<HandlerResult>;
}

/** How chains run once the module of the middleware that decides at once is loaded (see middleware-runner.ts). */
let admittedRunner: ((handler: RequestHandler, chain: readonly ServerMiddleware[]) => RequestHandler) | undefined;

/** Called by middleware-runner.ts as it loads. */
export function useAdmittedRunner(
  run: (handler: RequestHandler, chain: readonly ServerMiddleware[]) => RequestHandler,
): void {
  admittedRunner = run;
}

/**
 * `handler` with `chain` around it. Middleware that decides at once (the limits and policies of
 * this library) runs on the request's own path; the rest runs as streams (see middleware-runner.ts).
 */
export function withMiddleware(handler: RequestHandler, chain: readonly ServerMiddleware[]): RequestHandler {
  if (chain.length === 0) return handler;
  return admittedRunner ? admittedRunner(handler, chain) : streamed(handler, chain);
}

const NO_MIDDLEWARE: readonly ServerMiddleware[] = Object.freeze([]);

/**
 * The server's request handlers as its sessions and modern endpoint read them: the record is
 * shared by reference, so `use` wraps its entries in place and open sessions see the new chain
 * too. With no middleware the entries are the handlers themselves: the request path is unchanged.
 */
export class MiddlewareStack {
  readonly handlers: Record<string, RequestHandler>;
  /** The middleware, outermost first; the shared empty list until there is some. Never changed in place. */
  private chain: readonly ServerMiddleware[];

  /** The handlers without middleware: the same record as `handlers` until there is middleware. */
  private base: Record<string, RequestHandler>;

  /** Takes `base` as its own record: the caller hands over one made for this stack alone. */
  constructor(base: Record<string, RequestHandler>, middleware: readonly ServerMiddleware[] = []) {
    this.handlers = base;
    this.base = this.handlers;
    this.chain = middleware.length > 0 ? [...middleware] : NO_MIDDLEWARE;
    if (this.chain.length > 0) this.wrap();
  }

  /** Adds `middleware` inside those already there (it runs after them, nearer the handler). */
  use(middleware: ServerMiddleware): void {
    if (typeof middleware !== 'function') throw new TypeError('middleware must be a function');
    this.chain = [...this.chain, middleware];
    this.wrap();
  }

  /** Adds request handlers (an extension's methods), inside the middleware already there. */
  add(handlers: Readonly<Record<string, RequestHandler>>): void {
    Object.assign(this.base, handlers);
    this.wrap();
  }

  /** Whether `method` has a handler. */
  has(method: string): boolean {
    return Object.hasOwn(this.base, method);
  }

  private wrap(): void {
    if (this.chain.length === 0) return;
    if (this.base === this.handlers) this.base = { ...this.handlers };
    // `use` replaces the list rather than changing it, so handlers wrapped before keep theirs.
    for (const method of Object.keys(this.base)) {
      this.handlers[method] = withMiddleware(this.base[method]!, this.chain);
    }
  }
}
