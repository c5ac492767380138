/**
 * Where the events extension keeps its feeds: in this process's memory (`EventFeed`, the default),
 * or in a store shared by the processes of a cluster (`EventFeedStore`, e.g. `redisEventFeeds` of
 * rxmcp/cluster), whose feeds answer with promises. The extension's handlers take either: the
 * in-memory feed answers at once, and only a shared one makes a poll or a stream wait.
 */
import { EventFeed } from './event-feed';
import type { EventFeedOptions, EventsTerminated, FeedListener, FeedListening, FeedRead } from './event-feed';
import type { WebhookSubscriptionStore } from './webhook-store';

/**
 * One feed of an {@link EventFeedStore}, as one process sees it: the same reads and listeners as
 * the in-memory feed, answered with promises (a store is a network away). A failed read or listen
 * rejects with a `JsonRpcError` the request answers with.
 */
export interface SharedFeed {
  /** Reads what came after `cursor` (null: from now on), at most `max` occurrences; see `events/poll`. */
  read(cursor: string | null, max: number): Promise<FeedRead>;
  /**
   * Listens from `cursor` (null: from now on): resolves with what to replay, after which `listener`
   * hears each newer occurrence once and in order, until `stop`. Occurrences that come while it
   * resolves are in the replay or heard after it, never both.
   */
  listen(cursor: string | null, listener: FeedListener): Promise<FeedListening>;
  /**
   * Ends the feed's subscriptions with `error`, as a source that errors with it does: the event
   * type is no longer served, or changed. The process that follows the source ends them for every
   * process, so each process of a cluster serving the new types is to call it.
   */
  end?(error: EventsTerminated): void;
}

/** How a shared feed is opened: the in-memory feed's options and the feed's identity. */
export interface SharedFeedOptions extends EventFeedOptions {
  /** Names the feed across processes: the caller's principal, the event type and its canonical arguments. */
  readonly key: string;
}

/**
 * Where `events(definitions, { store })` keeps its feeds so that every process of a cluster serves
 * the same ones: a cursor given by one process reads on any other, and each source is followed by
 * one process at a time. `redisEventFeeds` (rxmcp/cluster) is one.
 */
export interface EventFeedStore {
  /**
   * This process's handle on the feed `options.key`, called once per feed while this process holds
   * it; the feed calls `options.onIdle` when it lets it go, and `options.source` when this process
   * is to follow the source.
   */
  open(options: SharedFeedOptions): SharedFeed;
  /**
   * Where webhook subscriptions are kept so that every process answers `events/subscribe` and
   * `events/unsubscribe` for the same ones, and one at a time delivers each. None: each process
   * keeps the subscriptions made on it and delivers them itself.
   */
  readonly webhooks?: WebhookSubscriptionStore;
}

/** A feed of the catalog: in memory, or shared through a store. */
export type Feed = EventFeed | SharedFeed;

/**
 * Listens to `feed` from `cursor`: `opened` gets what to replay before `listener` hears anything
 * new; `failed` gets why a shared feed could not be listened to, or why the source ended the
 * subscription as it was followed. The in-memory feed opens at once.
 * Returns the stop, which may be called before a shared feed has opened (it then stops when it
 * opens).
 */
export function listenTo(
  feed: Feed,
  cursor: string | null,
  listener: FeedListener,
  opened: (listening: FeedListening) => void,
  failed: (error: unknown) => void,
): () => void {
  if (feed instanceof EventFeed) {
    let listening: FeedListening;
    try {
      listening = feed.listen(cursor, listener);
    } catch (error) {
      // The source ended the subscription as it was followed (an `EventsTerminated`).
      failed(error);
      return () => undefined;
    }
    opened(listening);
    return listening.stop;
  }
  // Until `opened` has run, what the shared feed hands on waits here, so that it follows the replay.
  let early: Array<() => void> | undefined = [];
  let stopped = false;
  let listening: FeedListening | undefined;
  const hand = (deliver: () => void) => (early ? early.push(deliver) : deliver());
  const gate: FeedListener = {
    next: (entry) => hand(() => listener.next(entry)),
    error: (error) => hand(() => listener.error(error)),
    skipped: (through) => hand(() => listener.skipped?.(through)),
    terminated: (error) => hand(() => (listener.terminated ? listener.terminated(error) : listener.error(error))),
  };
  feed.listen(cursor, gate).then(
    (result) => {
      if (stopped) return result.stop();
      try {
        opened(result);
      } catch (error) {
        result.stop();
        return failed(error);
      }
      listening = result;
      const waiting = early ?? [];
      early = undefined;
      for (const deliver of waiting) deliver();
    },
    (error: unknown) => {
      if (!stopped) failed(error);
    },
  );
  return () => {
    stopped = true;
    listening?.stop();
  };
}
