/**
 * One shared event feed as one process of a cluster holds it (see `redisEventFeeds`). The
 * occurrences live in a Redis Stream; the process that holds the feed's leader lease follows the
 * source and appends to it, and hands its own appends to its listeners at once. The others read:
 * a poll reads after its cursor, and a process with listeners reads the stream every `tailMs`
 * (one timer per feed), handing each new occurrence on once, in order. Every read marks the feed
 * wanted and takes the lease when nobody holds it, so that a process with interest follows the
 * source when its leader died or let go; the leader lets go when nobody wants the feed any more.
 */
import type { Logger } from 'pino';
import type { Subscription } from '../rx/rxjs';
import { unrefd } from '../operators/timer-scheduler';
import { JsonRpcError } from '../jsonrpc/errors';
import { EventsTerminated } from '../server/events/event-feed';
import type { EventEmission, FeedListener, FeedListening, FeedRead } from '../server/events/event-feed';
import type { SharedFeed, SharedFeedOptions } from '../server/events/feed-store';
import { APPEND, MARK, READ, readReplyOf, RELEASE, RENEW, terminationEntry } from './event-feed-scripts';
import type { FeedKeys, ReadReply, StoredOccurrence } from './event-feed-scripts';
import { FeedListeners } from './feed-listeners';
import type { LocalListener } from './feed-listeners';
import type { RedisConnection } from './redis-connection';

/** What the feeds of one store share: the connection, this process's token, the timings. */
export interface FeedStoreContext {
  readonly redis: RedisConnection;
  /** This process's token in the leader keys. */
  readonly me: string;
  readonly tailMs: number;
  readonly leaderTtlMs: number;
  readonly logger: Logger;
}

/** The position a cursor reads after: -1 for null, and for a cursor that is no position (read as now). */
function afterOf(cursor: string | null): number {
  const asked = cursor === null ? -1 : Number(cursor);
  return Number.isSafeInteger(asked) && asked >= 0 ? asked : -1;
}

export class RedisEventFeed implements SharedFeed {
  private readonly listeners = new FeedListeners();
  private leading = false;
  /** The source, while this process leads and follows it. */
  private source: Subscription | undefined;
  private retry: Subscription | undefined;
  private renewal: Subscription | undefined;
  /** Until when the lead is certainly this process's: the last renewal Redis acknowledged. */
  private leadUntil = 0;
  /** An occurrence could not be appended: the next append leaves a position empty first. */
  private lost = false;
  private tailTimer: Subscription | undefined;
  private tailing = false;
  private tailAgain = false;
  private idle: Subscription | undefined;
  private idleDue = false;
  private closed = false;
  /** This process's source ended its subscriptions, and the lead is being given up. */
  private ending = false;

  constructor(
    private readonly io: FeedStoreContext,
    private readonly keys: FeedKeys,
    private readonly options: SharedFeedOptions,
    private readonly released: (feed: RedisEventFeed) => void,
  ) {}

  read(cursor: string | null, max: number): Promise<FeedRead> {
    this.idleFrom();
    const after = afterOf(cursor);
    return this.readAfter(after, max + 1, ({ last, entries, ended }): FeedRead => {
      // A cursor from before the termination belongs to a subscription the source ended.
      if (ended && after >= 0) throw ended.error;
      if (after < 0 || after >= last) return { events: [], cursor: String(last), truncated: false, hasMore: false };
      const taken = entries.slice(0, max);
      return {
        events: taken.map((entry) => entry.occurrence),
        cursor: String(taken.at(-1)?.position ?? last),
        truncated: entries.length === 0 || entries[0]!.position > after + 1,
        hasMore: entries.length > max,
      };
    }).catch((error: unknown) => {
      throw this.storeFailed(error, 'events/poll');
    });
  }

  listen(cursor: string | null, listener: FeedListener): Promise<FeedListening> {
    const local = this.listeners.add(listener);
    this.idle?.unsubscribe();
    this.idleDue = false;
    const after = afterOf(cursor);
    return this.readAfter(after, this.options.capacity, ({ last, entries, ended }): FeedListening => {
      if (ended && after >= 0) throw ended.error;
      if (this.listeners.size === 1 && !this.leading && !this.tailing) this.listeners.rebase(last);
      const early = this.listeners.start(local, last);
      const replay = after < 0 || after >= last ? [] : entries;
      const missed = after >= 0 && after < last && (entries.length === 0 || entries[0]!.position > after + 1);
      this.keepTailing();
      return {
        head: last,
        replay: [...replay, ...early.entries],
        truncated: missed || early.skipped,
        stop: () => this.unlisten(local),
      };
    }).catch((error: unknown) => {
      this.unlisten(local);
      throw this.storeFailed(error, 'events/stream');
    });
  }

