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
 * grows past `sweepAbove`.
 */
export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore {
  const { sweepAbove = 1024 } = options;
  const windows = new Map<string, Window>();
  return {
    hit({ caller, name, windowMs, now }) {
      const id = `${name}\u0000${caller}`;
      let window = windows.get(id);
      if (window === undefined || now >= window.end) {
        if (window === undefined && windows.size >= sweepAbove) sweep(windows, now);
        window = { end: now + windowMs, count: 0 };
        windows.set(id, window);
      }
      window.count++;
      return { count: window.count, resetInMs: window.end - now };
    },
  };
}

function sweep(windows: Map<string, Window>, now: number): void {
  for (const [id, window] of windows) if (now >= window.end) windows.delete(id);
}
