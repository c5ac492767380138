/**
 * Webhook subscriptions shared through Redis (the `webhooks` of `redisEventFeeds`): one hash per
 * subscription, expiring with its TTL, and a delivery lease per subscription, so that one process
 * at a time posts it. The process that creates a subscription takes its lease and delivers it at
 * once. Every process that serves webhooks runs one timer, every third of the lease: it renews the
 * leases it holds, re-reading each record (rotated secrets, a refresh, removal or expiry), then
 * takes every lease that is free, which is how the subscriptions of a process that died or closed
 * are taken over within the lease's time (or at once when it closed, giving its leases up).
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { SchedulerLike, Subscription } from '../rx/rxjs';
import { JsonRpcError } from '../jsonrpc/errors';
import type { WebhookDeliveryStatus } from '../schema/events';
import type { ServerContext } from '../server/server-context';
import type {
  StoredWebhook,
  WebhookRun,
  WebhookRunner,
  WebhookSubscribeOutcome,
  WebhookSubscribeRequest,
  WebhookSubscriptionStore,
} from '../server/events/webhook-store';
import { unrefd } from '../operators/timer-scheduler';
import type { RedisConnection } from './redis-connection';
import { CLAIM, RELEASE, RENEW, SAVE, staticPartOf, SUBSCRIBE, UNSUBSCRIBE, recordOf } from './webhook-scripts';

/** What the store shares with the feeds of `redisEventFeeds`: the connection, this process's token, the timings. */
export interface WebhookStoreContext {
  /** The connection the feeds use too. */
  readonly redis: RedisConnection;
  /** This process's token in the lease keys. */
  readonly me: string;
  /** How long a delivery lease lasts unless renewed. */
  readonly leaseTtlMs: number;
  /** Where failures are logged (never a secret). */
  readonly logger: Logger;
}

/** One subscription this process delivers. */
interface Held {
  readonly run: WebhookRun;
  /** Until when the lease is certainly this process's: the last renewal Redis acknowledged. */
  leaseUntil: number;
  /** A save in flight; `next` is what to save after it. */
  saving: boolean;
  next: [number, WebhookDeliveryStatus] | undefined;
}

/** The {@link WebhookSubscriptionStore} of `redisEventFeeds`, closed with it. */
export class RedisWebhookStore implements WebhookSubscriptionStore {
  private readonly held = new Map<string, Held>();
  private runner: WebhookRunner | undefined;
  private scheduler: SchedulerLike | undefined;
  private timer: Subscription | undefined;
  private closed = false;

  constructor(
    private readonly io: WebhookStoreContext,
    /** Every key starts with it, hash tag included. */
    private readonly base: string,
  ) {}

  async subscribe(request: WebhookSubscribeRequest, context: ServerContext): Promise<WebhookSubscribeOutcome> {
    const { record, rotationGraceMs, maxSubscriptions, now } = request;
    const digest = createHash('sha256').update(record.key).digest('base64url');
    const { me, leaseTtlMs } = this.io;
    const status = JSON.stringify(record.status);
    const watermark = record.watermark === null ? '' : String(record.watermark);
    const args = [digest, me, leaseTtlMs, record.secrets[0]!.secret, now, rotationGraceMs, record.ttlMs];
    const reply = await this.run(
      'events/subscribe',
      SUBSCRIBE,
      [this.index, this.record(digest), this.lease(digest)],
      [...args, maxSubscriptions, staticPartOf(record), status, this.record(''), watermark],
    );
    if (!Array.isArray(reply)) throw this.failed('events/subscribe', new Error('unexpected reply'));
    if (Number(reply[0]) === 2) return { full: true };
    if (Number(reply[0]) === 1) {
      const refreshed = recordOf(reply[1]);
      if (!refreshed) throw this.failed('events/subscribe', new Error('malformed record'));
      // Delivered here: the refresh (a rotated secret, a resumption) applies at once.
      this.held.get(digest)?.run.update(refreshed);
      return { created: false, record: refreshed };
    }
    try {
      const opened = await this.start(digest, record, context).run.opened;
      return { created: true, ...opened };
    } catch (error) {
      this.drop(digest);
      await this.unsubscribe(record.key).catch(() => undefined);
      throw error;
    }
  }

  async unsubscribe(key: string): Promise<boolean> {
    const digest = createHash('sha256').update(key).digest('base64url');
    const keys = [this.index, this.record(digest), this.lease(digest)];
    const removed = await this.run('events/unsubscribe', UNSUBSCRIBE, keys, [digest]);
    // Stopped here at once; a process elsewhere stops at its next save or renewal.
    this.drop(digest);
    return Number(removed) === 1;
  }

  deliver(runner: WebhookRunner, scheduler: SchedulerLike): void {
    if (this.runner) throw new TypeError('redisEventFeeds: a store delivers the webhooks of one events extension');
    this.runner = runner;
    this.scheduler = scheduler;
    this.tickEvery(Math.max(1, Math.floor(this.io.leaseTtlMs / 3)));
  }

  /** Stops every delivery of this process and gives their leases up, for the others to take at their next tick. */
  async close(): Promise<void> {
    this.closed = true;
    this.timer?.unsubscribe();
    const digests = [...this.held.keys()];
    for (const digest of digests) this.drop(digest);
    await Promise.all(
      digests.map((digest) =>
        this.io.redis.call('EVAL', [RELEASE, 1, this.lease(digest), this.io.me]).catch((error: unknown) => {
          this.io.logger.warn({ err: error, subscription: digest }, 'webhook delivery lease not given up');
        }),
      ),
    );
  }