  /**
   * Ends the feed's subscriptions with `error` (its event type is no longer served, or changed):
   * when this process follows the source, it lets it go and writes the termination every process
   * reads; otherwise the process that follows it does so when it serves the change too.
   */
  end(error: EventsTerminated): void {
    if (!this.leading) return;
    this.source?.unsubscribe();
    this.retry?.unsubscribe();
    this.source = this.retry = undefined;
    this.terminate(error);
  }

  /** Stops following and reading, and gives the lead up, so that another process takes it at once. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const leading = this.leading;
    this.stopLeading();
    this.closed = true;
    this.tailTimer?.unsubscribe();
    this.idle?.unsubscribe();
    this.released(this);
    this.options.onIdle();
    if (!leading) return Promise.resolve();
    return this.run(RELEASE, [this.io.me]).then(
      () => undefined,
      (error: unknown) => this.io.logger.warn({ err: error, feed: this.keys.leader }, 'event feed lead not given up'),
    );
  }

  /** Runs one of the feed's scripts on its four keys. */
  private run(script: string, args: ReadonlyArray<string | number>): Promise<unknown> {
    const { stream, seq, leader, wanted } = this.keys;
    return this.io.redis.call('EVAL', [script, 4, stream, seq, leader, wanted, ...args]);
  }

  /**
   * Reads after `after` (marking the feed wanted, taking the lead when free), acts on what it says
   * of the lead, and answers what `use` makes of it. `use` runs in the reply's own callback, as do
   * those of appends: the listeners learn what Redis did in the order it did it (one connection
   * answers in order), which is what they count on to hand each occurrence on once.
   */
  private readAfter<T>(after: number, count: number, use: (read: ReadReply) => T): Promise<T> {
    const { me, leaderTtlMs } = this.io;
    return this.run(READ, [after, count, me, leaderTtlMs, this.options.leaseMs]).then((reply) => {
      const read = readReplyOf(reply, this.options.name, (raw) =>
        this.io.logger.error({ entry: raw, feed: this.keys.stream }, 'stored occurrence is malformed: skipped'),
      );
      this.listeners.know(read.last);
      this.led(read.lead);
      return use(read);
    });
  }

  /** What a read said of the lead: this process takes it up, or lost it. */
  private led(lead: boolean): void {
    if (this.closed || this.ending) return;
    if (lead && !this.leading) this.startLeading();
    else if (lead && !this.source && !this.retry) this.follow();
    else if (!lead && this.leading) this.stepDown();
  }

  private startLeading(): void {
    this.leading = true;
    this.leadUntil = this.options.scheduler.now() + this.io.leaderTtlMs;
    this.tailTimer?.unsubscribe();
    this.tailTimer = undefined;
    this.renewEvery(Math.max(1, Math.floor(this.io.leaderTtlMs / 3)));
    this.follow();
    // What the previous leader appended and this process has not read yet.
    if (this.listeners.size > 0) this.tail();
  }

  private renewEvery(periodMs: number): void {
    this.renewal = unrefd(
      this.options.scheduler,
      () => {
        this.renew();
        this.renewEvery(periodMs);
      },
      periodMs,
    );
  }

  private follow(): void {
    // A feed followed before leaves a position empty for what its source did meanwhile.
    this.run(MARK, [this.io.me]).then(
      (reply) => {
        const hole = Number(reply);
        if (hole < 0) this.stepDown();
        else if (hole > 0 && !this.listeners.appended(hole)) this.tail();
      },
      () => {
        this.lost = true;
      },
    );
    this.source = this.options.source().subscribe({
      next: (emission) => this.append(emission),
      error: (error: unknown) => this.failed(error),
    });
  }

  private append(emission: EventEmission): void {
    const { timestamp } = emission;
    const stored: StoredOccurrence = {
      ...(emission.eventId === undefined ? {} : { eventId: emission.eventId }),
      timestamp: timestamp instanceof Date ? timestamp.toISOString() : (timestamp ?? new Date().toISOString()),
      data: emission.data,
    };
    const { capacity, leaseMs, name } = this.options;
    const hole = this.lost ? '1' : '0';
    this.lost = false;
    this.run(APPEND, [this.io.me, capacity, leaseMs, hole, JSON.stringify(stored)]).then(
      (reply) => {
        const position = Number(reply);
        if (position === 0) {
          this.stepDown();
          return;
        }
        const eventId = stored.eventId ?? `${name}-${position}`;
        const entry = { position, occurrence: { eventId, name, timestamp: stored.timestamp, data: stored.data } };
        if (!this.listeners.appended(position, entry)) this.tail();
      },
      (error: unknown) => {
        this.lost = true;
        this.io.logger.warn({ err: error, feed: this.keys.stream }, 'event occurrence lost: the events store failed');
      },
    );
  }

