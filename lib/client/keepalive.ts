import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
import { asyncScheduler, catchError, exhaustMap, interval, map, Observable, of, take } from '../rx/rxjs';
import type { SchedulerLike } from '../rx/rxjs';
import { timeoutWithReset } from '../operators/timeout-with-reset';

/** Options of `keepalive` and of the client's `keepalive` option. */
export interface KeepaliveOptions {
  /** Time between pings. */
  readonly intervalMs: number;
  /** How long a ping may go unanswered before it counts as missed. Default: `intervalMs`. */
  readonly timeoutMs?: number;
  /** Give up after this many missed pings in a row. Default 3. */
  readonly maxMissed?: number;
  /** Where the interval and the ping deadline are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** The peer missed `missed` pings in a row; the connection is considered dead. */
export class KeepaliveTimeoutError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.KeepaliveTimeout;
  override readonly name = 'KeepaliveTimeoutError';

  constructor(
    readonly missed: number,
    readonly intervalMs: number,
  ) {
    super(`Keepalive: ${missed} ping(s) in a row went unanswered (one every ${intervalMs} ms)`);
  }
}

/**
 * Pings every `intervalMs` and watches the answers. Emits, after each ping, how many pings in a
 * row have now been missed (0 after an answer); errors with {@link KeepaliveTimeoutError} once
 * `maxMissed` are missed in a row. A ping that fails for any reason (no answer in `timeoutMs`, an
 * error response, a closed connection) counts as missed. A tick that comes while a ping is still
 * out is skipped, so pings never overlap.
 *
 * Cold: subscribing starts the timer; unsubscribing stops it and the ping in flight.
 *
 * @example
 * keepalive(() => connection.request('ping'), { intervalMs: 30_000 })
 *   .subscribe({ error: (e) => connection.close(e.message) });
 */
export function keepalive(ping: () => Observable<unknown>, options: KeepaliveOptions): Observable<number> {
  const { intervalMs, timeoutMs = intervalMs, maxMissed = 3, scheduler = asyncScheduler } = options;
  if (!(intervalMs > 0)) throw new RangeError(`keepalive: intervalMs must be positive, got ${intervalMs}`);
  if (!(maxMissed >= 1)) throw new RangeError(`keepalive: maxMissed must be at least 1, got ${maxMissed}`);
  return new Observable<number>((subscriber) => {
    let missed = 0;
    return interval(intervalMs, scheduler)
      .pipe(
        exhaustMap(() =>
          ping().pipe(
            take(1),
            timeoutWithReset({ idleMs: timeoutMs, scheduler, context: { method: 'ping' } }),
            map(() => true),
            catchError(() => of(false)),
          ),
        ),
      )
      .subscribe({
        next: (answered) => {
          missed = answered ? 0 : missed + 1;
          subscriber.next(missed);
          if (missed >= maxMissed) subscriber.error(new KeepaliveTimeoutError(missed, intervalMs));
        },
        error: (error: unknown) => subscriber.error(error),
      });
  });
}
