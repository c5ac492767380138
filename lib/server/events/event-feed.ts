/**
 * One followed source of events on the server: the occurrences of one event type for one set of
 * subscription arguments, kept in a bounded ring with increasing positions, so that a poll reads
 * what came after its cursor and a push stream or a webhook subscription hears each one as it
 * comes. The source is subscribed on first use and released when no poll has come for a lease's
 * length while nobody listens.
 */
import type { Observable, SchedulerLike, Subscription } from '../../rx/rxjs';
import { unrefd } from '../../operators/timer-scheduler';
import { JsonRpcError, RxmcpErrorCode } from '../../jsonrpc/errors';
import type { EventOccurrence } from '../../schema/events';

/**
 * The error an event source ends its subscriptions with (design sketch: the server ends a
 * subscription): a source Observable that errors with it is not followed again. Push streams get
 * `notifications/events/terminated` carrying it, then their request's final frame; the next poll
 * with a cursor answers with it; webhook subscriptions get a signed `terminated` body and end. The
 * feed is released, so a later subscription follows the source anew. Any other error a source
 * fails with is recoverable: the feed follows it again after `retryMs`.
 * @example
 * source: () => mail$.pipe(takeUntil(revoked$.pipe(map(() => {
 *   throw new EventsTerminated(-32012, 'Forbidden', { reason: 'Access revoked' });
 * }))))
 */
export class EventsTerminated extends JsonRpcError {
  override readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.EventsTerminated;
  override readonly name: string = 'EventsTerminated';
}

/** What an event source emits: the payload, and optionally its own id and time. */
export interface EventEmission {
  /** The occurrence's payload: its `data`. */
  readonly data: Record<string, unknown>;
  /** The upstream's stable id, when it has one (the SDK makes one otherwise). */
  readonly eventId?: string;
  /** When it occurred; default: when it was emitted. */
  readonly timestamp?: string | Date;
}

/** A position in a feed and what was read from it. */
export interface FeedRead {
  /** The occurrences after the cursor, oldest first. */
  readonly events: readonly EventOccurrence[];
  /** Where the next read starts: the position of the last occurrence read (or of the newest, when none was). */
  readonly cursor: string;
  /** Whether occurrences between the cursor and the first one read were lost (no longer kept). */
  readonly truncated: boolean;
  /** Whether more occurrences wait after these than the read's maximum let through. */
  readonly hasMore: boolean;
}

/** An occurrence with its position in the feed. */
export interface FeedEntry {
  /** Its position: one more than the one before it in the feed; its cursor is `String(position)`. */
  readonly position: number;
  /** The occurrence as a client gets it. */
  readonly occurrence: EventOccurrence;
}

/** Who hears a feed's occurrences as they come (a push stream, a webhook subscription). */
export interface FeedListener {
  /** Hears one new occurrence, in order, once. */
  next(entry: FeedEntry): void;
  /** The source failed; the feed follows it again after `retryMs` while anyone listens. */
  error(error: unknown): void;
  /**
   * The source ended its subscriptions with `error` (an {@link EventsTerminated}): the listener
   * hears nothing more and is stopped. A listener without it hears `error` instead.
   */
  terminated?(error: JsonRpcError): void;
  /**
   * Occurrences up to position `through` were lost to this listener (a shared feed's were trimmed
   * before this process read them, or its source was not followed for a while). Never called by
   * the in-memory feed.
   */
  skipped?(through: number): void;
}

/** What listening to a feed gives: what to replay first, from where, and how to stop. */
export interface FeedListening {
  /** The position the listener starts after when nothing is replayed (the newest at the time). */
  readonly head: number;
  /** The occurrences after the listener's cursor, in order, that it hears before any new one. */
  readonly replay: readonly FeedEntry[];
  /** Whether occurrences between the cursor and the replay were lost (trimmed, or never followed). */
  readonly truncated: boolean;
  /** Stops the listener hearing new occurrences; the feed stays followed while others listen or poll. */
  stop(): void;
}

/** How a feed is made: in memory (`EventFeed`), or shared (`SharedFeedOptions` adds its key). */
export interface EventFeedOptions {
  /** The event type: each occurrence's `name`, and the prefix of the ids the SDK makes. */
  readonly name: string;
  /** Subscribes to the event type's source for the feed's arguments (the definition's `source`). */
  readonly source: () => Observable<EventEmission>;
  /** Occurrences kept for polls and replays. */
  readonly capacity: number;
  /** Released when no poll came for this long and nobody listens. */
  readonly leaseMs: number;
  /** The wait before following a failed source again, while anyone listens. */
  readonly retryMs: number;
  /** Where the lease and retries (and a shared feed's reads and renewals) are timed. */
  readonly scheduler: SchedulerLike;
  /** Told when the feed is released. */
  readonly onIdle: () => void;
}

