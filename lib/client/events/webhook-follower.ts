/**
 * Following an event type by webhook (design sketch: Webhook-Based Delivery): `events/subscribe`
 * with a fresh secret and the receiver's URL, refreshed at half of each granted TTL, the posts the
 * receiver verified turned into occurrences, and `events/unsubscribe` when the caller stops.
 */
import { isRecord } from '../../base/objects';
import { Observable } from '../../rx/rxjs';
import type { SchedulerLike, Subscription } from '../../rx/rxjs';
import { ProtocolError } from '../../jsonrpc/errors';
import { EventMethod } from '../../schema/events';
import type { EventOccurrence } from '../../schema/events';
import { generateWebhookSecret } from '../../schema/webhook-signature';
import type { McpClient } from '../client-api';
import { SeenIds } from './seen-ids';
import { eventErrorOf } from './event-errors';
import { routeWebhooks } from './webhook-receiver';
import type { WebhookReceiver, WebhookRoute } from './webhook-receiver';

/** What a webhook follower needs beside the client. */
export interface WebhookFollow {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly cursor: string | null;
  /** Sent with the first subscribe, which resumes from `cursor`: older occurrences are not posted. */
  readonly maxAgeMs?: number;
  readonly receiver: WebhookReceiver;
  readonly url: string;
  readonly ttlMs: number | undefined;
  readonly scheduler: SchedulerLike;
  readonly onCursor?: (cursor: string | null) => void;
  readonly onTruncated?: () => void;
}

/** A refresh comes at half the time left, and never sooner than this after the last one. */
const MIN_REFRESH_MS = 1000;

/** The occurrences of `follow.name` posted to `follow.receiver` (see `EventsClient.follow`). */
export function followByWebhook(client: McpClient, follow: WebhookFollow): Observable<EventOccurrence> {
  return new Observable<EventOccurrence>((subscriber) => {
    const { name, args, url, scheduler } = follow;
    const secret = generateWebhookSecret();
    const seen = new SeenIds();
    let cursor = follow.cursor;
    let pending: Subscription | undefined;
    let refresh: Subscription | undefined;
    const moved = (next: unknown): void => {
      if (next !== null && typeof next !== 'string') return;
      cursor = next;
      follow.onCursor?.(cursor);
    };
    const route: WebhookRoute & { id: string | undefined } = {
      secrets: [secret],
      id: undefined,
      deliver: (body) => {
        if (!isRecord(body)) return;
        // A control body (design sketch: Non-event webhook bodies): occurrences were dropped, or it ended.
        if (body.type === 'gap') {
          follow.onTruncated?.();
          moved(body.cursor);
          return;
        }
        if (body.type === 'terminated') {
          subscriber.error(eventErrorOf(body.error, 'the server ended the webhook subscription'));
          return;
        }
        const { eventId, data, timestamp } = body;
        if (typeof eventId !== 'string' || !isRecord(data)) return;
        const occurrence: EventOccurrence = {
          eventId,
          name: typeof body.name === 'string' ? body.name : name,
          timestamp: typeof timestamp === 'string' ? timestamp : '',
          data,
          ...(body.cursor === null || typeof body.cursor === 'string' ? { cursor: body.cursor } : {}),
        };
        if (seen.first(eventId)) subscriber.next(occurrence);
        moved(body.cursor);
      },
    };
    const unroute = routeWebhooks(follow.receiver, route);
    const subscribe = (): void => {
      const params: Record<string, unknown> = {
        name,
        arguments: args,
        cursor,
        delivery: { mode: 'webhook', url, secret },
      };
      if (follow.ttlMs !== undefined) params.ttlMs = follow.ttlMs;
      // Only the first subscribe replays; a refresh goes on from where delivery is.
      if (follow.maxAgeMs !== undefined && route.id === undefined) params.maxAgeMs = follow.maxAgeMs;
      pending = client.request(EventMethod.Subscribe, params).subscribe({
        next: (result) => {
          if (typeof result.id !== 'string') {
            subscriber.error(new ProtocolError('events/subscribe returned no subscription id'));
            return;
          }
          route.id = result.id;
          if (result.truncated === true) follow.onTruncated?.();
          if (typeof result.refreshBefore !== 'string') return;
          const left = Date.parse(result.refreshBefore) - scheduler.now();
          refresh = scheduler.schedule(subscribe, Math.max(MIN_REFRESH_MS, left / 2));
        },
        error: (error: unknown) => subscriber.error(error),
      });
    };
    subscribe();
    return () => {
      unroute();
      pending?.unsubscribe();
      refresh?.unsubscribe();
      // The server would let it lapse at its TTL; saying so ends its posts now.
      if (route.id !== undefined)
        client
          .request(EventMethod.Unsubscribe, { name, arguments: args, delivery: { url } })
          .subscribe({ error: () => undefined });
    };
  });
}
