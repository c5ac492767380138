import { asyncScheduler, catchError, defer, finalize, map, of, switchMap, tap, throwError } from '../rx/rxjs';
import type { Observable, SchedulerLike } from '../rx/rxjs';
import { isResultEvent, withAdmission } from '../connection/middleware';
import type { AdmissionHold, MiddlewareEvent, MiddlewareRequest } from '../connection/middleware';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { childLogger } from '../base/logger';
import type { LoggerOption } from '../base/logger';
import { counterOf, createMemoryRateLimitStore } from './rate-limit-store';
import type { RateLimitHit, RateLimitStore } from './rate-limit-store';
import type { ServerMiddleware } from './middleware';
import { principalOf } from '../transport/transport';
import { capabilitiesDigest } from './digest';
import type { ServerContext } from './server-context';
import { admitted } from './middleware-runner';

/** The caller keys of verified tokens, by the token's `AuthInfo`, and of sessions, by the session. */
const callerKeys = new WeakMap<object, string>();

/** The token asked about last, and its key: the limits of one chain ask in turn for one request. */
let lastAuth: object | undefined;
let lastKey = '';

/**
 * Who a request counts against: its verified principal (see `principalOf`: issuer with `sub`, else
 * with `client_id`), else its session, else its client's name (which the client chooses).
 */
export function callerOf(context: ServerContext): string {
  const auth = context.auth;
  if (auth !== undefined) {
    if (auth === lastAuth) return lastKey;
    // One key per verified token, made once: a limit reads it on every call.
    let key = callerKeys.get(auth);
    if (key === undefined) {
      const principal = principalOf(auth);
      if (principal !== undefined) callerKeys.set(auth, (key = `principal:${principal}`));
    }
    if (key !== undefined) {
      lastAuth = auth;
      return (lastKey = key);
    }
  }
  const session = context.session;
  if (session !== undefined) {
    let key = callerKeys.get(session);
    if (key === undefined) callerKeys.set(session, (key = `session:${session.id}`));
    return key;
  }
  return context.clientInfo === undefined ? 'anonymous' : `client:${context.clientInfo.name}`;
}