export class EventFeed {
  private readonly ring: FeedEntry[] = [];
  /** The position of the last occurrence kept (0 before any). */
  private position = 0;
  private subscription: Subscription | undefined;
  private lease: Subscription | undefined;
  private retry: Subscription | undefined;
  private readonly listeners = new Set<FeedListener>();
  /** Why the source ended its subscriptions, until a fresh subscription follows it again. */
  private ended: JsonRpcError | undefined;

  constructor(private readonly options: EventFeedOptions) {}

  /** Reads what came after `cursor` (null: from now on), at most `max` occurrences. */
  read(cursor: string | null, max: number): FeedRead {
    // A cursor belongs to a subscription the source may have ended; a null one starts a fresh one.
    if (this.ended && cursor !== null) throw this.ended;
    this.follow();
    this.renewLease();
    if (this.ended) throw this.ended;
    if (cursor === null) return { events: [], cursor: String(this.position), truncated: false, hasMore: false };
    const { entries, from, truncated } = this.after(cursor);
    const taken = entries.slice(0, max);
    return {
      events: taken.map((entry) => entry.occurrence),
      cursor: String(taken.at(-1)?.position ?? Math.max(from, this.oldest - 1)),
      truncated,
      hasMore: entries.length > taken.length,
    };
  }

  /**
   * What a stream resuming from `cursor` (null: from now on) should replay, and whether
   * occurrences were skipped; then `listener` hears each new one until the returned function is
   * called. The feed stays followed while anyone listens.
   */
  listen(cursor: string | null, listener: FeedListener): FeedListening {
    this.follow();
    // The source ended the fresh subscription at once: the stream or subscribe answers with why.
    if (this.ended) throw this.ended;
    this.lease?.unsubscribe();
    const { entries, truncated } = cursor === null ? { entries: [], truncated: false } : this.after(cursor);
    this.listeners.add(listener);
    const stop = () => {
      if (!this.listeners.delete(listener)) return;
      if (this.listeners.size === 0) this.renewLease();
    };
    return { head: this.position, replay: entries, truncated, stop };
  }

  /**
   * Ends every subscription of the feed with `error`, as a source that errors with it does (its
   * event type is no longer served, or changed): the source is let go, and followed anew only by
   * a fresh subscription.
   */
  end(error: EventsTerminated): void {
    this.close();
    this.terminate(error);
  }

  /** Stops following the source. */
  close(): void {
    this.subscription?.unsubscribe();
    this.lease?.unsubscribe();
    this.retry?.unsubscribe();
    this.subscription = this.lease = this.retry = undefined;
  }

  private get oldest(): number {
    return this.ring.length === 0 ? this.position + 1 : this.ring[0]!.position;
  }

  private after(cursor: string): { entries: FeedEntry[]; from: number; truncated: boolean } {
    const asked = Number(cursor);
    const from = Number.isSafeInteger(asked) && asked >= 0 && asked <= this.position ? asked : this.position;
    return {
      entries: this.ring.filter((entry) => entry.position > from),
      from,
      truncated: from < this.oldest - 1,
    };
  }

  private renewLease(): void {
    this.lease?.unsubscribe();
    if (this.listeners.size > 0) return;
    // A lease never keeps the process alive by itself.
    this.lease = unrefd(
      this.options.scheduler,
      () => {
        if (this.listeners.size > 0) return;
        this.close();
        this.options.onIdle();
      },
      this.options.leaseMs,
    );
  }

  private follow(): void {
    if (this.subscription || this.retry) return;
    this.ended = undefined;
    const subscription = this.options.source().subscribe({
      next: (emission) => this.keep(emission),
      error: (error: unknown) => this.failed(error),
    });
    // A source that ended its subscriptions as it was subscribed is not followed.
    this.subscription = this.ended ? undefined : subscription;
  }

  private failed(error: unknown): void {
    this.subscription = undefined;
    if (error instanceof EventsTerminated) return this.terminate(error);
    if (this.listeners.size === 0) return;
    for (const listener of [...this.listeners]) listener.error(error);
    this.retry = this.options.scheduler.schedule(() => {
      this.retry = undefined;
      if (this.listeners.size > 0) this.follow();
    }, this.options.retryMs);
  }

  /** The source ended its subscriptions: each listener hears why and is dropped; the lease then releases the feed. */
  private terminate(error: EventsTerminated): void {
    this.ended = error;
    const ended = [...this.listeners];
    this.listeners.clear();
    for (const listener of ended) {
      if (listener.terminated) listener.terminated(error);
      else listener.error(error);
    }
    this.renewLease();
  }

  private keep(emission: EventEmission): void {
    const position = ++this.position;
    const { timestamp } = emission;
    const entry: FeedEntry = {
      position,
      occurrence: {
        eventId: emission.eventId ?? `${this.options.name}-${position}`,
        name: this.options.name,
        timestamp: timestamp instanceof Date ? timestamp.toISOString() : (timestamp ?? new Date().toISOString()),
        data: emission.data,
      },
    };
    this.ring.push(entry);
    if (this.ring.length > this.options.capacity) this.ring.shift();
    for (const listener of [...this.listeners]) listener.next(entry);
  }
}
