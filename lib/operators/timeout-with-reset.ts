import { asyncScheduler, from, Observable } from '../rx/rxjs';
import type { MonoTypeOperatorFunction, ObservableInput, SchedulerLike, Subscriber, Subscription } from '../rx/rxjs';
import type { RequestTimeoutError } from '../jsonrpc/errors';
import type { RequestLocation } from '../jsonrpc/errors';
import { Deadlines } from './deadlines';
import { RequestClock } from './request-clock';

/** Options of {@link timeoutWithReset}. */
export interface TimeoutWithResetOptions {
  /** Fail when this long passes with no reset. `Infinity` disables the idle deadline. */
  readonly idleMs: number;
  /** Fail when this long passes since subscription, resets or not. Default: no maximum. */
  readonly totalMs?: number;
  /** Each value restarts the idle timer: typically the progress notifications for this request. */
  readonly resets?: ObservableInput<unknown>;
  /**
   * Whether the source's own values restart the idle timer too. Default `true`: a streamed result
   * that keeps producing values is alive, and for a single response it makes no difference (the
   * response is the last thing). Set `false` to let only `resets` count.
   */
  readonly resetOnValue?: boolean;
  /** Method and id, carried by the error so its message says which request timed out. */
  readonly context?: RequestLocation;
  /** Where the deadlines are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Mirrors the source, and errors with a {@link RequestTimeoutError} when a deadline passes first:
 * `'idle'` when `idleMs` passes without a reset (a value of `resets`, or of the source unless
 * `resetOnValue` is `false`), `'total'` when `totalMs` passes since subscription.
 *
 * Cold: the clocks start when it is subscribed, separately for each subscriber. When a deadline
 * fires, the source is unsubscribed before the error is delivered (unsubscribing a request is what
 * cancels it upstream). Unsubscribing, completing or erroring releases the source, the timers and
 * `resets`. `resets` is subscribed before the source, so progress a source provokes synchronously
 * is not missed; an error from `resets` is forwarded. A reset delivered in the same instant as the
 * idle deadline, but before the deadline's timer runs, keeps the request alive. When both deadlines
 * fall in the same instant, `'total'` wins.
 *
 * To send `notifications/cancelled` on a timeout, place this operator before (upstream of)
 * `cancelRequestOnUnsubscribe`, which turns a `RequestTimeoutError` into a cancellation whose
 * reason is the error's message.
 *
 * @throws RangeError at call time when `idleMs` or `totalMs` is negative or NaN.
 *
 * @example
 * ```ts
 * const result$ = send(request).pipe(
 *   timeoutWithReset({ idleMs: 60_000, totalMs: 600_000, resets: progress$, context: { method, id } }),
 *   cancelRequestOnUnsubscribe({ requestId: id, send: (n) => transport.send(n) }),
 * );
 * ```
 */
export function timeoutWithReset<T>(options: TimeoutWithResetOptions): MonoTypeOperatorFunction<T> {
  const { idleMs, totalMs = Infinity, resets, resetOnValue = true, context, scheduler = asyncScheduler } = options;
  if (!(idleMs >= 0)) throw new RangeError(`timeoutWithReset: idleMs must be a non-negative number, got ${idleMs}`);
  if (!(totalMs >= 0)) throw new RangeError(`timeoutWithReset: totalMs must be a non-negative number, got ${totalMs}`);

  return (source) =>
    new Observable<T>((subscriber) => {
      const watch = new TimeoutWatch(subscriber, idleMs, scheduler, context);
      watch.startClock(totalMs);
      if (resets !== undefined) {
        watch.resets = from(resets).subscribe({ next: () => watch.resetIdle(), error: (error) => watch.fail(error) });
      }
      if (!watch.done) {
        watch.source = source.subscribe({
          next: (value) => {
            if (resetOnValue) watch.resetIdle();
            subscriber.next(value);
          },
          error: (error: unknown) => watch.fail(error),
          complete: () => {
            watch.release();
            subscriber.complete();
          },
        });
      }
      return () => watch.release();
    });
}

/**
 * One subscription of {@link timeoutWithReset}: the request clock the connection's requests run,
 * on a `Deadlines` of its own, with the source and `resets` it releases.
 */
class TimeoutWatch<T> extends RequestClock {
  // Assigned in the constructor, as the base's are (see RequestClock).
  declare source: Subscription | undefined;
  declare resets: Subscription | undefined;
  declare done: boolean;
  declare private readonly subscriber: Subscriber<T>;
  declare private readonly context: RequestLocation | undefined;

  constructor(
    subscriber: Subscriber<T>,
    idleMs: number,
    scheduler: SchedulerLike,
    context: RequestLocation | undefined,
  ) {
    super(idleMs, scheduler, new Deadlines(scheduler, false));
    this.source = undefined;
    this.resets = undefined;
    this.done = false;
    this.subscriber = subscriber;
    this.context = context;
  }

  protected timeoutContext(): RequestLocation | undefined {
    return this.context;
  }

  protected timedOut(error: RequestTimeoutError): void {
    // Release the source first: the request is cancelled before anyone hears of the timeout.
    this.release();
    this.subscriber.error(error);
  }

  fail(error: unknown): void {
    this.release();
    this.subscriber.error(error);
  }

  release(): void {
    if (this.done) return;
    this.done = true;
    this.stopClock();
    this.deadlines.stop();
    this.resets?.unsubscribe();
    this.source?.unsubscribe();
  }
}