/** Options of `rateLimit`. */
export interface RateLimitOptions {
  /** Requests allowed per caller in each window. */
  readonly limit: number;
  /** The length of a window (fixed windows: a caller's count starts again when its window ends). */
  readonly windowMs: number;
  /**
   * The limit's name, in the refusal's `data` and in the store's keys, so that two limits on one
   * store (say per minute and per day) count apart. Default `requests`.
   */
  readonly name?: string;
  /** Which requests count. Default: every request. */
  readonly when?: (request: MiddlewareRequest, context: ServerContext) => boolean;
  /**
   * Who a request counts against. Default `callerOf`: the verified principal, so that a user's
   * sessions (and a new `initialize`) share one count; else the session; else the client's name.
   */
  readonly key?: (request: MiddlewareRequest, context: ServerContext) => string;
  /**
   * Where requests are counted. Default: this process's memory (`createMemoryRateLimitStore`). A
   * server run as many processes passes `redisRateLimitStore` (rxmcp/cluster) so all count together.
   */
  readonly store?: RateLimitStore;
  /**
   * What a request gets when the store fails (Redis unreachable): `allow` lets it through (fail
   * open), `refuse` answers the rate-limit error (fail closed). Default `allow`. Either way the
   * first failure is logged as a warning (once, until the store answers again).
   */
  readonly onStoreError?: 'allow' | 'refuse';
  /** Where a store's failure is logged. Default: silent. */
  readonly logger?: LoggerOption;
  /** The error code. Default `ErrorCode.RateLimited` (-32029). */
  readonly code?: number;
  /** The clock the in-memory store reads (`now()`). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** The `data` of a rate-limit refusal. */
export interface RateLimitErrorData {
  /** How long until a request of this caller may succeed. */
  readonly retryAfterMs: number;
  /** The limit's name (`RateLimitOptions.name`). */
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * A server middleware that lets each caller (by default its principal: a user's sessions count
 * together, and initializing again does not start a new count) make `limit` requests per
 * `windowMs`, and refuses the rest with a JSON-RPC error (-32029) whose message says when to retry
 * and whose `data` is a `RateLimitErrorData`. The handler of a refused request never runs. With an
 * asynchronous store (Redis), the request waits for the count; with the in-memory store, nothing waits
 * and the limit decides on the request's path. On the default clock the in-memory store sees a
 * window end by a timer (a request under the limit reads no clock), up to the timer's lateness
 * after the end; a request that would be refused reads the clock, so none is refused past the end.
 * @example
 * rateLimit({ name: 'calls', limit: 60, windowMs: 60_000, when: (r) => r.method === 'tools/call' })
 */
export function rateLimit(options: RateLimitOptions): ServerMiddleware {
  const { limit, windowMs, name = 'requests', when, key = callerKey, code = ErrorCode.RateLimited } = options;
  if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError(`rateLimit needs limit >= 1 and windowMs > 0`);
  const { onStoreError = 'allow', scheduler = asyncScheduler } = options;
  const store = options.store ?? createMemoryRateLimitStore();
  const log = childLogger(options.logger, { component: 'rate-limit', name });
  let failing = false;
  const refusal = (retryAfterMs: number, why: string): JsonRpcError => {
    const data: RateLimitErrorData = { retryAfterMs, name, limit, windowMs };
    return new JsonRpcError(code, `${why}; retry in ${retryAfterMs} ms`, data);
  };
  /** The refusal a count calls for, if any. */
  const decide = (hit: RateLimitHit): JsonRpcError | undefined => {
    failing = false;
    if (hit.count <= limit) return undefined;
    const retryAfterMs = Math.max(0, Math.ceil(hit.resetInMs));
    return refusal(retryAfterMs, `Rate limit exceeded (${name}): ${limit} requests per ${windowMs} ms`);
  };
  /** The refusal a failed store calls for, if any. */
  const failed = (error: unknown): JsonRpcError | undefined => {
    if (!failing) log.warn({ err: error, onStoreError }, 'rate limit store failed');
    failing = true;
    return onStoreError === 'allow' ? undefined : refusal(windowMs, `Rate limit (${name}) cannot be checked`);
  };
  const count = (request: MiddlewareRequest, context: ServerContext): RateLimitHit | PromiseLike<RateLimitHit> =>
    store.hit({ caller: key(request, context), name, windowMs, now: scheduler.now() });
  const middleware: ServerMiddleware = (request, context, next) => {
    if (when !== undefined && !when(request, context)) return next();
    let hit: RateLimitHit | PromiseLike<RateLimitHit>;
    try {
      hit = count(request, context);
    } catch (error) {
      return goOn(failed(error), next);
    }
    if (!isThenable(hit)) return goOn(decide(hit), next);
    const pending = hit;
    return defer(() => pending).pipe(
      map((answer) => ({ answer })),
      catchError((error: unknown) => of({ error })),
      switchMap((outcome) => goOn('answer' in outcome ? decide(outcome.answer) : failed(outcome.error), next)),
    );
  };
  // A store that answers at once lets the limit decide on the request's path, with no stream.
  const counter = counterOf(store);
  if (counter === undefined) return middleware;
  return admitted(
    withAdmission(middleware, (request, context) => {
      if (when !== undefined && !when(request, context)) return undefined;
      const window = counter(key(request, context), name, windowMs, limit, scheduler);
      if (window.count <= limit) return undefined;
      return decide({ count: window.count, resetInMs: window.end - scheduler.now() });
    }),
  );
}

/** `next()`, or the refusal. */
function goOn(refusal: JsonRpcError | undefined, next: () => Observable<MiddlewareEvent>): Observable<MiddlewareEvent> {
  return refusal === undefined ? next() : throwError(() => refusal);
}

/** Requests that last as long as a subscription: never counted by a `concurrencyLimit`. */
const LONG_LIVED: ReadonlySet<string> = new Set(['events/stream', 'subscriptions/listen']);

/** Options of `concurrencyLimit`. */
export interface ConcurrencyLimitOptions {
  /** Requests a caller may have in flight at once. */
  readonly limit: number;
  /** The limit's name, in the refusal's `data`. Default `concurrent`. */
  readonly name?: string;
  /**
   * Which requests count. Default: `tools/call`. Requests that last as long as a subscription
   * (`events/stream`, `subscriptions/listen`) never count, whatever this says: the events design
   * sketch requires that a push stream be exempt from any concurrency cap.
   */
  readonly when?: (request: MiddlewareRequest, context: ServerContext) => boolean;
  /** Who a request counts against. Default `callerOf` (the principal, else the session). */
  readonly key?: (request: MiddlewareRequest, context: ServerContext) => string;
  /** The `retryAfterMs` a refusal suggests (a call's end cannot be known). Default 1000. */
  readonly retryAfterMs?: number;
  /** The error code. Default `ErrorCode.RateLimited` (-32029). */
  readonly code?: number;
}

/**
 * A server middleware that lets each caller (by default its principal, across its sessions) have at
 * most `limit` requests in flight in this process, and refuses one more with a JSON-RPC error
 * (-32029) whose `data` is a `RateLimitErrorData` (`windowMs` 0). A request stops counting when its
 * handler completes, fails or is cancelled.
 */
export function concurrencyLimit(options: ConcurrencyLimitOptions): ServerMiddleware {
  const { limit, name = 'concurrent', key = callerKey, retryAfterMs = 1000, code = ErrorCode.RateLimited } = options;
  if (!(limit >= 1)) throw new RangeError(`concurrencyLimit needs limit >= 1`);
  const chosen = options.when;
  const when = chosen
    ? (request: MiddlewareRequest, context: ServerContext) =>
        !LONG_LIVED.has(request.method) && chosen(request, context)
    : (request: MiddlewareRequest) => request.method === 'tools/call';
  const inFlight = new Map<string, Slots>();
  // The caller admitted last and its slots: its next call finds them without a lookup. An entry
  // leaves the map only in a sweep, after which the caller being admitted is remembered instead.
  let lastCaller: string | undefined;
  let lastSlots: Slots | undefined;
  /** Takes a slot of the request's caller, or answers the refusal. */
  const admit = (request: MiddlewareRequest, context: ServerContext): Slots | JsonRpcError | undefined => {
    if (!when(request, context)) return undefined;
    const caller = key(request, context);
    let slots = caller === lastCaller ? lastSlots! : inFlight.get(caller);
    if (slots === undefined) {
      // Idle callers' entries stay, so that a caller's calls one after another make none; they go
      // when the map grows.
      if (inFlight.size >= SWEEP_SLOTS_ABOVE) sweepIdle(inFlight);
      inFlight.set(caller, (slots = new Slots()));
    }
    lastCaller = caller;
    lastSlots = slots;
    if (slots.taken >= limit) {
      const data: RateLimitErrorData = { retryAfterMs, name, limit, windowMs: 0 };
      const message = `Too many calls in flight (${name}): at most ${limit}; retry in ${retryAfterMs} ms`;
      return new JsonRpcError(code, message, data);
    }
    slots.taken++;
    return slots;
  };
  const middleware: ServerMiddleware = (request, context, next) =>
    defer(() => {
      const admitted = admit(request, context);
      if (admitted === undefined) return next();
      if (admitted instanceof JsonRpcError) return throwError(() => admitted);
      return next().pipe(finalize(() => admitted.release()));
    });
  return admitted(withAdmission(middleware, admit));
}

/** The requests of one caller in flight under a `concurrencyLimit`: what each admitted one holds. */
class Slots implements AdmissionHold {
  taken = 0;

  /** One request of the caller ended. */
  release(): void {
    this.taken--;
  }
}

/** Past how many callers a `concurrencyLimit` drops those with nothing in flight. */
const SWEEP_SLOTS_ABOVE = 1024;

function sweepIdle(inFlight: Map<string, Slots>): void {
  for (const [caller, slots] of inFlight) if (slots.taken === 0) inFlight.delete(caller);
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}

function callerKey(_request: MiddlewareRequest, context: ServerContext): string {
  return callerOf(context);
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
  const admit = (request: MiddlewareRequest, context: ServerContext): JsonRpcError | undefined => {
    const reason = refusalOf(request, context, tools, methods, check);
    return reason === undefined ? undefined : new JsonRpcError(code, `Forbidden: ${reason}`);
  };
  return admitted(withAdmission((request, context, next) => goOn(admit(request, context), next), admit));
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
