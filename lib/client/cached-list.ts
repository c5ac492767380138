import { merge, of, ReplaySubject, share, switchMap } from 'rxjs';
import type { Observable } from 'rxjs';

/** Options of {@link cachedList}. */
export interface CachedListOptions<T> {
  /** Fetches the whole list (every page). Subscribed once per refresh. */
  readonly fetch: () => Observable<readonly T[]>;
  /** Each value makes the list stale and starts a refresh; its completion ends the list stream. */
  readonly changed$: Observable<unknown>;
}

/**
 * A list that fetches itself on first use, keeps the latest copy, and fetches again whenever
 * `changed$` emits (a refresh in flight is abandoned, its request cancelled, when another change
 * arrives).
 *
 * Hot once started: the first subscriber triggers the first fetch; later subscribers get the
 * latest list at once, then every refreshed list. Unsubscribing every subscriber does not stop it:
 * the list stays cached and keeps following `changed$`, so a later subscriber gets a current list
 * without a round trip. When `changed$` completes (the connection closed) the stream completes and
 * late subscribers still get the last list. A failed fetch errors the current subscribers and
 * resets the cache, so the next subscriber fetches afresh.
 */
export function cachedList<T>(options: CachedListOptions<T>): Observable<readonly T[]> {
  const { fetch, changed$ } = options;
  return merge(of(undefined), changed$).pipe(
    switchMap(() => fetch()),
    share({
      connector: () => new ReplaySubject<readonly T[]>(1),
      resetOnError: true,
      resetOnComplete: false,
      resetOnRefCountZero: false,
    }),
  );
}
