/**
 * The clock a benchmark reads: `performance.now()` (fractions of a millisecond, monotonic) rather
 * than the `Date.now()` of RxJS's asyncScheduler, whose whole milliseconds would round a call of
 * 0.2 ms to 0 or 1. Timers still run on the asyncScheduler.
 */
import { asyncScheduler } from '../rx/rxjs';
import type { SchedulerAction, SchedulerLike, Subscription } from '../rx/rxjs';

/** The asyncScheduler's timers, with `now()` from `performance.now()`. The engine's default. */
export const performanceScheduler: SchedulerLike = {
  now: () => performance.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
    return asyncScheduler.schedule(work, delay, state);
  },
};
