import { asyncScheduler, of, tap, throwError } from '../rx/rxjs';
import type { SchedulerLike } from '../rx/rxjs';
import { isResultEvent } from '../connection/middleware';
import type { MiddlewareRequest } from '../connection/middleware';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { ServerMiddleware } from './middleware';
import { principalOf } from '../transport/transport';
import { capabilitiesDigest } from './digest';
import type { ServerContext } from './server-context';

/**
 * Who a request counts against: its verified principal (see `principalOf`: issuer with `sub`, else
 * with `client_id`), else its session, else its client's name (which the client chooses).
 */
export function callerOf(context: ServerContext): string {
  const principal = principalOf(context.auth);
  if (principal !== undefined) return `principal:${principal}`;
  if (context.session !== undefined) return `session:${context.session.id}`;
  return context.clientInfo === undefined ? 'anonymous' : `client:${context.clientInfo.name}`;
}

/** Options of `rateLimit`. */
export interface RateLimitOptions {
  /** Requests allowed per caller in each window. */
  readonly limit: number;
  readonly windowMs: number;
  /** Which requests count. Default: every request. */
  readonly when?: (request: MiddlewareRequest, context: ServerContext) => boolean;
  /** Who a request counts against. Default `callerOf` (per principal, else per session, else per client name). */
  readonly key?: (request: MiddlewareRequest, context: ServerContext) => string;
  /** The error code. Default `ErrorCode.RateLimited`. */
  readonly code?: number;
  readonly scheduler?: SchedulerLike;
}

interface Window {
  start: number;
  count: number;
}

/**
 * A server middleware that lets each caller make `limit` requests per `windowMs` (fixed windows on
 * the scheduler's clock) and answers the rest with a JSON-RPC error whose `data` holds
 * `retryAfterMs`; the handler of a refused request never runs.
 */
export function rateLimit(options: RateLimitOptions): ServerMiddleware {
  const { limit, windowMs, when, key = callerKey, code = ErrorCode.RateLimited } = options;
  if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError(`rateLimit needs limit >= 1 and windowMs > 0`);
  const scheduler = options.scheduler ?? asyncScheduler;
  const windows = new Map<string, Window>();
  return (request, context, next) => {
    if (when !== undefined && !when(request, context)) return next();
    const now = scheduler.now();
    const caller = key(request, context);
    let window = windows.get(caller);
    if (window === undefined || now - window.start >= windowMs) {
      // Windows of past callers go when the map grows: it holds at most the callers of one window.
      if (window === undefined && windows.size >= 1024) sweep(windows, now, windowMs);
      window = { start: now, count: 0 };
      windows.set(caller, window);
    }
    if (window.count >= limit) {
      const retryAfterMs = window.start + windowMs - now;
      return throwError(
        () =>
          new JsonRpcError(
            code,
            `Rate limit exceeded: ${limit} requests per ${windowMs} ms; retry in ${retryAfterMs} ms`,
            {
              retryAfterMs,
              limit,
              windowMs,
            },
          ),
      );
    }
    window.count++;
    return next();
  };
}

function callerKey(_request: MiddlewareRequest, context: ServerContext): string {
  return callerOf(context);
}

function sweep(windows: Map<string, Window>, now: number, windowMs: number): void {
  for (const [caller, window] of windows) if (now - window.start >= windowMs) windows.delete(caller);
}

/** Options of `cache`. */
export interface CacheOptions {
  /** How long a result is served from the cache. */
  readonly ttlMs: number;
  /** Which requests are cached. Default: the list methods (tools, prompts, resources, templates). */
  readonly when?: (request: MiddlewareRequest, context: ServerContext) => boolean;
  /**
   * What makes two requests the same. Default `cacheKeyOf`: the method, the params without
   * `_meta`, the protocol revision, the caller's principal and a digest of what its client
   * declared, so that no caller is answered with what was made for another.
   */
  readonly key?: (request: MiddlewareRequest, context: ServerContext) => string;
  /** The most entries kept; the oldest goes first. Default 1000. */
  readonly maxEntries?: number;
  readonly scheduler?: SchedulerLike;
}

