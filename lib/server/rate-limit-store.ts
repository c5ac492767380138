import { asyncScheduler } from '../rx/rxjs';
import type { SchedulerAction, SchedulerLike } from '../rx/rxjs';
import { timerScheduler } from '../operators/timer-scheduler';
import type { TimerAction } from '../operators/timer-scheduler';

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
  /** On the default clock, whether no timer has yet seen the window end (see `Counter`). */
  open: boolean;
  /** The timer that closes it, while one waits. */
  closing: TimerAction<Window> | undefined;
}

/**
 * A `RateLimitStore` in this process's memory, on the middleware's clock: a caller's window starts
 * with its first request. It holds about the callers of one window: ended windows go when the map
 * grows past `sweepAbove`. Windows are kept per limit name, then per caller, so that counting a
 * request builds no key of its own (this runs for every request a limit counts). A window's timer
 * (under `rateLimit` on the default clock) keeps no process alive.
 */
export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore {
  const windows = new MemoryWindows(options.sweepAbove ?? 1024);
  const store: RateLimitStore = {
    hit({ caller, name, windowMs, now }) {
      const window = windows.count(caller, name, windowMs, now);
      return { count: window.count, resetInMs: window.end - now };
    },
  };
  counters.set(store, (caller, name, windowMs, limit, scheduler) =>
    scheduler === asyncScheduler
      ? windows.countTimed(caller, name, windowMs, limit)
      : windows.count(caller, name, windowMs, scheduler.now()),
  );
  return store;
}

/** The windows of a memory store, per limit name, then per caller. */
class MemoryWindows {
  private readonly limits = new Map<string, Map<string, Window>>();
  private size = 0;
  /**
   * The window counted last, with its caller and limit name: a caller's requests one after another
   * find it without a lookup. A window leaves the map only when swept, which forgets it here too.
   */
  private last: Window | undefined = undefined;
  private lastCaller: string | undefined = undefined;
  private lastName: string | undefined = undefined;

  constructor(private readonly sweepAbove: number) {}

  /** Counts a request at `now`. */
  count(caller: string, name: string, windowMs: number, now: number): Window {
    const window = this.windowOf(caller, name, now);
    if (now >= window.end) this.restart(window, now + windowMs);
    window.count++;
    return window;
  }

  /**
   * Counts a request on the default clock, reading it only when the request starts a window or
   * would be refused: a timer closes each window when it ends, so a request under the limit in an
   * open window reads no clock.
   */
  countTimed(caller: string, name: string, windowMs: number, limit: number): Window {
    let window = this.last;
    if (caller !== this.lastCaller || name !== this.lastName) {
      window = this.limits.get(name)?.get(caller);
      if (window !== undefined) this.remember(window, caller, name);
    }
    // Open, with the timer that will close it: nothing to read the clock for.
    if (window !== undefined && window.open && window.closing !== undefined && window.count < limit) {
      window.count++;
      return window;
    }
    const now = asyncScheduler.now();
    const counted = this.count(caller, name, windowMs, now);
    if (counted.closing === undefined) counted.closing = closeAt(counted, windowMs);
    return counted;
  }

  private windowOf(caller: string, name: string, now: number): Window {
    let windows = this.limits.get(name);
    if (windows === undefined) this.limits.set(name, (windows = new Map()));
    let window = caller === this.lastCaller && name === this.lastName ? this.last : windows.get(caller);
    if (window === undefined) {
      if (this.size >= this.sweepAbove) {
        this.size -= sweep(this.limits, now);
        this.last = undefined;
      }
      this.size++;
      window = { end: -Infinity, count: 0, open: true, closing: undefined };
      windows.set(caller, window);
    }
    this.remember(window, caller, name);
    return window;
  }

  private remember(window: Window, caller: string, name: string): void {
    this.last = window;
    this.lastCaller = caller;
    this.lastName = name;
  }

  /** A caller's next window reuses its entry. */
  private restart(window: Window, end: number): void {
    window.end = end;
    window.count = 0;
    window.open = true;
  }
}

/** A timer that closes `window` once it ended (later, when its end moved meanwhile). */
function closeAt(window: Window, delayMs: number): TimerAction<Window> {
  const action = timerScheduler.schedule(closeWhenEnded, delayMs, window);
  // A window's end keeps no process alive.
  action.unref();
  return action;
}

function closeWhenEnded(this: SchedulerAction<Window>, window?: Window): void {
  const left = window!.end - asyncScheduler.now();
  if (left > 0) {
    this.schedule(window, left);
    return;
  }
  window!.open = false;
  window!.closing = undefined;
}

/** The window a request was counted in, as the store keeps it: read it at once, it changes. */
export interface CountedWindow {
  /** When the window ends, on the middleware's clock. */
  readonly end: number;
  /** The requests counted in it, this one included. */
  readonly count: number;
}

/**
 * Counts one request in a store that answers at once, without making a `RateLimitHit`. On the
 * default clock (`asyncScheduler`), a window's end is seen by a timer, up to the timer's lateness
 * after it, except by a request that would be refused, which reads the clock.
 */
export type Counter = (
  caller: string,
  name: string,
  windowMs: number,
  limit: number,
  scheduler: SchedulerLike,
) => CountedWindow;

/** The counters of the stores that answer at once (the in-memory ones). */
const counters = new WeakMap<RateLimitStore, Counter>();

/**
 * How `store` counts at once, if it does (the in-memory store): a limit on it then decides on the
 * request's path, with nothing to wait for (see `withAdmission`).
 */
export function counterOf(store: RateLimitStore): Counter | undefined {
  return counters.get(store);
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
