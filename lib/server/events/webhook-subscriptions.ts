/**
 * Webhook subscriptions on the server (design sketch: Webhook-Based Delivery): `events/subscribe`
 * registers or refreshes one, keyed on (principal, url, name, arguments), and grants it a TTL;
 * `events/unsubscribe` ends it at once; one that is not refreshed in time lapses. Each keeps its
 * feed followed and posts what it brings (see `WebhookDelivery`).
 */
import type { Subscription } from '../../rx/rxjs';
import type { EventSubscribeResult } from '../../schema/events';
import type { ServerContext } from '../server-context';
import type { EventCatalog } from './event-catalog';
import { WebhookDelivery } from './webhook-delivery';
import type { FeedListener, FeedListening } from './event-feed';
import { listenTo } from './feed-store';
import {
  checkSubscribe,
  checkTarget,
  noSuchSubscription,
  subscriptionId,
  tooManySubscriptions,
  unsubscribeKey,
} from './webhook-requests';
import type { SubscriptionLimits } from './webhook-requests';

interface Held {
  readonly delivery: WebhookDelivery;
  readonly stop: () => void;
  expiry: Subscription;
}

export class WebhookSubscriptions {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly catalog: EventCatalog,
    private readonly limits: SubscriptionLimits,
  ) {}

  /** Answers `events/subscribe`: a registration or a refresh. */
  async subscribe(params: Record<string, unknown>, context: ServerContext): Promise<EventSubscribeResult> {
    const { principal, subscription, url, secret, ttlMs, key } = checkSubscribe(
      this.catalog,
      this.limits,
      params,
      context,
    );
    const existing = this.held.get(key);
    if (existing) {
      existing.delivery.refresh(secret);
      existing.expiry.unsubscribe();
      existing.expiry = this.expire(key, ttlMs);
      return this.answer(existing.delivery, ttlMs, false, true);
    }
    if (this.held.size >= this.limits.maxSubscriptions) throw tooManySubscriptions(this.limits.maxSubscriptions);
    await checkTarget(url, this.limits);
    const id = subscriptionId(key);
    const feed = this.catalog.feed(subscription, context, principal);
    const delivery = new WebhookDelivery(id, url, secret, 0, this.limits);
    const listener: FeedListener = {
      next: (entry) => delivery.offer(entry),
      error: () => undefined,
      skipped: (through) => delivery.skip(through),
      // The source ended it: the subscription is gone at once (a refresh is a fresh subscribe), and
      // its delivery posts the `terminated` body after what waits, then stops.
      terminated: (error) => {
        const held = this.held.get(key);
        if (held?.delivery !== delivery) return;
        this.held.delete(key);
        held.expiry.unsubscribe();
        delivery.terminate(error.toJSON());
      },
    };
    // What the feed replays is queued first; a shared feed's store failing answers the request.
    const listening = await new Promise<FeedListening>((resolve, reject) => {
      const opened = (result: FeedListening) =>
        resolve({ ...result, truncated: delivery.begin(result, subscription.maxAgeMs) });
      listenTo(feed, subscription.cursor, listener, opened, reject);
    });
    this.held.set(key, { delivery, stop: listening.stop, expiry: this.expire(key, ttlMs) });
    return this.answer(delivery, ttlMs, listening.truncated, false);
  }

  /** Answers `events/unsubscribe`: -32011 when no subscription has that key. */
  unsubscribe(params: Record<string, unknown>, context: ServerContext): Record<string, unknown> {
    const key = unsubscribeKey(this.limits, params, context);
    if (!this.held.has(key)) throw noSuchSubscription();
    this.remove(key);
    return {};
  }

  private expire(key: string, ttlMs: number): Subscription {
    return this.limits.scheduler.schedule(() => this.remove(key), ttlMs);
  }

  private remove(key: string): void {
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    held.expiry.unsubscribe();
    held.delivery.close();
    held.stop();
  }

  private answer(delivery: WebhookDelivery, ttlMs: number, truncated: boolean, refresh: boolean): EventSubscribeResult {
    return {
      id: delivery.id,
      refreshBefore: new Date(this.limits.scheduler.now() + ttlMs).toISOString(),
      cursor: String(delivery.watermark),
      truncated,
      ...(refresh ? { deliveryStatus: delivery.status } : {}),
    };
  }
}