  private failed(error: unknown): void {
    this.source = undefined;
    if (error instanceof EventsTerminated) return this.terminate(error);
    this.listeners.failed(error);
    if (!this.leading) return;
    this.retry = unrefd(
      this.options.scheduler,
      () => {
        this.retry = undefined;
        if (this.leading) this.follow();
      },
      this.options.retryMs,
    );
  }

  /**
   * The source ended its subscriptions: a termination entry goes to the stream, where every
   * process's tails and polls find it (this process's listeners hear it through a tail like
   * theirs), and the lead is given up, so that the next read anywhere follows the source anew.
   */
  private terminate(error: EventsTerminated): void {
    if (!this.leading) return;
    this.ending = true;
    this.stopLeading();
    const { capacity, leaseMs } = this.options;
    const { me } = this.io;
    this.run(APPEND, [me, capacity, leaseMs, '0', terminationEntry(error)])
      .then(() => this.run(RELEASE, [me]))
      .catch((cause: unknown) =>
        this.io.logger.warn({ err: cause, feed: this.keys.stream }, 'event feed termination lost'),
      )
      .finally(() => {
        this.ending = false;
        this.tail();
      });
  }

  private renew(): void {
    const sentAt = this.options.scheduler.now();
    const { me, leaderTtlMs } = this.io;
    const listening = this.listeners.size > 0 ? '1' : '0';
    this.run(RENEW, [me, leaderTtlMs, this.options.leaseMs, listening]).then(
      (reply) => {
        if (Number(reply) === 1) this.leadUntil = sentAt + leaderTtlMs;
        // Another process leads (this one was cut off too long), or nobody wants the feed.
        else this.stepDown();
      },
      (error: unknown) => {
        this.io.logger.warn({ err: error, feed: this.keys.leader }, 'event feed lead not renewed');
        if (this.options.scheduler.now() >= this.leadUntil) this.stepDown();
      },
    );
  }

  private stopLeading(): void {
    this.leading = false;
    this.source?.unsubscribe();
    this.retry?.unsubscribe();
    this.renewal?.unsubscribe();
    this.source = this.retry = this.renewal = undefined;
  }

  private stepDown(): void {
    if (!this.leading) return;
    this.stopLeading();
    this.keepTailing();
    this.releaseIfIdle();
  }

  /** Reads what came after the position handed on, for this process's listeners. */
  private tail(): void {
    const after = this.listeners.position;
    if (this.closed || this.listeners.size === 0 || after === undefined) return;
    if (this.tailing) {
      this.tailAgain = true;
      return;
    }
    this.tailing = true;
    const { capacity } = this.options;
    const done = () => {
      this.tailing = false;
      if (this.tailAgain) {
        this.tailAgain = false;
        this.tail();
      } else this.keepTailing();
    };
    this.readAfter(after, capacity, ({ last, entries, ended }) => {
      if (!ended) return this.listeners.caughtUp(entries, last, entries.length < capacity);
      this.listeners.caughtUp(entries, ended.position - 1, true);
      if (!this.listeners.terminated(ended.position, ended.error)) this.idleFrom();
      else this.tailAgain = true;
    }).then(
      () => done(),
      (error: unknown) => {
        // Tried again at the next tick.
        this.io.logger.debug({ err: error, feed: this.keys.stream }, 'event feed not read: the events store failed');
        done();
      },
    );
  }

  /** Keeps one tail timer while this process has listeners and another process leads. */
  private keepTailing(): void {
    if (this.closed || this.leading || this.tailing || this.tailTimer || this.listeners.size === 0) return;
    this.tailTimer = unrefd(
      this.options.scheduler,
      () => {
        this.tailTimer = undefined;
        this.tail();
      },
      this.io.tailMs,
    );
  }

  private unlisten(local: LocalListener): void {
    if (!this.listeners.remove(local) || this.listeners.size > 0) return;
    this.tailTimer?.unsubscribe();
    this.tailTimer = undefined;
    this.idleFrom();
  }

  /** Lets the feed go `leaseMs` from now unless it is polled or listened to again meanwhile. */
  private idleFrom(): void {
    this.idle?.unsubscribe();
    this.idleDue = false;
    if (this.listeners.size > 0) return;
    this.idle = unrefd(
      this.options.scheduler,
      () => {
        this.idleDue = true;
        this.releaseIfIdle();
      },
      this.options.leaseMs,
    );
  }

  /** Lets the feed go when its lease ran out, nobody here listens, and it does not lead. */
  private releaseIfIdle(): void {
    if (this.idleDue && !this.leading && this.listeners.size === 0) void this.close();
  }

  /** A store failure as the request sees it; the cause goes to the log. */
  private storeFailed(error: unknown, method: string): JsonRpcError {
    if (error instanceof JsonRpcError) return error;
    this.io.logger.warn({ err: error, feed: this.keys.stream, method }, 'the events store failed');
    return JsonRpcError.internalError(`The events store (Redis) did not answer: ${method} could not be served`);
  }
}
