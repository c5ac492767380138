/**
 * The delayed events of one `LifecycleRunner`, kept as an XState actor system's scheduler keeps
 * them, on an RxJS scheduler instead of a clock. Made by the runner only when a delay exists.
 */
import type { SchedulerLike, Subscription } from '../rx/rxjs';

/** A delayed event as it is persisted: what it raises, under which id, and when it was scheduled for how long. */
export interface PersistedScheduledEvent {
  readonly id: string;
  readonly event: { readonly type: string };
  /** The full delay, in the scheduler's time unit (milliseconds for the default scheduler). */
  readonly delay: number;
  /** `scheduler.now()` when the event was scheduled: it fires at `startedAt + delay`. */
  readonly startedAt: number;
  /** Set when the event runs but its id no longer names it (see {@link ScheduledEvents}). */
  readonly superseded?: true;
}

/** A pending delayed event and its timer. */
interface Pending extends PersistedScheduledEvent {
  timer?: Subscription;
}

let anonymous = 0;

/** An id for a delayed event raised without one: XState makes a random one, so that two such events never meet. */
function anonymousId(): string {
  return `xstate.delay.${Math.random().toString(36).slice(2)}.${++anonymous}`;
}

/**
 * Pending delayed events, with XState's semantics (its system scheduler): an event without an id
 * gets a unique one; `cancel(id)` cancels the event last scheduled under `id`; an event scheduled
 * under an id that is pending takes the id over while the earlier one still fires, and an event
 * that fires frees its id whichever event holds it then, as an XState actor's do; `cancelAll` (the
 * actor stops) cancels the events held under an id, not the others.
 */
export class ScheduledEvents {
  /** The event each id names now (XState's timer map). */
  private readonly byId = new Map<string, Pending>();
  /** Every event whose timer runs, in the order they were scheduled. */
  private readonly live = new Set<Pending>();

  constructor(
    private readonly scheduler: SchedulerLike,
    /** Receives each event when it fires. */
    private readonly deliver: (event: { readonly type: string }) => void,
  ) {}

  /** Whether no timer runs: the runner then drops this object. */
  get empty(): boolean {
    return this.live.size === 0;
  }

  /**
   * Schedules `event` after `delay`; with `startedAt` in the past (a restore), after what is left of
   * it. A delay that is not finite never fires, so it is not kept.
   */
  schedule(
    event: { readonly type: string },
    delay: number,
    id = anonymousId(),
    startedAt = this.scheduler.now(),
  ): void {
    if (!Number.isFinite(delay)) return;
    const pending: Pending = { id, event, delay, startedAt };
    this.byId.set(id, pending);
    this.live.add(pending);
    const left = Math.min(delay, Math.max(0, startedAt + delay - this.scheduler.now()));
    pending.timer = this.scheduler.schedule(() => this.fire(pending), left);
  }

  /** Cancels the event last scheduled under `id`, if it is pending. */
  cancel(id: string): void {
    const pending = this.byId.get(id);
    if (pending === undefined) return;
    this.byId.delete(id);
    this.live.delete(pending);
    pending.timer?.unsubscribe();
  }

  /** Cancels every event held under an id. */
  cancelAll(): void {
    for (const pending of this.byId.values()) {
      this.live.delete(pending);
      pending.timer?.unsubscribe();
    }
    this.byId.clear();
  }

  /** The pending events, in the order they were scheduled. */
  persist(): PersistedScheduledEvent[] {
    return Array.from(this.live, (pending) => {
      const { id, event, delay, startedAt } = pending;
      return this.byId.get(id) === pending
        ? { id, event, delay, startedAt }
        : { id, event, delay, startedAt, superseded: true };
    });
  }

  /** Schedules again events persisted by {@link persist}, each for the time it has left. */
  restore(persisted: readonly unknown[]): void {
    for (const item of persisted) {
      const entry = checkedEntry(item);
      this.schedule(entry.event, entry.delay, entry.id, entry.startedAt);
      // It runs, but not under its id: a later event took the id, or an earlier one freed it.
      if (entry.superseded) this.byId.delete(entry.id);
    }
  }

  private fire(pending: Pending): void {
    this.live.delete(pending);
    // As XState's scheduler does: the id is freed, whichever event holds it now.
    this.byId.delete(pending.id);
    this.deliver(pending.event);
  }
}

/** `item` as a persisted scheduled event, or a TypeError that says what is wrong with it. */
function checkedEntry(item: unknown): PersistedScheduledEvent {
  const entry = item as Partial<PersistedScheduledEvent> | null;
  if (
    typeof entry !== 'object' ||
    entry === null ||
    typeof entry.id !== 'string' ||
    typeof entry.event !== 'object' ||
    entry.event === null ||
    typeof entry.event.type !== 'string' ||
    typeof entry.delay !== 'number' ||
    typeof entry.startedAt !== 'number'
  ) {
    throw new TypeError(
      `lifecycle snapshot: a scheduled event must have an id, an event with a type, a delay and startedAt; got ${JSON.stringify(item)}`,
    );
  }
  return entry as PersistedScheduledEvent;
}
