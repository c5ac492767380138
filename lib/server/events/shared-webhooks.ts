/**
 * Webhook subscriptions shared by the processes of a cluster (`events(definitions, { store })`
 * with a store that keeps `webhooks`, such as `redisEventFeeds`): `events/subscribe` and
 * `events/unsubscribe` act on the one record the store keeps per subscription key, on whichever
 * process they land, and the store has one process at a time deliver each subscription, through
 * the runner here: it follows the shared feed from the stored watermark, posts as
 * `WebhookDelivery` does, and stores the watermark as it moves.
 */
import type { SchedulerLike } from '../../rx/rxjs';
import { JsonRpcError } from '../../jsonrpc/errors';
import type { EventSubscribeResult, WebhookDeliveryStatus } from '../../schema/events';
import type { ServerContext } from '../server-context';
import type { EventCatalog } from './event-catalog';
import type { FeedListener, FeedListening } from './event-feed';
import { listenTo } from './feed-store';
import { detachedContext } from './detached-context';
import { WebhookDelivery } from './webhook-delivery';
import {
  checkSubscribe,
  checkTarget,
  noSuchSubscription,
  subscriptionId,
  tooManySubscriptions,
  unsubscribeKey,
} from './webhook-requests';
import type { SubscriptionLimits } from './webhook-requests';
import type { StoredWebhook, WebhookLease, WebhookRun, WebhookSubscriptionStore } from './webhook-store';

const FRESH_STATUS: WebhookDeliveryStatus = { active: true, lastDeliveryAt: null, lastError: null };

/** A failure of the store as the request sees it: its own JSON-RPC error, or -32603 naming the store. */
const storeFailed = (method: string) => (error: unknown) => {
  if (error instanceof JsonRpcError) throw error;
  throw JsonRpcError.internalError(`The events store did not answer: ${method} could not be served`);
};

/**
 * Answers `events/subscribe` and `events/unsubscribe` from a shared store, and delivers the
 * subscriptions the store hands this process.
 */
export class SharedWebhookSubscriptions {
  /** The `maxAgeMs` of subscribes in progress here, by key, for the first run their feed opens. */
  private readonly replayAges = new Map<string, number>();

  constructor(
    private readonly catalog: EventCatalog,
    private readonly limits: SubscriptionLimits,
    private readonly store: WebhookSubscriptionStore,
    scheduler: SchedulerLike,
  ) {
    store.deliver((record, lease, context) => this.run(record, lease, context), scheduler);
  }

  /** Answers `events/subscribe`: creates the shared record, or refreshes it, wherever it is delivered. */
  async subscribe(params: Record<string, unknown>, context: ServerContext): Promise<EventSubscribeResult> {
    const { principal, subscription, url, secret, ttlMs, key } = checkSubscribe(
      this.catalog,
      this.limits,
      params,
      context,
    );
    // The target is checked before the store is asked, refresh or not: a refresh may land on a
    // process whose policy or resolver differs from the first one's.
    await checkTarget(url, this.limits);
    const now = this.limits.scheduler.now();
    const record: StoredWebhook = {
      id: subscriptionId(key),
      key,
      principal,
      url,
      name: subscription.definition.name,
      args: subscription.args,
      auth: context.auth,
      secrets: [{ secret, until: null }],
      ttlMs,
      expiresAt: now + ttlMs,
      // The cursor the caller gave, until the feed opens and gives the watermark.
      watermark: subscription.cursor === null ? null : Number(subscription.cursor),
      status: FRESH_STATUS,
      refreshes: 0,
    };
    const { rotationGraceMs, maxSubscriptions } = this.limits;
    if (subscription.maxAgeMs !== undefined) this.replayAges.set(key, subscription.maxAgeMs);
    const outcome = await this.store
      .subscribe({ record, rotationGraceMs, maxSubscriptions, now }, context)
      .catch(storeFailed('events/subscribe'))
      .finally(() => this.replayAges.delete(key));
    const refreshBefore = new Date(now + ttlMs).toISOString();
    if ('full' in outcome) throw tooManySubscriptions(maxSubscriptions);
    if (outcome.created)
      return { id: record.id, refreshBefore, cursor: String(outcome.watermark), truncated: outcome.truncated };
    const cursor = String(outcome.record.watermark ?? 0);
    return {
      id: record.id,
      refreshBefore,
      cursor,
      truncated: false,
      deliveryStatus: { ...outcome.record.status, active: true },
    };
  }

  /** Answers `events/unsubscribe`: -32011 when no subscription has that key. */
  async unsubscribe(params: Record<string, unknown>, context: ServerContext): Promise<Record<string, unknown>> {
    const key = unsubscribeKey(this.limits, params, context);
    const removed = await this.store.unsubscribe(key).catch(storeFailed('events/unsubscribe'));
    if (!removed) throw noSuchSubscription();
    return {};
  }

  /** Delivers `record` in this process while the store lets it: from its watermark, or the caller's cursor. */
  private run(record: StoredWebhook, lease: WebhookLease, context: ServerContext | undefined): WebhookRun {
    const checked = this.catalog.check({ name: record.name, arguments: record.args }, 'events/subscribe', 'webhook');
    const cursor = record.watermark === null ? null : String(record.watermark);
    // Only the run its subscribe starts replays what the caller asked for.
    const maxAgeMs = context ? this.replayAges.get(record.key) : undefined;
    const current = record.secrets[0]?.secret ?? '';
    const delivery: WebhookDelivery = new WebhookDelivery(record.id, record.url, current, 0, this.limits, () =>
      lease.save(delivery.watermark, delivery.status),
    );
    delivery.adopt(record.secrets);
    if (!record.status.active) delivery.suspend();
    let refreshes = record.refreshes;
    let stopListening: (() => void) | undefined;
    let unopened: ((error: unknown) => void) | undefined;
    let stopped = false;
    const listener: FeedListener = {
      next: (entry) => delivery.offer(entry),
      error: () => undefined,
      skipped: (through) => delivery.skip(through),
      // The source ended it: the `terminated` body is posted after what waits, then the record goes.
      terminated: (error) =>
        delivery.terminate(error.toJSON(), () => void this.store.unsubscribe(record.key).catch(() => undefined)),
    };
    const opened = new Promise<FeedListening>((resolve, reject) => {
      unopened = reject;
      const feed = this.catalog.feed({ ...checked, cursor }, context ?? detachedContext(record), record.principal);
      const open = (result: FeedListening) => {
        // A takeover across occurrences the feed no longer has tells the receiver of the gap.
        const truncated = delivery.begin(result, maxAgeMs, !context);
        lease.save(delivery.watermark, delivery.status);
        unopened = undefined;
        resolve({ ...result, truncated });
      };
      stopListening = listenTo(feed, cursor, listener, open, reject);
    }).then(({ truncated }) => ({ watermark: delivery.watermark, truncated }));
    return {
      opened,
      update: (updated) => {
        delivery.adopt(updated.secrets);
        if (updated.refreshes > refreshes) delivery.resume();
        refreshes = updated.refreshes;
      },
      stop: () => {
        if (stopped) return;
        stopped = true;
        delivery.close();
        stopListening?.();
        // Removed (or the store closed) before its feed opened: the subscribe waiting on it ends.
        unopened?.(noSuchSubscription());
      },
    };
  }
}
