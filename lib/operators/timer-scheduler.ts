/**
 * A scheduler on Node timers whose actions can stop keeping the process alive (`unref`) and start
 * again (`ref`): for deadlines that must not hold a process open once nothing waits on them. Time
 * is `Date.now()`, as on RxJS's `asyncScheduler`. In browsers, `ref` and `unref` do nothing.
 */
import { Subscription } from '../rx/rxjs';
import type { SchedulerAction, SchedulerLike } from '../rx/rxjs';

/** An action of {@link timerScheduler}: a subscription that can also ref and unref its timer. */
export interface TimerAction<T = unknown> extends SchedulerAction<T> {
  /** The timer keeps the process alive (the default). */
  ref(): void;
  /** The timer no longer keeps the process alive; it still fires if the process lives. */
  unref(): void;
}

type Timer = ReturnType<typeof setTimeout> & { ref?(): void; unref?(): void };

/** Runs an action's work when its timer fires (one function for every timer: no closure each). */
function runAction<T>(action: NodeTimerAction<T>, state: T | undefined): void {
  action.run(state);
}

class NodeTimerAction<T> extends Subscription implements TimerAction<T> {
  private timer: Timer | undefined = undefined;
  private held = true;

  constructor(private readonly work: (this: SchedulerAction<T>, state?: T) => void) {
    super();
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.clear();
    this.timer = setTimeout(runAction, delay, this, state) as Timer;
    if (!this.held) this.timer.unref?.();
    return this;
  }

  run(state: T | undefined): void {
    this.timer = undefined;
    this.work.call(this, state);
    // A one-shot action ends once its work ran without scheduling itself again.
    if (this.timer === undefined) this.unsubscribe();
  }

  override unsubscribe(): void {
    this.clear();
    super.unsubscribe();
  }

  ref(): void {
    this.held = true;
    this.timer?.ref?.();
  }

  unref(): void {
    this.held = false;
    this.timer?.unref?.();
  }

  private clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** A scheduler whose `schedule` returns a {@link TimerAction}. */
export interface TimerScheduler extends SchedulerLike {
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): TimerAction<T>;
}

/** The scheduler. */
export const timerScheduler: TimerScheduler = {
  now: () => Date.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): TimerAction<T> {
    const action = new NodeTimerAction<T>(work);
    action.schedule(state, delay);
    return action;
  },
};

/**
 * Runs `work` after `delay` on `scheduler`, keeping no process alive for it where the scheduler's
 * actions can let go of their timer (see {@link TimerAction}): for leases, renewals and polls that
 * go on only while something else keeps the process running.
 */
export function unrefd(scheduler: SchedulerLike, work: () => void, delay: number): Subscription {
  const action = scheduler.schedule(work, delay);
  (action as Partial<TimerAction>).unref?.();
  return action;
}