/** A caching middleware; `clear()` forgets every entry (e.g. when the tools change). */
export interface CacheMiddleware extends ServerMiddleware {
  /** Forgets every cached entry. */
  clear(): void;
}

const LIST_METHODS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/**
 * The default key of `cache`: the method and params (without `_meta`), the revision, the caller's
 * principal (none without auth) and a digest of the client's declared capabilities and extensions
 * (what decides, e.g., whether MCP Apps' `_meta.ui` is in a listing). The digest is made once per
 * capabilities object, so a session's requests do not make it again.
 */
export function cacheKeyOf(request: MiddlewareRequest, context: ServerContext): string {
  const { _meta: _ignored, ...params } = request.params;
  return JSON.stringify([
    request.method,
    context.revision,
    principalOf(context.auth) ?? null,
    capabilitiesDigest(context.clientCapabilities),
    params,
  ]);
}

/**
 * A server middleware that answers a request from its cache for `ttlMs` after a first one like it
 * succeeded (a result with `isError: true` is not kept). A hit never reaches the handler.
 * @example
 * cache({ ttlMs: 30_000, when: (r) => r.method === 'tools/call' && r.params.name === 'weather' })
 */
export function cache(options: CacheOptions): CacheMiddleware {
  const { ttlMs, key = cacheKeyOf, maxEntries = 1000 } = options;
  const when = options.when ?? ((request: MiddlewareRequest) => LIST_METHODS.has(request.method));
  const scheduler = options.scheduler ?? asyncScheduler;
  const entries = new Map<string, { result: Record<string, unknown>; expiresAt: number }>();
  const middleware: ServerMiddleware = (request, context, next) => {
    if (!when(request, context)) return next();
    const id = key(request, context);
    const hit = entries.get(id);
    if (hit !== undefined && hit.expiresAt > scheduler.now()) return of(hit.result);
    entries.delete(id);
    return next().pipe(
      tap((event) => {
        if (!isResultEvent(event) || event.isError === true) return;
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(id, { result: event, expiresAt: scheduler.now() + ttlMs });
      }),
    );
  };
  return Object.assign(middleware, { clear: () => entries.clear() });
}

/** Options of `authorize`. */
export interface AuthorizeOptions {
  /** OAuth scopes each tool needs (`context.auth.scopes` must hold them all). */
  readonly tools?: Readonly<Record<string, readonly string[]>>;
  /** OAuth scopes each method needs. */
  readonly methods?: Readonly<Record<string, readonly string[]>>;
  /** Any other rule: return a reason to refuse, or `true`/`undefined` to allow. */
  readonly check?: (request: MiddlewareRequest, context: ServerContext) => string | boolean | undefined;
  /** The error code. Default `ErrorCode.Forbidden`. */
  readonly code?: number;
}

/**
 * A server middleware that refuses, with a JSON-RPC error naming what was missing, a request
 * whose caller lacks the scopes its method or tool needs, or that `check` rejects. The handler of
 * a refused request never runs.
 */
export function authorize(options: AuthorizeOptions): ServerMiddleware {
  const { tools = {}, methods = {}, check, code = ErrorCode.Forbidden } = options;
  return (request, context, next) => {
    const reason = refusalOf(request, context, tools, methods, check);
    return reason === undefined ? next() : throwError(() => new JsonRpcError(code, `Forbidden: ${reason}`));
  };
}

function refusalOf(
  request: MiddlewareRequest,
  context: ServerContext,
  tools: Readonly<Record<string, readonly string[]>>,
  methods: Readonly<Record<string, readonly string[]>>,
  check: AuthorizeOptions['check'],
): string | undefined {
  const held = context.auth?.scopes ?? [];
  const name = request.params.name;
  const needed = [
    ...(Object.hasOwn(methods, request.method) ? methods[request.method]! : []),
    ...(request.method === 'tools/call' && typeof name === 'string' && Object.hasOwn(tools, name) ? tools[name]! : []),
  ];
  const missing = needed.filter((scope) => !held.includes(scope));
  if (missing.length > 0)
    return `${request.method} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(' ')}`;
  const verdict = check?.(request, context);
  if (verdict === false) return `${request.method} is not allowed`;
  return typeof verdict === 'string' ? verdict : undefined;
}
