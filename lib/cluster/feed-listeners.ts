/**
 * The listeners one process holds on a shared event feed, and the position it has handed on to
 * them: each hears every occurrence after the position it started from once, in order, whether the
 * occurrence comes from this process's own append (it leads the feed) or from reading the stream
 * (another process leads). A listener joins before its first read answers, so that nothing handed
 * on meanwhile is missed: until then what comes waits with it.
 */
import type { EventsTerminated, FeedEntry, FeedListener } from '../server/events/event-feed';

/** One listener and where it starts. */
export interface LocalListener {
  readonly listener: FeedListener;
  /** The position it starts after; undefined until its first read answers. */
  from: number | undefined;
  /** What was handed on before it started: occurrences, and gaps (the position lost up to). */
  early: Array<FeedEntry | number>;
}

export class FeedListeners {
  private readonly all = new Set<LocalListener>();
  /** The position handed on (or lost) up to; undefined while no read has said where the feed is. */
  private delivered: number | undefined;

  /** How many listen. */
  get size(): number {
    return this.all.size;
  }

  /** Where to read on from, for a tail: the position handed on up to. */
  get position(): number | undefined {
    return this.delivered;
  }

  /** Adds a listener that starts once its first read answers ({@link FeedListeners.start}). */
  add(listener: FeedListener): LocalListener {
    const local: LocalListener = { listener, from: undefined, early: [] };
    this.all.add(local);
    return local;
  }

  /**
   * Starts `local` after position `head`: answers what was handed on meanwhile beyond it (to replay
   * after what the read found), and whether occurrences beyond it were lost meanwhile.
   */
  start(local: LocalListener, head: number): { entries: FeedEntry[]; skipped: boolean } {
    local.from = head;
    const entries: FeedEntry[] = [];
    let skipped = false;
    for (const item of local.early) {
      if (typeof item === 'number') skipped ||= item > head;
      else if (item.position > head) entries.push(item);
    }
    local.early = [];
    return { entries, skipped };
  }

  /** Removes a listener; false when it was not there. */
  remove(local: LocalListener): boolean {
    return this.all.delete(local);
  }

  /** A read found the feed at `last`: where the count starts when nothing was counted yet. */
  know(last: number): void {
    this.delivered ??= last;
  }

  /**
   * Counts from `last` at least, what was handed on before it being no one's concern: for the first
   * listener of a process that does not lead, so that its reads start where it does.
   */
  rebase(last: number): void {
    this.delivered = Math.max(this.delivered ?? last, last);
  }

  /**
   * This process appended `entry` at its position (or, with none, left the position empty): handed
   * on when it is the next one (true); false when what came between must be read first (another
   * process appended it, or this process starts leading).
   */
  appended(position: number, entry?: FeedEntry): boolean {
    if (this.all.size === 0) this.delivered = Math.max(this.delivered ?? 0, position);
    else if (this.delivered === undefined || position !== this.delivered + 1) return false;
    else if (entry) this.hand(entry);
    else this.gap(position);
    return true;
  }

  /**
   * A read of the stream after {@link FeedListeners.position} found `entries`, with the feed at
   * `last`: each new one is handed on in order, and a hole before one (or before `last`) is said
   * as a gap (unless `complete` is false: the read stopped at its count). A `last` behind what was
   * handed on means Redis lost the feed and its positions started again: the count starts again.
   */
  caughtUp(entries: readonly FeedEntry[], last: number, complete: boolean): void {
    if (this.delivered === undefined) {
      this.know(last);
      return;
    }
    if (last < this.delivered) {
      this.delivered = 0;
      for (const local of this.all) if (local.from !== undefined) local.from = 0;
    }
    for (const entry of entries) {
      if (entry.position <= this.delivered) continue;
      if (entry.position > this.delivered + 1) this.gap(entry.position - 1);
      this.hand(entry);
    }
    if (complete && last > this.delivered) this.gap(last);
  }

  /**
   * The source ended its subscriptions at `position`: every listener that started before it hears
   * why and is removed. Answers whether any listener is left.
   */
  terminated(position: number, error: EventsTerminated): boolean {
    this.delivered = Math.max(this.delivered ?? position, position);
    for (const local of [...this.all]) {
      if (local.from === undefined || local.from >= position) continue;
      this.all.delete(local);
      if (local.listener.terminated) local.listener.terminated(error);
      else local.listener.error(error);
    }
    return this.all.size > 0;
  }

  /** Tells every listener that the source failed. */
  failed(error: unknown): void {
    for (const local of [...this.all]) if (local.from !== undefined) local.listener.error(error);
  }

  private hand(entry: FeedEntry): void {
    this.delivered = entry.position;
    for (const local of [...this.all]) {
      if (local.from === undefined) local.early.push(entry);
      else if (entry.position > local.from) local.listener.next(entry);
    }
  }

  private gap(through: number): void {
    this.delivered = through;
    for (const local of [...this.all]) {
      if (local.from === undefined) local.early.push(through);
      else if (through > local.from) local.listener.skipped?.(through);
    }
  }
}
