/**
 * The checks of `events/subscribe` and `events/unsubscribe` that every webhook subscription store
 * shares, in this process's memory or in a cluster's: who the caller is, the delivery target, the
 * secret, the TTL granted, and the subscription key (design sketch: Subscription Identity).
 */
import { isRecord } from '../../base/objects';
import { nodeCrypto } from '../../base/node-builtins';
import { JsonRpcError } from '../../jsonrpc/errors';
import { EventErrorCode, EventMethod } from '../../schema/events';
import { webhookSecretKey } from '../../schema/webhook-signature';
import { principalOf } from '../../transport/transport';
import type { ServerContext } from '../server-context';
import { canonical } from '../../base/objects';
import type { EventCatalog, SubscriptionParams } from './event-catalog';
import type { DeliveryLimits } from './webhook-delivery';
import { refusedUrl, resolveTarget } from './webhook-target';

/** The bounds of webhook subscriptions (see `WebhookOptions`). */
export interface SubscriptionLimits extends DeliveryLimits {
  readonly defaultTtlMs: number;
  readonly minTtlMs: number;
  readonly maxTtlMs: number;
  readonly maxSubscriptions: number;
  readonly principal: ((context: ServerContext) => string | undefined) | undefined;
}

/** Refuses (-32602) a delivery URL whose host resolves to no address webhooks may be posted to. */
export async function checkTarget(url: string, limits: SubscriptionLimits): Promise<void> {
  if ((await resolveTarget(url, limits.policy).catch(() => undefined)) === undefined)
    throw JsonRpcError.invalidParams('delivery.url resolves to an address webhooks may not be posted to');
}

/** An `events/subscribe` request, checked. */
export interface CheckedSubscribe {
  readonly principal: string;
  readonly subscription: SubscriptionParams;
  readonly url: string;
  readonly secret: string;
  readonly ttlMs: number;
  readonly key: string;
}

/** The subscription key of (principal, url, name, arguments). */
export const subscriptionKey = (principal: string, url: string, name: unknown, args: unknown): string =>
  JSON.stringify([principal, url, name, canonical(args)]);

/** The subscription id a key gives: a routing handle, not a credential. */
export const subscriptionId = (key: string): string =>
  `sub_${nodeCrypto().createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/** Checks `events/subscribe` (-32012, -32011, -32014, -32602). */
export function checkSubscribe(
  catalog: EventCatalog,
  limits: SubscriptionLimits,
  params: Record<string, unknown>,
  context: ServerContext,
): CheckedSubscribe {
  const principal = callerOf(limits, context);
  const subscription = catalog.check(params, EventMethod.Subscribe, 'webhook');
  const { url, secret } = deliveryOf(limits, params);
  if (typeof secret !== 'string' || webhookSecretKey(secret) === undefined)
    throw JsonRpcError.invalidParams('delivery.secret must be whsec_ and the base64 of 24 to 64 random bytes');
  const ttlMs = grant(limits, params.ttlMs);
  const key = subscriptionKey(principal, url, subscription.definition.name, subscription.args);
  return { principal, subscription, url, secret, ttlMs, key };
}

/** The key `events/unsubscribe` names (-32012, -32602). */
export function unsubscribeKey(
  limits: SubscriptionLimits,
  params: Record<string, unknown>,
  context: ServerContext,
): string {
  const principal = callerOf(limits, context);
  const { name, arguments: args = {} } = params;
  const { url } = deliveryOf(limits, params);
  return subscriptionKey(principal, url, name, args);
}

/** The -32011 of an unsubscribe that names no subscription. */
export const noSuchSubscription = (): JsonRpcError =>
  new JsonRpcError(EventErrorCode.NotFound, 'No such webhook subscription', { kind: 'subscription' });

/** The -32013 of one subscription too many. */
export const tooManySubscriptions = (max: number): JsonRpcError =>
  new JsonRpcError(EventErrorCode.ResourceExhausted, 'Too many webhook subscriptions', {
    limit: 'subscriptions',
    max,
  });

function callerOf(limits: SubscriptionLimits, context: ServerContext): string {
  const principal = limits.principal ? limits.principal(context) : principalOf(context.auth);
  // Without a principal the key is guessable (design sketch: Subscription Identity).
  if (principal === undefined)
    throw new JsonRpcError(EventErrorCode.Forbidden, 'Webhook subscriptions need an authenticated caller');
  return principal;
}

function deliveryOf(limits: SubscriptionLimits, params: Record<string, unknown>): { url: string; secret: unknown } {
  const { delivery } = params;
  if (!isRecord(delivery) || typeof delivery.url !== 'string')
    throw JsonRpcError.invalidParams('delivery.url is required');
  if (delivery.mode !== undefined && delivery.mode !== 'webhook')
    throw JsonRpcError.invalidParams('delivery.mode must be webhook');
  const refused = refusedUrl(delivery.url, limits.policy);
  if (refused) throw JsonRpcError.invalidParams(refused);
  return { url: delivery.url, secret: delivery.secret };
}

/** The TTL granted for a suggestion (design sketch: Subscription TTL): never more than `maxTtlMs`, never none. */
function grant(limits: SubscriptionLimits, suggested: unknown): number {
  if (suggested === undefined) return limits.defaultTtlMs;
  if (suggested === null) return limits.maxTtlMs;
  if (typeof suggested !== 'number' || !(suggested >= 0))
    throw JsonRpcError.invalidParams('ttlMs must be a number of milliseconds or null');
  return Math.min(Math.max(suggested, limits.minTtlMs), limits.maxTtlMs);
}
