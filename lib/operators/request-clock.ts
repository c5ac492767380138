import type { SchedulerLike, Subscription } from '../rx/rxjs';
import { RequestTimeoutError } from '../jsonrpc/errors';
import type { RequestLocation } from '../jsonrpc/errors';
import type { Deadlines, Expiring } from './deadlines';

/** The total deadline's work, with the clock as its state: no closure per request. */
function expireTotal(clock?: RequestClock): void {
  clock?.expireTotal();
}

/**
 * The two deadlines of one request, as `timeoutWithReset` defines them and the connection's request
 * path runs them: an idle deadline that `resetIdle` moves later (progress, or a value of a
 * streamed result) and a total one that nothing moves. The idle deadline waits on a shared
 * {@link Deadlines} (one timer for every request of a connection), the total one, rarer, on a
 * scheduled action of its own. When both fall in the same instant, `'total'` wins.
 *
 * One object per request, extended by what the request is (a call in flight, an operator's
 * subscription): `timedOut` is told once, and the clock is stopped by then. A subclass calls
 * `stopClock` when the request settles otherwise.
 */
export abstract class RequestClock implements Expiring {
  // Fields are assigned in the constructor rather than declared with values: V8 defines a derived
  // class's declared fields after its base's, which costs more than assignments, and one clock is
  // made for every request.
  /** When the idle deadline expires (read by the `Deadlines`); `Infinity` while not armed. */
  declare deadline: number;
  /** Where the `Deadlines` holds this clock. */
  declare deadlineIndex: number;
  declare protected readonly idleMs: number;
  declare protected readonly scheduler: SchedulerLike;
  declare protected readonly deadlines: Deadlines;
  declare private totalAt: number;
  declare private totalMs: number;
  declare private totalTimer: Subscription | undefined;
  declare private running: boolean;

  /**
   * @param idleMs the idle deadline; `Infinity` for none.
   * @param scheduler where both are timed.
   * @param deadlines where the idle deadline waits (shared by a connection's requests).
   */
  constructor(idleMs: number, scheduler: SchedulerLike, deadlines: Deadlines) {
    this.deadline = Infinity;
    this.deadlineIndex = -1;
    this.idleMs = idleMs;
    this.scheduler = scheduler;
    this.deadlines = deadlines;
    this.totalAt = Infinity;
    this.totalMs = Infinity;
    this.totalTimer = undefined;
    this.running = true;
  }

  /** Told once, when a deadline passed first; the clock is stopped. */
  protected abstract timedOut(error: RequestTimeoutError): void;

  /** Method and id for the error's message. */
  protected abstract timeoutContext(): RequestLocation | undefined;

  /**
   * Starts both deadlines: the total one first, so that it wins a tie. `totalMs` is `Infinity`
   * for none.
   */
  startClock(totalMs: number): void {
    if (Number.isFinite(totalMs)) {
      this.totalMs = totalMs;
      this.totalAt = this.scheduler.now() + totalMs;
      this.totalTimer = this.scheduler.schedule(expireTotal, totalMs, this);
    }
    this.resetIdle();
  }

  /**
   * Moves the idle deadline to `idleMs` from now. A reset in the same instant as the deadline, but
   * before its timer ran, keeps the request alive.
   */
  resetIdle(): void {
    if (!this.running || !Number.isFinite(this.idleMs)) return;
    const first = this.deadline === Infinity;
    this.deadline = this.scheduler.now() + this.idleMs;
    if (first) this.deadlines.add(this);
  }

  /** Stops both deadlines (the request settled); nothing fires after. */
  stopClock(): void {
    this.running = false;
    if (this.deadline !== Infinity) this.deadlines.delete(this);
    this.totalTimer?.unsubscribe();
    this.totalTimer = undefined;
  }

  /** The `Deadlines`' call: the idle deadline passed (the total one wins a tie). */
  onDeadline(): void {
    if (this.totalAt <= this.deadline) this.expire('total', this.totalMs);
    else this.expire('idle', this.idleMs);
  }

  /** The total deadline's scheduled work. */
  expireTotal(): void {
    this.totalTimer = undefined;
    this.expire('total', this.totalMs);
  }

  private expire(which: 'idle' | 'total', afterMs: number): void {
    if (!this.running) return;
    this.stopClock();
    this.timedOut(new RequestTimeoutError(which, afterMs, this.timeoutContext()));
  }
}
