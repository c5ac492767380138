/**
 * One webhook subscription's deliveries (design sketch: Webhook Event Delivery): what its feed
 * brings waits in a bounded queue and is posted one at a time, in order, signed, each attempt with
 * a fresh timestamp; a failure is retried after the next of `retryDelaysMs`, then abandoned; after
 * `suspendAfter` abandoned in a row, deliveries stop until the client refreshes. Because they go
 * in order, the cursor a body carries is a safe watermark: everything before it was acknowledged
 * or abandoned.
 */
import type { SchedulerLike, Subscription } from '../../rx/rxjs';
import { nodeCrypto } from '../../base/node-builtins';
import type { WebhookControlBody, WebhookDeliveryStatus, WebhookErrorCategory } from '../../schema/events';
import { entryOccurrence, replayable } from './event-catalog';
import type { FeedEntry, FeedListening } from './event-feed';
import { signWebhook, WebhookHeader } from '../../schema/webhook-signature';
import { postWebhook, refusedUrl, resolveTarget } from './webhook-target';
import type { PostOutcome, WebhookTargetPolicy } from './webhook-target';

/** The bounds of webhook deliveries (see `WebhookOptions`). */
export interface DeliveryLimits {
  readonly policy: WebhookTargetPolicy;
  readonly queueSize: number;
  readonly retryDelaysMs: readonly number[];
  readonly suspendAfter: number;
  readonly rotationGraceMs: number;
  readonly timeoutMs: number;
  readonly scheduler: SchedulerLike;
}

type Item = { readonly entry: FeedEntry } | { readonly control: WebhookControlBody };

const iso = (ms: number) => new Date(ms).toISOString();

export class WebhookDelivery {
  private readonly queue: Item[] = [];
  private secrets: Array<{ readonly secret: string; readonly until: number }>;
  private inFlight = false;
  private retry: Subscription | undefined;
  private closed = false;
  /** A `terminated` body waits: delivering stops once it is posted or abandoned. */
  private ending = false;
  private ended: (() => void) | undefined;
  private active = true;
  private abandonedInRow = 0;
  private lastDeliveryAt: string | null = null;
  private lastError: WebhookErrorCategory | null = null;
  private failedSince: string | undefined;
  /** Everything at or before this position was acknowledged or abandoned. */
  watermark: number;

  constructor(
    readonly id: string,
    readonly url: string,
    secret: string,
    start: number,
    private readonly limits: DeliveryLimits,
    /** Told each time the watermark or status moves (a shared store keeps them). */
    private readonly moved?: () => void,
  ) {
    this.secrets = [{ secret, until: Infinity }];
    this.watermark = start;
  }

  /** How deliveries go, for a refresh's answer. */
  get status(): WebhookDeliveryStatus {
    return {
      active: this.active,
      lastDeliveryAt: this.lastDeliveryAt,
      lastError: this.lastError,
      ...(this.failedSince === undefined ? {} : { failedSince: this.failedSince }),
    };
  }

  /**
   * Starts from what the feed opened with: the watermark just before its replay (or at its head),
   * a `gap` body first when `gapFirst` and the feed lost occurrences, then the replay less what is
   * older than `maxAgeMs`. Answers whether occurrences were skipped, the subscribe's `truncated`.
   */
  begin(listening: FeedListening, maxAgeMs: number | undefined, gapFirst = false): boolean {
    const first = listening.replay[0];
    this.watermark = first ? first.position - 1 : listening.head;
    if (gapFirst && listening.truncated) this.skip(this.watermark);
    const { entries, skipped } = replayable(listening.replay, maxAgeMs, entryOccurrence);
    for (const entry of entries) this.offer(entry);
    return listening.truncated || skipped;
  }

  /** Queues an occurrence; past `queueSize` what waits is dropped and a `gap` body goes instead. */
  offer(entry: FeedEntry): void {
    if (this.queue.length >= this.limits.queueSize) {
      // The one in flight stays: its answer settles it.
      this.queue.splice(this.inFlight ? 1 : 0);
      this.watermark = entry.position;
      this.queue.push({ control: { type: 'gap', cursor: String(entry.position) } });
    } else this.queue.push({ entry });
    this.pump();
  }

  /** Occurrences up to `through` were lost before they reached this subscription: a `gap` body says so. */
  skip(through: number): void {
    if (this.queue.length >= this.limits.queueSize) this.queue.splice(this.inFlight ? 1 : 0);
    this.queue.push({ control: { type: 'gap', cursor: String(through) } });
    this.pump();
  }

