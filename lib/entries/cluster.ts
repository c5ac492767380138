// rxmcp/cluster: one Streamable HTTP server as many processes on Redis (sessions, their state and
// events in Redis; any request may reach any process). Loads the optional ioredis package only when
// a cluster connects by URL.
export { joinRedisCluster } from '../cluster/redis-cluster';
export type { ClusterServeOptions, RedisCluster, RedisClusterOptions } from '../cluster/redis-cluster';
export type { RedisConnection, RedisSource } from '../cluster/redis-connection';
export { redisRateLimitStore } from '../cluster/redis-rate-limit-store';
export { SessionTakenOverError } from '../cluster/redis-event-store';
export type { RedisRateLimitStoreOptions } from '../cluster/redis-rate-limit-store';
export { redisEventFeeds } from '../cluster/redis-event-feeds';
export type { RedisEventFeeds, RedisEventFeedsOptions } from '../cluster/redis-event-feeds';
export type { EventFeedStore, SharedFeed, SharedFeedOptions } from '../server/events/feed-store';
export type { EventFeedOptions, FeedEntry, FeedListener, FeedListening, FeedRead } from '../server/events/event-feed';
export type { StoredWebhook, StoredWebhookSecret, WebhookLease, WebhookRun } from '../server/events/webhook-store';
export type { WebhookRunner, WebhookSubscribeOutcome, WebhookSubscribeRequest } from '../server/events/webhook-store';
export type { WebhookSubscriptionStore } from '../server/events/webhook-store';
