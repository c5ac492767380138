import { asyncScheduler } from '../rx/rxjs';
import type { SchedulerLike, Subscription } from '../rx/rxjs';
import { timerScheduler } from './timer-scheduler';
import type { TimerAction } from './timer-scheduler';

/** The work of a `Deadlines` action, with the deadlines as its state: no closure per arming. */
function fireDeadlines(deadlines?: Deadlines): void {
  deadlines?.fire();
}

/** Something with a deadline on a `Deadlines` timer. */
export interface Expiring {
  /** When it expires, in the scheduler's time; may move later while it waits. */
  readonly deadline: number;
  /** Called once when `deadline` has passed; it has been removed by then. */
  onDeadline(): void;
  /** Where a `Deadlines` holds it (written by the `Deadlines` only): it needs no set to be found. */
  deadlineIndex?: number;
}

/**
 * The idle deadlines of one connection's requests on one scheduled action. A request adds itself
 * and removes itself when it settles, and progress moves its deadline later, all without touching
 * a timer: the action is re-armed only when it fires or when an earlier deadline arrives. (A timer
 * set and cleared per request cost a Node timer list built and torn down per call in sequential
 * use.) The action is left armed when the last request settles; `stop()` ends it when the
 * connection closes. On the default scheduler it runs on `timerScheduler`, whose timer keeps the
 * process alive only while a deadline waits, as a timer per request did; other schedulers (virtual
 * time) are used as they are.
 */
export class Deadlines {
  /** The one deadline of a connection making one call at a time: no set is made for it. */
  private one: Expiring | undefined = undefined;
  /**
   * The others, made when a second deadline waits (an idle connection keeps none), each at its
   * `deadlineIndex`, the first `count` slots in use. The array only grows: a set rebuilt as calls
   * come and go left old-generation garbage behind on a busy long-lived connection.
   */
  private others: Array<Expiring | undefined> | undefined = undefined;
  private count = 0;
  private action: Subscription | TimerAction | undefined;
  private armedFor = Infinity;
  private readonly scheduler: SchedulerLike;

  /**
   * @param scheduler where the deadlines are timed.
   * @param releasesProcess whether, on the default scheduler, the timer stops keeping the process
   *   alive while no deadline waits (it runs on `timerScheduler` then). Default true; `false` runs
   *   on `scheduler` as it is (an operator's own deadlines, which its subscriber releases).
   */
  constructor(scheduler: SchedulerLike, releasesProcess = true) {
    this.scheduler = releasesProcess && scheduler === asyncScheduler ? timerScheduler : scheduler;
  }

  /** How many deadlines are waiting. */
  get size(): number {
    return (this.one === undefined ? 0 : 1) + this.count;
  }

  add(entry: Expiring): void {
    if (this.one === entry || this.holds(entry)) return;
    if (this.one === undefined) this.one = entry;
    else {
      const index = this.count++;
      (this.others ??= [])[index] = entry;
      entry.deadlineIndex = index;
    }
    if (entry.deadline < this.armedFor) this.arm(entry.deadline);
    else if (this.size === 1) (this.action as Partial<TimerAction> | undefined)?.ref?.();
  }

  delete(entry: Expiring): void {
    if (this.one === entry) this.one = undefined;
    else if (this.holds(entry)) {
      // The last one moves into the freed slot.
      const others = this.others!;
      const index = entry.deadlineIndex!;
      const last = others[--this.count]!;
      others[index] = last;
      last.deadlineIndex = index;
      others[this.count] = undefined;
      entry.deadlineIndex = -1;
    } else return;
    if (this.size === 0) (this.action as Partial<TimerAction> | undefined)?.unref?.();
  }

  stop(): void {
    this.disarm();
    this.one = undefined;
    for (let i = 0; i < this.count; i++) {
      this.others![i]!.deadlineIndex = -1;
      this.others![i] = undefined;
    }
    this.count = 0;
  }

  private holds(entry: Expiring): boolean {
    const index = entry.deadlineIndex;
    return index !== undefined && index >= 0 && index < this.count && this.others![index] === entry;
  }

  private arm(at: number): void {
    this.disarm();
    this.armedFor = at;
    // Node timers take at most 2^31 - 1 ms; a later deadline is reached by re-arming when this one fires.
    const delay = Math.min(Math.max(0, at - this.scheduler.now()), 0x7fffffff);
    this.action = this.scheduler.schedule(fireDeadlines, delay, this);
  }

  private disarm(): void {
    this.action?.unsubscribe();
    this.action = undefined;
    this.armedFor = Infinity;
  }

  /** Expires what is due and re-arms for the next deadline (the scheduled work). */
  fire(): void {
    this.action = undefined;
    this.armedFor = Infinity;
    const now = this.scheduler.now();
    const due: Expiring[] = [];
    let next = Infinity;
    const one = this.one;
    if (one !== undefined) {
      if (one.deadline <= now) {
        due.push(one);
        this.one = undefined;
      } else next = one.deadline;
    }
    const firstOther = due.length;
    for (let i = 0; i < this.count; i++) {
      const entry = this.others![i]!;
      if (entry.deadline <= now) due.push(entry);
      else if (entry.deadline < next) next = entry.deadline;
    }
    for (let i = firstOther; i < due.length; i++) this.delete(due[i]!);
    if (next < Infinity) this.arm(next);
    for (const entry of due) entry.onDeadline();
  }
}
