/**
 * Webhook subscriptions on the server (design sketch: Webhook-Based Delivery): `events/subscribe`
 * registers or refreshes one, keyed on (principal, url, name, arguments), and grants it a TTL;
 * `events/unsubscribe` ends it at once; one that is not refreshed in time lapses. Each keeps its
 * feed followed and posts what it brings (see `WebhookDelivery`).
 */
import type { Subscription } from '../../rx/rxjs';
import { nodeCrypto } from '../../base/node-builtins';
import { JsonRpcError } from '../../jsonrpc/errors';
import { EventErrorCode, EventMethod } from '../../schema/events';
import type { EventSubscribeResult } from '../../schema/events';
import { principalOf } from '../../transport/transport';
import type { ServerContext } from '../server-context';
import { canonical, isObject } from './event-catalog';
import type { EventCatalog } from './event-catalog';
import { WebhookDelivery } from './webhook-delivery';
import type { DeliveryLimits } from './webhook-delivery';
import type { FeedListener, FeedListening } from './event-feed';
import { listenTo } from './feed-store';
import { webhookSecretKey } from '../../schema/webhook-signature';
import { refusedUrl, resolveTarget } from './webhook-target';

/** The bounds of webhook subscriptions (see `WebhookOptions`). */
export interface SubscriptionLimits extends DeliveryLimits {
  readonly defaultTtlMs: number;
  readonly minTtlMs: number;
  readonly maxTtlMs: number;
  readonly maxSubscriptions: number;
  readonly principal: ((context: ServerContext) => string | undefined) | undefined;
}

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
    const principal = this.principal(context);
    const subscription = this.catalog.check(params, EventMethod.Subscribe, 'webhook');
    const { url, secret } = this.delivery(params);
    if (typeof secret !== 'string' || webhookSecretKey(secret) === undefined)
      throw JsonRpcError.invalidParams('delivery.secret must be whsec_ and the base64 of 24 to 64 random bytes');
    const ttlMs = this.grant(params.ttlMs);
    const key = JSON.stringify([principal, url, subscription.definition.name, canonical(subscription.args)]);
    const existing = this.held.get(key);
    if (existing) {
      existing.delivery.refresh(secret);
      existing.expiry.unsubscribe();
      existing.expiry = this.expire(key, ttlMs);
      return this.answer(existing.delivery, ttlMs, false, true);
    }
    if (this.held.size >= this.limits.maxSubscriptions)
      throw new JsonRpcError(EventErrorCode.ResourceExhausted, 'Too many webhook subscriptions', {
        limit: 'subscriptions',
        max: this.limits.maxSubscriptions,
      });
    if ((await resolveTarget(url, this.limits.policy).catch(() => undefined)) === undefined)
      throw JsonRpcError.invalidParams('delivery.url resolves to an address webhooks may not be posted to');
    const id = `sub_${nodeCrypto().createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
    const feed = this.catalog.feed(subscription, context, principal);
    const delivery = new WebhookDelivery(id, url, secret, 0, this.limits);
    const listener: FeedListener = {
      next: (entry) => delivery.offer(entry),
      error: () => undefined,
      skipped: (through) => delivery.skip(through),
    };
    // What the feed replays is queued first; a shared feed's store failing answers the request.
    const listening = await new Promise<FeedListening>((resolve, reject) => {
      const opened = (result: FeedListening) => {
        delivery.watermark = result.replay.length > 0 ? result.replay[0]!.position - 1 : result.head;
        for (const entry of result.replay) delivery.offer(entry);
        resolve(result);
      };
      listenTo(feed, subscription.cursor, listener, opened, reject);
    });
    this.held.set(key, { delivery, stop: listening.stop, expiry: this.expire(key, ttlMs) });
    return this.answer(delivery, ttlMs, listening.truncated, false);
  }

  /** Answers `events/unsubscribe`: -32011 when no subscription has that key. */
  unsubscribe(params: Record<string, unknown>, context: ServerContext): Record<string, unknown> {
    const principal = this.principal(context);
    const { name, arguments: args = {} } = params;
    const { url } = this.delivery(params);
    const key = JSON.stringify([principal, url, name, canonical(args)]);
    if (!this.held.has(key))
      throw new JsonRpcError(EventErrorCode.NotFound, 'No such webhook subscription', { kind: 'subscription' });
    this.remove(key);
    return {};
  }

  private principal(context: ServerContext): string {
    const principal = this.limits.principal ? this.limits.principal(context) : principalOf(context.auth);
    // Without a principal the key is guessable (design sketch: Subscription Identity).
    if (principal === undefined)
      throw new JsonRpcError(EventErrorCode.Forbidden, 'Webhook subscriptions need an authenticated caller');
    return principal;
  }

  private delivery(params: Record<string, unknown>): { url: string; secret: unknown } {
    const { delivery } = params;
    if (!isObject(delivery) || typeof delivery.url !== 'string')
      throw JsonRpcError.invalidParams('delivery.url is required');
    if (delivery.mode !== undefined && delivery.mode !== 'webhook')
      throw JsonRpcError.invalidParams('delivery.mode must be webhook');
    const refused = refusedUrl(delivery.url, this.limits.policy);
    if (refused) throw JsonRpcError.invalidParams(refused);
    return { url: delivery.url, secret: delivery.secret };
  }

  /** The TTL granted for a suggestion (design sketch: Subscription TTL): never more than `maxTtlMs`, never none. */
  private grant(suggested: unknown): number {
    if (suggested === undefined) return this.limits.defaultTtlMs;
    if (suggested === null) return this.limits.maxTtlMs;
    if (typeof suggested !== 'number' || !(suggested >= 0))
      throw JsonRpcError.invalidParams('ttlMs must be a number of milliseconds or null');
    return Math.min(Math.max(suggested, this.limits.minTtlMs), this.limits.maxTtlMs);
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
