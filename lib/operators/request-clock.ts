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
  /** When the idle deadline expires (read by the `Deadlines`); `Infinity` while not armed. */
  deadline = Infinity;
  /** Where the `Deadlines` holds this clock. */
  deadlineIndex = -1;
  private totalAt = Infinity;
  private totalMs = Infinity;
  private totalTimer: Subscription | undefined = undefined;
  private running = true;

  /**
   * @param idleMs the idle deadline; `Infinity` for none.
   * @param scheduler where both are timed.
   * @param deadlines where the idle deadline waits (shared by a connection's requests).
   */
  constructor(
    protected readonly idleMs: number,
    protected readonly scheduler: SchedulerLike,
    protected readonly deadlines: Deadlines,
  ) {}

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
