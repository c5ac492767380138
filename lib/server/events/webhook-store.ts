/**
 * Where webhook subscriptions are kept so that the processes of a cluster share them: the
 * contract between the events extension and a store such as `redisEventFeeds` of rxmcp/cluster
 * (its `webhooks`). The store keeps one record per subscription and decides which process delivers
 * it (one at a time, under a lease); the extension checks requests, follows feeds and posts.
 */
import type { SchedulerLike } from '../../rx/rxjs';
import type { WebhookDeliveryStatus } from '../../schema/events';
import type { AuthInfo } from '../../transport/transport';
import type { ServerContext } from '../server-context';

/** A signing secret of a stored subscription. */
export interface StoredWebhookSecret {
  /** The `whsec_` secret. */
  readonly secret: string;
  /** When it stops signing (ms since the epoch); null for the current secret. */
  readonly until: number | null;
}

/** One webhook subscription as a shared store keeps it: what a refresh or a takeover needs. */
export interface StoredWebhook {
  /** The subscription's id (`sub_...`), derived from its key. */
  readonly id: string;
  /** The subscription key: principal, URL, event type and canonical arguments. */
  readonly key: string;
  /** The caller the subscription belongs to. */
  readonly principal: string;
  /** Where occurrences are posted. */
  readonly url: string;
  /** The event type. */
  readonly name: string;
  /** The subscription arguments. */
  readonly args: Record<string, unknown>;
  /**
   * The verified identity of the caller who subscribed (no token), for the source when a process
   * that never saw that request follows it.
   */
  readonly auth: AuthInfo | undefined;
  /** The signing secrets: the current one first, then those still in their rotation grace. */
  readonly secrets: readonly StoredWebhookSecret[];
  /** The TTL last granted. */
  readonly ttlMs: number;
  /** When the subscription lapses unless refreshed (ms since the epoch). */
  readonly expiresAt: number;
  /** Everything at or before this position was posted or abandoned; null before the first delivery opened. */
  readonly watermark: number | null;
  /** How deliveries go, as the delivering process last stored it. */
  readonly status: WebhookDeliveryStatus;
  /** How many refreshes the subscription has had: one more than a delivering process saw resumes it. */
  readonly refreshes: number;
}

/** What `events/subscribe` asks of a shared store: register the subscription, or refresh it. */
export interface WebhookSubscribeRequest {
  /** The record to create when none has the key (its `watermark` null, its `refreshes` 0). */
  readonly record: StoredWebhook;
  /** How long a replaced secret still signs, beside the new one. */
  readonly rotationGraceMs: number;
  /** Subscriptions held at once across the cluster; a new one past it is refused. */
  readonly maxSubscriptions: number;
  /** Now, on the extension's clock (ms since the epoch). */
  readonly now: number;
}

/** What a shared store did with a {@link WebhookSubscribeRequest}. */
export type WebhookSubscribeOutcome =
  /** Created: this process delivers it, from `watermark`; `truncated` as the feed's opening said. */
  | { readonly created: true; readonly watermark: number; readonly truncated: boolean }
  /** Refreshed: the record as it is after the refresh. */
  | { readonly created: false; readonly record: StoredWebhook }
  /** Refused: `maxSubscriptions` are held. */
  | { readonly full: true };

/** The delivering process's hold on one subscription. */
export interface WebhookLease {
  /** Stores the watermark and status (only while this process holds the lease); losing it stops the run. */
  save(watermark: number, status: WebhookDeliveryStatus): void;
}

/** One subscription being delivered by this process, as the store drives it. */
export interface WebhookRun {
  /** Resolves once the feed is open, with the watermark deliveries start from; rejects when it cannot open. */
  readonly opened: Promise<{ readonly watermark: number; readonly truncated: boolean }>;
  /** The record as the store re-read it at a renewal: rotated secrets, a refresh. */
  update(record: StoredWebhook): void;
  /** Stops delivering: the lease was lost, the record removed or expired, or the store closed. */
  stop(): void;
}

/**
 * Starts delivering `record` in this process under `lease`. `context` is the request's that
 * created the subscription when this process created it; none when it takes one over.
 */
export type WebhookRunner = (record: StoredWebhook, lease: WebhookLease, context?: ServerContext) => WebhookRun;

/**
 * Webhook subscriptions shared by the processes of a cluster. A failed command rejects with a
 * `JsonRpcError` (-32603 naming the events store) that the request answers with.
 */
export interface WebhookSubscriptionStore {
  /**
   * Creates the record of `request` (and runs it here, with `context`, through the runner given to
   * `deliver`) or refreshes the one that has its key.
   */
  subscribe(request: WebhookSubscribeRequest, context: ServerContext): Promise<WebhookSubscribeOutcome>;
  /** Removes the record with `key`, wherever it is delivered; false when there was none. */
  unsubscribe(key: string): Promise<boolean>;
  /**
   * Makes this process one that delivers: `runner` starts each subscription it takes, created here
   * or taken over when its deliverer stopped renewing its lease. Called once, by the events extension.
   */
  deliver(runner: WebhookRunner, scheduler: SchedulerLike): void;
}
