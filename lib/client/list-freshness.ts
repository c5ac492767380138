import type { SchedulerLike } from '../rx/rxjs';

/** Which list methods a change notification makes stale. */
const STALE_ON: Readonly<Record<string, readonly string[]>> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

/** One listing being fetched, page by page. */
export interface ListingTracker {
  /** A page arrived: its `ttlMs` counts from now. */
  page(result: Record<string, unknown>): void;
  /** Every page arrived: the listing is fresh until its first page goes stale. */
  complete(): void;
  /** The listing ended (completed, failed or abandoned); idempotent. */
  end(): void;
}

/**
 * How long the lists a client cached stay fresh (spec 2026-07-28: Utilities → Caching): each page
 * is fresh for its `ttlMs` from when it arrived (absent or negative: stale at once), a listing
 * until its first page goes stale, and a change notification makes it stale at once.
 *
 * `cacheScope` needs nothing here: these lists are cached per client, and a client speaks for one
 * authorization context, which both `public` and `private` results may be reused within.
 */
export class ListFreshness {
  // Both made on first use: an idle client that never listed keeps neither.
  private freshUntil: Map<string, number> | undefined;
  /** For each list method, the listings in flight, told when a notification makes them stale. */
  private invalidators: Map<string, Set<() => void>> | undefined;

  constructor(readonly scheduler: SchedulerLike) {}

  /** Until when (on the scheduler's clock) the latest listing of `method` is fresh; 0 when unknown. */
  until(method: string): number {
    return this.freshUntil?.get(method) ?? 0;
  }

  /** Starts following one listing of `method`. */
  track(method: string): ListingTracker {
    let until = Infinity;
    let invalidated = false;
    const stale = () => (invalidated = true);
    const invalidators = (this.invalidators ??= new Map());
    const listeners = (invalidators.get(method) ?? new Set()).add(stale);
    invalidators.set(method, listeners);
    return {
      page: (result) => {
        const ttl = typeof result.ttlMs === 'number' && result.ttlMs > 0 ? result.ttlMs : 0;
        until = Math.min(until, this.scheduler.now() + ttl);
      },
      complete: () => {
        listeners.delete(stale);
        (this.freshUntil ??= new Map()).set(method, invalidated ? 0 : until);
      },
      end: () => listeners.delete(stale),
    };
  }

  /** A change notification: the lists it concerns are stale now, even those still being fetched. */
  onNotification(method: string): void {
    for (const list of STALE_ON[method] ?? []) {
      this.freshUntil?.set(list, 0);
      for (const stale of this.invalidators?.get(list) ?? []) stale();
    }
  }
}