  /** A refresh: a new secret replaces the old, which still signs for `rotationGraceMs`; delivery resumes. */
  refresh(secret: string): void {
    const now = this.limits.scheduler.now();
    if (this.secrets[0]!.secret !== secret) {
      const grace = now + this.limits.rotationGraceMs;
      this.secrets = [
        { secret, until: Infinity },
        ...this.secrets.map((old) => ({ ...old, until: Math.min(old.until, grace) })),
      ];
    }
    this.resume();
  }

  /** Signs with `secrets` from now on (a shared store's record, where null is the current one). */
  adopt(secrets: ReadonlyArray<{ readonly secret: string; readonly until: number | null }>): void {
    if (secrets.length > 0) this.secrets = secrets.map(({ secret, until }) => ({ secret, until: until ?? Infinity }));
  }

  /** Stops posting until `resume` (a suspension another process decided). */
  suspend(): void {
    this.active = false;
  }

  /** Posts again after a suspension, with a fresh count of abandoned posts. */
  resume(): void {
    this.active = true;
    this.abandonedInRow = 0;
    this.pump();
  }

  /**
   * The source ended the subscription: a signed `terminated` body carrying `error` is posted after
   * what waits, and then delivering stops and `ended` is told.
   */
  terminate(
    error: { readonly code: number; readonly message: string; readonly data?: unknown },
    ended?: () => void,
  ): void {
    this.ending = true;
    this.ended = ended;
    this.queue.push({ control: { type: 'terminated', error } });
    this.pump();
  }

  /** Stops delivering; what waits is dropped. */
  close(): void {
    this.closed = true;
    this.retry?.unsubscribe();
    this.queue.length = 0;
  }

  private pump(): void {
    if (this.closed || this.inFlight || !this.active || this.queue.length === 0) return;
    this.attempt(this.queue[0]!, 0);
  }

  private attempt(item: Item, tries: number): void {
    this.inFlight = true;
    const now = this.limits.scheduler.now();
    this.secrets = this.secrets.filter((held) => held.until > now);
    const body =
      'entry' in item
        ? JSON.stringify({ ...item.entry.occurrence, cursor: String(item.entry.position) })
        : JSON.stringify(item.control);
    const messageId =
      'entry' in item
        ? item.entry.occurrence.eventId
        : `msg_${item.control.type}_${nodeCrypto().randomBytes(8).toString('hex')}`;
    const timestampS = Math.floor(now / 1000);
    const headers = {
      [WebhookHeader.Id]: messageId,
      [WebhookHeader.Timestamp]: String(timestampS),
      [WebhookHeader.Signature]: signWebhook(
        this.secrets.map((held) => held.secret),
        messageId,
        timestampS,
        body,
      ),
      [WebhookHeader.SubscriptionId]: this.id,
    };
    // The allow-list too, at each post: a shared subscription's URL comes from the store, and the
    // process posting it may allow less than the one that took the subscribe.
    const allowed = refusedUrl(this.url, this.limits.policy) === undefined;
    void (allowed ? resolveTarget(this.url, this.limits.policy) : Promise.resolve(undefined))
      .then((target): Promise<PostOutcome> | PostOutcome =>
        target ? postWebhook(target, headers, body, this.limits.timeoutMs) : { failure: 'connection_refused' },
      )
      .catch((): PostOutcome => ({ failure: 'connection_refused' }))
      .then((outcome) => this.settled(item, tries, outcome));
  }

  private settled(item: Item, tries: number, outcome: PostOutcome): void {
    this.inFlight = false;
    if (this.closed) return;
    const now = this.limits.scheduler.now();
    if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
      this.lastDeliveryAt = iso(now);
      this.lastError = null;
      this.failedSince = undefined;
      this.abandonedInRow = 0;
      this.done(item);
      return;
    }
    this.lastError = 'failure' in outcome ? outcome.failure : outcome.status < 500 ? 'http_4xx' : 'http_5xx';
    this.failedSince ??= iso(now);
    // 413 and 410 are never retried (design sketch: Delivery profile).
    const retryable = !('status' in outcome && (outcome.status === 413 || outcome.status === 410));
    const delay = this.limits.retryDelaysMs[tries];
    if (retryable && delay !== undefined) {
      this.inFlight = true;
      this.retry = this.limits.scheduler.schedule(() => this.attempt(item, tries + 1), delay);
      return;
    }
    if (++this.abandonedInRow >= this.limits.suspendAfter) this.active = false;
    this.done(item);
  }

  private done(item: Item): void {
    this.queue.shift();
    if ('entry' in item) this.watermark = Math.max(this.watermark, item.entry.position);
    this.moved?.();
    if (this.ending && 'control' in item && item.control.type === 'terminated') {
      this.close();
      this.ended?.();
    } else this.pump();
  }
}
