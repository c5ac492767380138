import { createHash, randomBytes } from 'node:crypto';
import { childLogger } from '../base/logger';
import type { LoggerOption } from '../base/logger';
import type { EventFeedStore, SharedFeed, SharedFeedOptions } from '../server/events/feed-store';
import type { WebhookSubscriptionStore } from '../server/events/webhook-store';
import type { FeedKeys } from './event-feed-scripts';
import { RedisEventFeed } from './redis-event-feed';
import { RedisWebhookStore } from './redis-webhook-store';
import type { RedisConnection } from './redis-connection';

/** Options of {@link redisEventFeeds}. */
export interface RedisEventFeedsOptions {
  /** Put before every key, e.g. to share one Redis between deployments. Default `rxmcp:ef:`. */
  readonly prefix?: string;
  /**
   * How often a process with push streams or webhook subscriptions on a feed that another process
   * leads reads what came (one read per feed, whatever the number of listeners). Default 100 ms.
   */
  readonly tailMs?: number;
  /**
   * How long a feed's leader lease lasts unless renewed (it is renewed every third of it): how
   * long a feed whose leader died goes unfollowed at most, before a process with interest takes
   * it. Webhook subscriptions' delivery leases last as long, and a process that serves webhooks
   * renews its own and looks for free ones every third of it. Default 5 s.
   */
  readonly leaderTtlMs?: number;
  /** Where failures of the store are logged. Default: silent. */
  readonly logger?: LoggerOption;
}

/** An {@link EventFeedStore} in Redis, which the process that leaves closes. */
export interface RedisEventFeeds extends EventFeedStore {
  /**
   * Webhook subscriptions kept in Redis, which `events(definitions, { store, webhooks })` uses:
   * each has one record, and one process at a time delivers it (see {@link redisEventFeeds}).
   */
  readonly webhooks: WebhookSubscriptionStore;
  /**
   * Stops following and reading every feed this process holds and gives up their leases, so that
   * the other processes take them over at once (at their next poll or read) instead of after
   * `leaderTtlMs`; stops the webhook deliveries it runs and gives their leases up too, for the
   * others to take at their next look. Call it when the process leaves; feeds opened afterwards
   * work as before.
   */
  close(): Promise<void>;
}

/**
 * An {@link EventFeedStore} in Redis, for `events(definitions, { store })` in a server run as many
 * processes: every process serves the same feeds. A feed's occurrences go to a Redis Stream with
 * ids `<position>-0` (a sequence key gives the positions, in the script that appends), trimmed to
 * `capacity`, so a cursor is `String(position)` and reads on any process. One process at a time
 * follows a feed's source: the holder of the feed's leader lease, renewed while it follows, taken
 * by a process that polls or listens when nobody holds it, given up when no process has polled
 * the feed for `leaseMs` and none listens. The others read the stream: polls after their cursor,
 * and push streams and webhook subscriptions by reading every `tailMs`. Occurrences lost (trimmed
 * before a reader came, or emitted while no process followed the source, when a leader died or
 * let go) leave a hole in the positions: a poll across it reads `truncated: true`, a push stream
 * gets `notifications/events/active { truncated: true }`, a webhook a `gap` body.
 *
 * Each feed's keys share a hash tag, a digest of the caller, event type and arguments, so that they
 * sit in one slot of a Redis Cluster. A failed command answers the poll or stream with -32603
 * naming the events store; a failed read of a push stream's feed is tried again at the next tick.
 * Timers run on the events extension's `scheduler` and keep no process alive.
 *
 * Its `webhooks` share webhook subscriptions: one hash per subscription under the tag
 * `{webhooks}`, expiring with the TTL granted, and a delivery lease per subscription (as long as
 * `leaderTtlMs`). The process that creates a subscription delivers it; each process that serves
 * webhooks renews its leases every third of `leaderTtlMs`, re-reading the records, and takes the
 * free ones, so a subscription whose deliverer died is delivered on from its stored watermark.
 * @example
 * const redis = new Redis(url);
 * const feeds = redisEventFeeds(redis);
 * createServer({ ..., extensions: [events(definitions, { store: feeds })] });
 * process.on('SIGTERM', () => void feeds.close());
 */
export function redisEventFeeds(redis: RedisConnection, options: RedisEventFeedsOptions = {}): RedisEventFeeds {
  const { prefix = 'rxmcp:ef:', tailMs = 100, leaderTtlMs = 5000 } = options;
  if (!(tailMs > 0) || !(leaderTtlMs > 0))
    throw new RangeError('redisEventFeeds: tailMs and leaderTtlMs must be positive');
  const context = {
    redis,
    me: randomBytes(12).toString('base64url'),
    tailMs,
    leaderTtlMs,
    logger: childLogger(options.logger, { component: 'event-feeds' }),
  };
  const open = new Set<RedisEventFeed>();
  const webhooks = new RedisWebhookStore(
    { redis, me: context.me, leaseTtlMs: leaderTtlMs, logger: context.logger },
    `${prefix}{webhooks}`,
  );
  return {
    webhooks,
    open(feedOptions: SharedFeedOptions): SharedFeed {
      const tag = createHash('sha256').update(feedOptions.key).digest('base64url');
      const base = `${prefix}{${tag}}`;
      const keys: FeedKeys = { stream: `${base}:s`, seq: `${base}:n`, leader: `${base}:l`, wanted: `${base}:w` };
      const feed = new RedisEventFeed(context, keys, feedOptions, (closed) => open.delete(closed));
      open.add(feed);
      return feed;
    },
    async close(): Promise<void> {
      await Promise.all([webhooks.close(), ...[...open].map((feed) => feed.close())]);
    },
  };
}
