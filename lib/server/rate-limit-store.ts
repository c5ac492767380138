/** One request counted by a `RateLimitStore`. */
export interface RateLimitCounter {
  /** Who the request counts against (by default `callerOf`: the principal, else the session). */
  readonly caller: string;
  /** The limit's name: two limits on one store count apart. */
  readonly name: string;
  /** The length of the limit's window. */
  readonly windowMs: number;
  /** The middleware's clock (`scheduler.now()`); a store with a clock of its own may ignore it. */
  readonly now: number;
}

/** What a store answers for one counted request. */
export interface RateLimitHit {
  /** The requests counted in the current window, this one included. */
  readonly count: number;
  /** How long until the current window ends and the count starts again. */
  readonly resetInMs: number;
}

/**
 * Where `rateLimit` counts requests: fixed windows per caller and limit name. The in-memory store
 * (the default) counts in one process; `redisRateLimitStore` (rxmcp/cluster) counts for every
 * process of a cluster. A store that fails rejects (or throws); `rateLimit` then lets the request
 * through or refuses it, as its `onStoreError` option says.
 */
export interface RateLimitStore {
  /** Counts one request and answers the count of its window; synchronous or a promise. */
  hit(counter: RateLimitCounter): RateLimitHit | PromiseLike<RateLimitHit>;
}

/** Options of `createMemoryRateLimitStore`. */
export interface MemoryRateLimitStoreOptions {
  /** Past how many windows kept the ended ones are swept. Default 1024. */
  readonly sweepAbove?: number;
}

interface Window {
  end: number;
  count: number;
}

/**
 * A `RateLimitStore` in this process's memory, on the middleware's clock: a caller's window starts
 * with its first request. It holds about the callers of one window: ended windows go when the map
 * grows past `sweepAbove`. Windows are kept per limit name, then per caller, so that counting a
 * request builds no key of its own (this runs for every request a limit counts).
 */
export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore {
  const { sweepAbove = 1024 } = options;
  const limits = new Map<string, Map<string, Window>>();
  let size = 0;
  return answersAtOnce({
    hit({ caller, name, windowMs, now }) {
      let windows = limits.get(name);
      if (windows === undefined) limits.set(name, (windows = new Map()));
      let window = windows.get(caller);
      if (window === undefined || now >= window.end) {
        if (window === undefined) {
          if (size >= sweepAbove) size -= sweep(limits, now);
          size++;
        }
        window = { end: now + windowMs, count: 0 };
        windows.set(caller, window);
      }
      window.count++;
      return { count: window.count, resetInMs: window.end - now };
    },
  });
}

/** The stores known to answer `hit` at once, never with a promise. */
const immediate = new WeakSet<RateLimitStore>();

/** `store`, known to answer at once: a limit on it decides on the request's path (see `withAdmission`). */
function answersAtOnce(store: RateLimitStore): RateLimitStore {
  immediate.add(store);
  return store;
}

/** Whether `store` answers `hit` at once (the in-memory store), so that nothing waits for it. */
export function answersImmediately(store: RateLimitStore): boolean {
  return immediate.has(store);
}

/** Drops the windows that ended; answers how many went. */
function sweep(limits: Map<string, Map<string, Window>>, now: number): number {
  let dropped = 0;
  for (const windows of limits.values())
    for (const [caller, window] of windows)
      if (now >= window.end) {
        windows.delete(caller);
        dropped++;
      }
  return dropped;
}
