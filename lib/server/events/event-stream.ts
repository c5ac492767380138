/**
 * Push delivery on the server (design sketch: Push-Based Delivery): one `events/stream` request
 * per subscription, answered by `notifications/events/active`, then each occurrence as
 * `notifications/events/event` and a heartbeat at a fixed interval, every one carrying the
 * request's id in `_meta["io.modelcontextprotocol/subscriptionId"]`, until the client cancels, or
 * until the source ends its subscriptions: then `notifications/events/terminated` and the request's
 * final frame (`StreamEventsResult`, `{ _meta: {} }`).
 */
import { Observable } from '../../rx/rxjs';
import type { SchedulerLike, Subscription } from '../../rx/rxjs';
import type { HandlerResult } from '../../connection/dispatcher';
import { JsonRpcError } from '../../jsonrpc/errors';
import { EventErrorCode, EventMethod } from '../../schema/events';
import { META } from '../../schema/request-meta';
import type { ServerContext } from '../server-context';
import { entryOccurrence, replayable } from './event-catalog';
import type { EventCatalog, SubscriptionParams } from './event-catalog';
import type { FeedEntry, FeedListener, FeedListening } from './event-feed';
import { listenTo } from './feed-store';

/** The bounds of push streams (see `EventsOptions.push`). */
export interface PushLimits {
  readonly heartbeatMs: number;
  readonly maxEventsPerSecond: number;
  readonly bufferSize: number;
  readonly maxStreams: number;
  readonly scheduler: SchedulerLike;
}

/** The streams open at once, against `PushLimits.maxStreams`. */
export interface StreamCount {
  open: number;
}

/**
 * What one stream sends, paced: at most `maxEventsPerSecond` occurrences a second, `bufferSize`
 * waiting beyond that; past it the waiting ones are dropped and the stream skips to now, saying so
 * with `notifications/events/active { truncated: true }` (the sketch's gap signal), so that a
 * burst never holds unbounded memory.
 */
class PacedStream {
  /** Occurrences waiting for the pace, and gaps (the position lost up to) in their place. */
  private readonly queue: Array<FeedEntry | number> = [];
  private sentInWindow = 0;
  private window: Subscription | undefined;
  /** The position everything before which was sent or skipped: the cursor a heartbeat carries. */
  checked = 0;

  constructor(
    private readonly limits: PushLimits,
    private readonly send: (method: string, params: Record<string, unknown>) => void,
  ) {}

  offer(entry: FeedEntry): void {
    if (this.queue.length === 0 && this.sentInWindow < this.limits.maxEventsPerSecond) this.deliver(entry);
    else if (this.queue.length < this.limits.bufferSize) this.queue.push(entry);
    else {
      this.queue.length = 0;
      this.gap(entry.position);
    }
  }

  /** Occurrences up to `through` were lost before they reached the stream: said in their place. */
  skip(through: number): void {
    if (this.queue.length === 0) this.gap(through);
    else if (this.queue.length < this.limits.bufferSize) this.queue.push(through);
    else {
      this.queue.length = 0;
      this.gap(through);
    }
  }

  close(): void {
    this.window?.unsubscribe();
    this.queue.length = 0;
  }

  private gap(through: number): void {
    this.checked = Math.max(this.checked, through);
    this.send(EventMethod.Active, { cursor: String(this.checked), truncated: true });
  }

  private deliver(entry: FeedEntry): void {
    this.sentInWindow++;
    this.checked = entry.position;
    this.send(EventMethod.Event, { ...entry.occurrence, cursor: String(entry.position) });
    this.window ??= this.limits.scheduler.schedule(() => this.refill(), 1000);
  }

  private refill(): void {
    this.window = undefined;
    this.sentInWindow = 0;
    while (this.queue.length > 0 && this.sentInWindow < this.limits.maxEventsPerSecond) {
      const item = this.queue.shift()!;
      if (typeof item === 'number') this.gap(item);
      else this.deliver(item);
    }
  }
}

/**
 * Serves one `events/stream` request whose params were checked: cold; subscribing opens the
 * stream (-32013 past `maxStreams`), unsubscribing (the client's cancel, or the connection's end)
 * stops delivery and releases the feed, the timers and the stream's place. Emits a result only
 * when the source ends its subscriptions (`EventsTerminated`): the final frame, after saying so.
 */
export function streamEvents(
  catalog: EventCatalog,
  limits: PushLimits,
  count: StreamCount,
  subscription: SubscriptionParams,
  context: ServerContext,
): Observable<HandlerResult> {
  return new Observable<HandlerResult>((subscriber) => {
    if (count.open >= limits.maxStreams) {
      subscriber.error(
        new JsonRpcError(EventErrorCode.ResourceExhausted, 'Too many event streams open at once', {
          limit: 'streams',
          max: limits.maxStreams,
        }),
      );
      return undefined;
    }
    let feed;
    try {
      feed = catalog.feed(subscription, context);
    } catch (error) {
      subscriber.error(error);
      return undefined;
    }
    count.open++;
    const meta = { [META.subscriptionId]: context.requestId };
    const send = (method: string, params: Record<string, unknown>) =>
      context.notify(method, { ...params, _meta: meta });
    const paced = new PacedStream(limits, send);
    let heartbeat: Subscription | undefined;
    const opened = (listening: FeedListening) => {
      const start = listening.replay.length > 0 ? listening.replay[0]!.position - 1 : listening.head;
      // What the stream asked not to replay (older than its `maxAgeMs`) is passed over, not sent.
      const { entries: replay, skipped } = replayable(listening.replay, subscription.maxAgeMs, entryOccurrence);
      paced.checked = replay.length > 0 ? replay[0]!.position - 1 : (listening.replay.at(-1)?.position ?? start);
      const truncated = listening.truncated || skipped;
      send(EventMethod.Active, { cursor: String(start), truncated });
      for (const entry of replay) paced.offer(entry);
      heartbeat = limits.scheduler.schedule(function beat(this: { schedule(state?: unknown, delay?: number): void }) {
        send(EventMethod.Heartbeat, { cursor: String(paced.checked) });
        this.schedule(undefined, limits.heartbeatMs);
      }, limits.heartbeatMs);
    };
    const listener: FeedListener = {
      next: (entry) => paced.offer(entry),
      // A failed upstream is recoverable (design sketch: Event Delivery): the feed follows it again.
      error: () => send(EventMethod.Error, { error: { code: -32603, message: 'UpstreamError' } }),
      skipped: (through) => paced.skip(through),
      // The source ended its subscriptions (design sketch: the server ends a subscription): the
      // stream says so, then its request answers with the final frame, `StreamEventsResult`, as
      // when the server closes a stream; a client stops on `terminated` and does not reopen it.
      terminated: (error) => {
        send(EventMethod.Terminated, { error: error.toJSON() });
        subscriber.next({ _meta: {} });
        subscriber.complete();
      },
    };
    // A shared feed's store failing: the request answers with its error, and the stream never opens.
    const stop = listenTo(feed, subscription.cursor, listener, opened, (error) => subscriber.error(error));
    return () => {
      count.open--;
      heartbeat?.unsubscribe();
      paced.close();
      stop();
    };
  });
}
