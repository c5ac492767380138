import { asyncScheduler, defer, Observable, ReplaySubject, share, Subject, switchMap, tap } from '../rx/rxjs';
import type { SchedulerLike } from '../rx/rxjs';

/** Options of {@link cachedList}. */
export interface CachedListOptions<T> {
  /** Fetches the whole list (every page). Subscribed once per refresh. */
  readonly fetch: () => Observable<readonly T[]>;
  /** Each value makes the list stale and starts a refresh; its completion ends the list stream. */
  readonly changed$: Observable<unknown>;
  /**
   * Until when (on the scheduler's clock) the list last fetched is fresh; read after each fetch.
   * Default: for ever (only `changed$` makes it stale).
   */
  readonly freshUntil?: () => number;
  /** Whose clock `freshUntil` is on. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * A list that fetches itself on first use, keeps the latest copy, and fetches again whenever
 * `changed$` emits (a refresh in flight is abandoned, its request cancelled, when another change
 * arrives), or when a subscriber arrives after the copy went stale (`freshUntil`; spec 2026-07-28:
 * Caching: TTL is a freshness hint checked when the data is needed, never a polling interval).
 *
 * Hot once started: the first subscriber triggers the first fetch; later subscribers get the
 * latest list at once (stale or not), then every refreshed list. Unsubscribing every subscriber
 * does not stop it: the list stays cached and keeps following `changed$`, so a later subscriber
 * gets a list without waiting. When `changed$` completes (the connection closed) the stream
 * completes and late subscribers still get the last list. A failed fetch errors the current
 * subscribers and resets the cache, so the next subscriber fetches afresh.
 */
export function cachedList<T>(options: CachedListOptions<T>): Observable<readonly T[]> {
  const { fetch, changed$, freshUntil, scheduler = asyncScheduler } = options;
  const stale$ = new Subject<void>();
  let fetching = false;
  let fetched = false;
  // The first fetch, every change, and every stale read; ends when `changed$` does.
  const triggers$ = new Observable<unknown>((subscriber) => {
    subscriber.next(undefined);
    const stale = stale$.subscribe(() => subscriber.next(undefined));
    const changes = changed$.subscribe(subscriber);
    return () => {
      stale.unsubscribe();
      changes.unsubscribe();
    };
  });
  const list$ = triggers$.pipe(
    tap(() => (fetching = true)),
    switchMap(() => fetch()),
    tap({
      next: () => {
        fetching = false;
        fetched = true;
      },
      error: () => (fetching = fetched = false),
    }),
    share({
      connector: () => new ReplaySubject<readonly T[]>(1),
      resetOnError: true,
      resetOnComplete: false,
      resetOnRefCountZero: false,
    }),
  );
  if (!freshUntil) return list$;
  return defer(() => {
    if (fetched && !fetching && freshUntil() <= scheduler.now()) stale$.next();
    return list$;
  });
}
