import { asyncScheduler, defer, map, Observable, switchMap, take, timer } from '../rx/rxjs';
import type { ObservableInput, SchedulerLike, Subscription } from '../rx/rxjs';

/** How an aggregate reconnects an upstream it opened itself (see `UpstreamConnector`). */
export interface UpstreamReconnectOptions {
  /** The wait before the first retry. Default 500 ms. */
  readonly initialDelayMs?: number;
  /** The longest wait between two attempts. Default 30 s. */
  readonly maxDelayMs?: number;
  /** How much longer each wait is than the one before. Default 2. */
  readonly factor?: number;
  /**
   * How much of each wait may be taken off at random (0 to 1), so that many aggregates do not
   * retry in step. Default 0: waits are exact.
   */
  readonly jitter?: number;
  /** Failed attempts in a row after which the aggregate gives up on the upstream. Default: never. */
  readonly maxAttempts?: number;
  /** Where the waits are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * What {@link reconnecting} reports. `attempt` is 0 for the first connection and n for the nth
 * retry since a connection last failed or closed.
 */
export type ReconnectEvent<T> =
  | { readonly type: 'connected'; readonly value: T; readonly attempt: number }
  | {
      readonly type: 'retrying';
      /** `closed`: a connection that was up went down; `failed`: an attempt to connect failed. */
      readonly reason: 'closed' | 'failed';
      readonly error: unknown;
      readonly attempt: number;
      readonly delayMs: number;
    }
  | { readonly type: 'gave-up'; readonly error: unknown; readonly attempts: number };

/** The wait before retry number `retry` (from 1): exponential, capped, less its jitter. */
export function backoffDelay(retry: number, options: UpstreamReconnectOptions = {}): number {
  const { initialDelayMs = 500, maxDelayMs = 30_000, factor = 2, jitter = 0, random = Math.random } = options;
  const exact = Math.min(maxDelayMs, initialDelayMs * factor ** Math.max(0, retry - 1));
  return jitter > 0 ? exact * (1 - Math.min(1, jitter) * random()) : exact;
}

/**
 * Keeps a connection up: connects (`connect(attempt)`, a Promise or an Observable whose first
 * value is the connection), emits `connected`, waits for `closed(connection)` to emit, and then,
 * as after a failed attempt, emits `retrying` and tries again after {@link backoffDelay}. A success
 * starts the count of attempts again; after `maxAttempts` failures in a row it emits `gave-up` and
 * completes. Cold: each subscriber runs its own loop; unsubscribing stops it (an attempt in flight
 * is abandoned, a connection already made is left to the caller).
 */
export function reconnecting<T>(
  connect: (attempt: number) => ObservableInput<T>,
  closed: (connection: T) => Observable<unknown>,
  options: UpstreamReconnectOptions = {},
): Observable<ReconnectEvent<T>> {
  const { maxAttempts = Infinity, scheduler = asyncScheduler } = options;
  return new Observable<ReconnectEvent<T>>((subscriber) => {
    let step: Subscription | undefined;
    let failures = 0;
    const retry = (reason: 'closed' | 'failed', error: unknown) => {
      failures++;
      if (failures > maxAttempts) {
        subscriber.next({ type: 'gave-up', error, attempts: failures - 1 });
        subscriber.complete();
        return;
      }
      const delayMs = backoffDelay(failures, options);
      subscriber.next({ type: 'retrying', reason, error, attempt: failures, delayMs });
      step = timer(delayMs, scheduler).subscribe(attempt);
    };
    const attempt = () => {
      let connected = false;
      const current = defer(() => connect(failures))
        .pipe(
          take(1),
          switchMap((connection) => {
            connected = true;
            subscriber.next({ type: 'connected', value: connection, attempt: failures });
            failures = 0;
            return closed(connection).pipe(
              take(1),
              map(() => undefined),
            );
          }),
        )
        .subscribe({
          next: () => retry('closed', undefined),
          error: (error: unknown) => retry(connected ? 'closed' : 'failed', error),
          complete: () => {
            if (!connected) retry('failed', new Error('the connector completed without a connection'));
          },
        });
      // A connection that failed at once has already scheduled the next attempt as `step`.
      if (!current.closed) step = current;
    };
    attempt();
    return () => step?.unsubscribe();
  });
}
