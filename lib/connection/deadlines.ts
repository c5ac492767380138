import { asyncScheduler } from '../rx/rxjs';
import type { SchedulerLike, Subscription } from '../rx/rxjs';
import { timerScheduler } from '../operators/timer-scheduler';
import type { TimerAction } from '../operators/timer-scheduler';

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
  /** The others, made when a second deadline waits: an idle connection keeps none. */
  private waiting: Set<Expiring> | undefined = undefined;
  private action: Subscription | TimerAction | undefined;
  private armedFor = Infinity;
  private readonly scheduler: SchedulerLike;

  constructor(scheduler: SchedulerLike) {
    this.scheduler = scheduler === asyncScheduler ? timerScheduler : scheduler;
  }

  /** How many deadlines are waiting. */
  get size(): number {
    return (this.one === undefined ? 0 : 1) + (this.waiting?.size ?? 0);
  }

  add(entry: Expiring): void {
    if (this.one === entry || this.waiting?.has(entry)) return;
    if (this.one === undefined) this.one = entry;
    else (this.waiting ??= new Set()).add(entry);
    if (entry.deadline < this.armedFor) this.arm(entry.deadline);
    else if (this.size === 1) (this.action as Partial<TimerAction> | undefined)?.ref?.();
  }

  delete(entry: Expiring): void {
    if (this.one === entry) this.one = undefined;
    else if (!this.waiting?.delete(entry)) return;
    if (this.size === 0) (this.action as Partial<TimerAction> | undefined)?.unref?.();
  }

  stop(): void {
    this.disarm();
    this.one = undefined;
    this.waiting?.clear();
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
    const waiting = this.waiting;
    if (waiting !== undefined) {
      for (const entry of waiting) {
        if (entry.deadline <= now) due.push(entry);
        else if (entry.deadline < next) next = entry.deadline;
      }
      for (const entry of due) waiting.delete(entry);
    }
    if (next < Infinity) this.arm(next);
    for (const entry of due) entry.onDeadline();
  }
}
