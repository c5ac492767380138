/**
 * One followed source of events on the server: the occurrences of one event type for one set of
 * subscription arguments, kept in a bounded ring with increasing positions, so that a poll reads
 * what came after its cursor. The source is subscribed on the first poll and released when no
 * poll has come for a lease's length.
 */
import type { Observable, SchedulerLike, Subscription } from '../../rx/rxjs';
import type { TimerAction } from '../../operators/timer-scheduler';
import type { EventOccurrence } from '../../schema/events';

/** What an event source emits: the payload, and optionally its own id and time. */
export interface EventEmission {
  readonly data: Record<string, unknown>;
  /** The upstream's stable id, when it has one (the SDK makes one otherwise). */
  readonly eventId?: string;
  /** When it occurred; default: when it was emitted. */
  readonly timestamp?: string | Date;
}

/** A position in a feed and what was read from it. */
export interface FeedRead {
  readonly events: readonly EventOccurrence[];
  readonly cursor: string;
  readonly truncated: boolean;
  readonly hasMore: boolean;
}

export class EventFeed {
  private readonly ring: Array<{ position: number; occurrence: EventOccurrence }> = [];
  /** The position of the last occurrence kept (0 before any). */
  private head = 0;
  private subscription: Subscription | undefined;
  private lease: Subscription | undefined;

  constructor(
    private readonly name: string,
    private readonly source: () => Observable<EventEmission>,
    private readonly capacity: number,
    private readonly leaseMs: number,
    private readonly scheduler: SchedulerLike,
    private readonly onIdle: () => void,
  ) {}

  /** Reads what came after `cursor` (null: from now on), at most `max` occurrences. */
  read(cursor: string | null, max: number): FeedRead {
    this.follow();
    if (cursor === null) return { events: [], cursor: String(this.head), truncated: false, hasMore: false };
    const from = Number(cursor);
    const after = Number.isSafeInteger(from) && from >= 0 && from <= this.head ? from : this.head;
    const oldest = this.ring.length === 0 ? this.head + 1 : this.ring[0]!.position;
    const waiting = this.ring.filter((entry) => entry.position > after);
    const taken = waiting.slice(0, max);
    const last = taken.at(-1)?.position ?? Math.max(after, oldest - 1);
    return {
      events: taken.map((entry) => entry.occurrence),
      cursor: String(last),
      truncated: after < oldest - 1,
      hasMore: waiting.length > taken.length,
    };
  }

  /** Stops following the source. */
  close(): void {
    this.subscription?.unsubscribe();
    this.lease?.unsubscribe();
    this.subscription = this.lease = undefined;
  }

  private follow(): void {
    this.lease?.unsubscribe();
    this.lease = this.scheduler.schedule(() => {
      this.close();
      this.onIdle();
    }, this.leaseMs);
    // A lease never keeps the process alive by itself.
    (this.lease as Partial<TimerAction>).unref?.();
    this.subscription ??= this.source().subscribe({
      next: (emission) => this.keep(emission),
      error: () => this.close(),
    });
  }

  private keep(emission: EventEmission): void {
    const position = ++this.head;
    const { timestamp } = emission;
    this.ring.push({
      position,
      occurrence: {
        eventId: emission.eventId ?? `${this.name}-${position}`,
        name: this.name,
        timestamp: timestamp instanceof Date ? timestamp.toISOString() : (timestamp ?? new Date().toISOString()),
        data: emission.data,
      },
    });
    if (this.ring.length > this.capacity) this.ring.shift();
  }
}