  private get index(): string {
    return `${this.base}:i`;
  }

  private record(digest: string): string {
    return `${this.base}:r:${digest}`;
  }

  private lease(digest: string): string {
    return `${this.base}:d:${digest}`;
  }

  /** Runs a script; a failure rejects with -32603 naming the events store, its cause logged. */
  private run(method: string, script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.io.redis.call('EVAL', [script, keys.length, ...keys, ...args]).catch((error: unknown) => {
      throw this.failed(method, error);
    });
  }

  private failed(method: string, error: unknown): JsonRpcError {
    this.io.logger.warn({ err: error, method }, 'the events store failed');
    return JsonRpcError.internalError(`The events store (Redis) did not answer: ${method} could not be served`);
  }

  /** Delivers `record` here, under the lease this process just took. */
  private start(digest: string, record: StoredWebhook, context: ServerContext | undefined): Held {
    this.drop(digest);
    const lease = { save: (watermark: number, status: WebhookDeliveryStatus) => this.save(digest, watermark, status) };
    const now = this.scheduler?.now() ?? 0;
    // A runner throws when this process does not serve the record's event type, say.
    const run = this.runner ? this.runner(record, lease, context) : undefined;
    if (!run) throw this.failed('events/subscribe', new Error('this process does not deliver webhooks'));
    const held: Held = { run, leaseUntil: now + this.io.leaseTtlMs, saving: false, next: undefined };
    this.held.set(digest, held);
    return held;
  }

  /** Stops delivering `digest` here (its lease is left to expire, or was removed). */
  private drop(digest: string): void {
    const held = this.held.get(digest);
    if (!held) return;
    this.held.delete(digest);
    held.run.stop();
  }

  /** Stores the watermark and status, one save at a time per subscription, the latest last. */
  private save(digest: string, watermark: number, status: WebhookDeliveryStatus): void {
    const held = this.held.get(digest);
    if (!held) return;
    if (held.saving) {
      held.next = [watermark, status];
      return;
    }
    held.saving = true;
    const keys = [this.record(digest), this.lease(digest)];
    this.io.redis.call('EVAL', [SAVE, 2, ...keys, this.io.me, watermark, JSON.stringify(status)]).then(
      (reply) => {
        held.saving = false;
        // The lease is another's, or the record was removed: this process posts no more.
        if (Number(reply) !== 1) return this.drop(digest);
        const next = held.next;
        held.next = undefined;
        if (next && this.held.get(digest) === held) this.save(digest, ...next);
      },
      (error: unknown) => {
        held.saving = false;
        this.io.logger.debug({ err: error, subscription: digest }, 'webhook watermark not stored');
      },
    );
  }

  private tickEvery(periodMs: number): void {
    if (this.closed || !this.scheduler) return;
    this.timer = unrefd(
      this.scheduler,
      () => {
        this.tick();
        this.tickEvery(periodMs);
      },
      periodMs,
    );
  }

  /** Renews the leases held here, then takes those that are free. */
  private tick(): void {
    for (const [digest, held] of this.held) this.renew(digest, held);
    const { me, leaseTtlMs } = this.io;
    this.io.redis.call('EVAL', [CLAIM, 1, this.index, this.record(''), this.lease(''), me, leaseTtlMs]).then(
      (reply) => {
        const taken: unknown[] = Array.isArray(reply) ? reply : [];
        for (const one of taken) this.takeOver(one);
      },
      (error: unknown) =>
        this.io.logger.warn({ err: error }, 'webhook subscriptions not scanned: the events store failed'),
    );
  }

  private renew(digest: string, held: Held): void {
    const sentAt = this.scheduler?.now() ?? 0;
    const keys = [this.record(digest), this.lease(digest)];
    this.io.redis.call('EVAL', [RENEW, 2, ...keys, this.io.me, this.io.leaseTtlMs]).then(
      (reply) => {
        if (this.held.get(digest) !== held) return;
        const record = Array.isArray(reply) && Number(reply[0]) === 1 ? recordOf(reply[1]) : undefined;
        if (!record) return this.drop(digest);
        held.leaseUntil = sentAt + this.io.leaseTtlMs;
        held.run.update(record);
      },
      (error: unknown) => {
        this.io.logger.warn({ err: error, subscription: digest }, 'webhook delivery lease not renewed');
        if ((this.scheduler?.now() ?? 0) >= held.leaseUntil) this.drop(digest);
      },
    );
  }

  /** Delivers a subscription whose lease this process took at a scan. */
  private takeOver(taken: unknown): void {
    if (this.closed || !Array.isArray(taken) || typeof taken[0] !== 'string') return;
    const digest = taken[0];
    const record = recordOf(taken[1]);
    let held: Held | undefined;
    try {
      held = record && this.start(digest, record, undefined);
    } catch (error) {
      this.io.logger.error({ err: error, subscription: digest }, 'webhook subscription not taken over');
    }
    if (!held) return void this.release(digest);
    held.run.opened.catch((error: unknown) => {
      this.io.logger.warn({ err: error, subscription: digest }, 'webhook subscription not taken over');
      if (this.held.get(digest) === held) {
        this.drop(digest);
        this.release(digest);
      }
    });
  }

  private release(digest: string): void {
    this.io.redis.call('EVAL', [RELEASE, 1, this.lease(digest), this.io.me]).catch((error: unknown) => {
      this.io.logger.debug({ err: error, subscription: digest }, 'webhook delivery lease not given up');
    });
  }
}
