import { asyncScheduler, defer, Observable, ReplaySubject, Subject, Subscription, timer } from '../rx/rxjs';
import type { ObservableInput, SchedulerLike } from '../rx/rxjs';

/** Options of {@link createFanOut}. */
export interface FanOutOptions<K, T> {
  /**
   * Opens the shared stream of a key; subscribed by the first watcher of the key and unsubscribed
   * when the last one leaves. For a resource, subscribing sends `resources/subscribe` and the
   * teardown sends `resources/unsubscribe`.
   */
  readonly open: (key: K) => ObservableInput<T>;
  /**
   * The identity of a key. Default: strings as they are, other primitives through `String`, objects
   * through `JSON.stringify` (so the number `1` and the string `"1"` are the same key by default).
   */
  readonly keyOf?: (key: K) => string;
  /**
   * Give a watcher that joins an open key the latest value at once (as `shareReplay(1)` would).
   * Default `false`: later watchers get only what comes after they join, which suits event streams
   * such as `notifications/resources/updated`, where an old event is not news.
   */
  readonly replayLatest?: boolean;
  /**
   * Keep a key open this long after its last watcher leaves, so a quick re-watch does not
   * unsubscribe and subscribe again. Default `0`: close at once.
   */
  readonly keepAliveMs?: number;
  /** Where `keepAliveMs` is timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** Shared, reference-counted streams by key. */
export interface FanOut<K, T> {
  /**
   * The stream of a key, shared with every other watcher of the same key. Cold per call: nothing
   * happens until it is subscribed. The first subscriber opens the key; unsubscribing the last one
   * closes it (after `keepAliveMs`) and forgets it. An error or completion of the opened stream
   * reaches every watcher and forgets the key, so a later watch opens it again.
   */
  watch(key: K): Observable<T>;
  /** How many keys are open, including those kept alive with no watcher. */
  size(): number;
}

interface Entry<T> {
  readonly id: string;
  readonly subject: Subject<T>;
  /** The subscription to `open(key)`; unsubscribing it closes the key upstream. */
  readonly connection: Subscription;
  watchers: number;
  linger?: Subscription;
}

const defaultKeyOf = (key: unknown): string =>
  typeof key === 'string' ? key : typeof key === 'object' && key !== null ? JSON.stringify(key) : String(key);

/**
 * Creates a reference-counted fan-out: one upstream subscription per key, however many watchers
 * it has. Watchers of a key share values from the moment they join (plus the latest one with
 * `replayLatest`); the upstream is subscribed by the first watcher and unsubscribed when the last
 * leaves, so for resource subscriptions `resources/subscribe` and `resources/unsubscribe` go out
 * once per key, not once per watcher. The state lives in the returned object; each `watch` is lazy.
 *
 * @example
 * ```ts
 * const updates = createFanOut({
 *   open: (uri: string) => client.subscribeResource(uri), // sends resources/subscribe, unsubscribes on teardown
 * });
 * const a = updates.watch('file:///a.txt').subscribe(render);
 * const b = updates.watch('file:///a.txt').subscribe(log); // shares the subscription
 * a.unsubscribe();
 * b.unsubscribe(); // the last one: resources/unsubscribe is sent
 * ```
 */
export function createFanOut<K, T>(options: FanOutOptions<K, T>): FanOut<K, T> {
  const { open, keyOf = defaultKeyOf, replayLatest = false, keepAliveMs = 0, scheduler = asyncScheduler } = options;
  const entries = new Map<string, Entry<T>>();

  const forget = (entry: Entry<T>): void => {
    if (entries.get(entry.id) === entry) entries.delete(entry.id);
    entry.linger?.unsubscribe();
  };
  const close = (entry: Entry<T>): void => {
    // Forget first, so that a watch made from inside the upstream's teardown opens afresh.
    forget(entry);
    entry.connection.unsubscribe();
  };

  const watch = (key: K): Observable<T> =>
    new Observable<T>((subscriber) => {
      const id = keyOf(key);
      const existing = entries.get(id);
      const entry: Entry<T> = existing ?? {
        id,
        subject: replayLatest ? new ReplaySubject<T>(1) : new Subject<T>(),
        connection: new Subscription(),
        watchers: 0,
      };
      if (existing === undefined) entries.set(id, entry);
      entry.linger?.unsubscribe();
      entry.linger = undefined;
      entry.watchers++;

      // Join before opening, so values the upstream emits synchronously reach the first watcher.
      const joined = entry.subject.subscribe({
        next: (value) => subscriber.next(value),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      if (existing === undefined) {
        entry.connection.add(
          defer(() => open(key)).subscribe({
            next: (value) => entry.subject.next(value),
            error: (error: unknown) => {
              forget(entry);
              entry.subject.error(error);
            },
            complete: () => {
              forget(entry);
              entry.subject.complete();
            },
          }),
        );
      }

      return () => {
        joined.unsubscribe();
        entry.watchers--;
        if (entry.watchers > 0 || entries.get(id) !== entry) return;
        if (keepAliveMs > 0) entry.linger = timer(keepAliveMs, scheduler).subscribe(() => close(entry));
        else close(entry);
      };
    });

  return { watch, size: () => entries.size };
}
