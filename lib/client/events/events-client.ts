/**
 * Events on the client (the triggers and events extension's design sketch, as merged on 2026-09-08;
 * experimental): the event types a server declares, and an event type's occurrences as an
 * Observable, whatever the delivery: by push (`events/stream`) when both sides declared it, else
 * by the poll loop the SDK runs (`events/poll` at the interval the server asks for, at once while
 * more wait), so that the model only ever sees occurrences.
 */
import { isRecord } from '../../base/objects';
import { asyncScheduler, defer, EMPTY, firstValueFrom, from, Observable, switchMap } from '../../rx/rxjs';
import type { SchedulerLike, Subscription } from '../../rx/rxjs';
import { CapabilityNotSupportedError, ProtocolError } from '../../jsonrpc/errors';
import type { JsonRpcError } from '../../jsonrpc/errors';
import { declaredExtensions } from '../../schema/extensions';
import { EVENTS_EXTENSION, EVENTS_LIST_CHANGED_KEY, EventMethod } from '../../schema/events';
import type { EventOccurrence, EventPollResult, EventsSettings, EventType } from '../../schema/events';
import { cachedList } from '../cached-list';
import type { McpClient } from '../client-api';
import { serverExtension } from '../extensions';
import { followByPush } from './push-follower';
import { followByWebhook } from './webhook-follower';
import type { WebhookReceiver } from './webhook-receiver';

export { createWebhookReceiver } from './webhook-receiver';
export type { WebhookAnswer, WebhookReceiverOptions, WebhookRequest, WebhookResponse } from './webhook-receiver';
export type { WebhookReceiver };
import { SeenIds } from './seen-ids';

/** Options of {@link EventsClient.follow}. */
export interface FollowEventsOptions {
  /** Where to resume: a cursor kept from an earlier `onCursor`. Default null: from now on. */
  readonly cursor?: string | null;
  /** Hears every cursor the server gives, to keep and resume from. */
  readonly onCursor?: (cursor: string | null) => void;
  /** Hears that the server skipped occurrences (the cursor was older than what it keeps). */
  readonly onTruncated?: () => void;
  /** The shortest wait between polls, whatever the server says. Default 1 s. */
  readonly minPollMs?: number;
  /** Most occurrences asked for in one poll. */
  readonly maxEvents?: number;
  /**
   * Occurrences older than this are not replayed when following resumes from `cursor` (the first
   * poll, each stream opened, or the first webhook subscribe; design sketch: `maxAgeMs`). Default:
   * the server replays what it keeps.
   */
  readonly maxAgeMs?: number;
  /**
   * How to follow: `'auto'` (the default) pushes when the client declared the events extension
   * (without `delivery`, or with `push` in it), the server declared push and lists it for the
   * event type, and polls otherwise; `'push'` and `'poll'` insist (push fails with
   * `CapabilityNotSupportedError` where the server does not offer it); `'webhook'` subscribes
   * with `webhook` and takes the server's posts from its receiver.
   */
  readonly delivery?: 'auto' | 'poll' | 'push' | 'webhook';
  /** For `delivery: 'webhook'`: where the server posts. */
  readonly webhook?: WebhookFollowOptions;
  /** Hears a push stream's recoverable failures (`notifications/events/error`); the stream goes on. */
  readonly onStreamError?: (error: JsonRpcError) => void;
  /** Where the waits between polls, and a push stream's liveness, are timed. */
  readonly scheduler?: SchedulerLike;
}

/** Where the server posts a webhook subscription's occurrences, and for how long it asks. */
export interface WebhookFollowOptions {
  /** Takes the posts: mount its `handle` at `url`. */
  readonly receiver: WebhookReceiver;
  /** The URL the server posts to (on the server's allow-list). */
  readonly url: string;
  /** The TTL to ask for; the server grants what its bounds allow, and the client refreshes at half. */
  readonly ttlMs?: number;
}

/** The events of the server a client is connected to. */
export interface EventsClient {
  /** Whether the server declared the events extension. */
  readonly supported: boolean;
  /** The event types the server declares. */
  list(): Promise<readonly EventType[]>;
  /**
   * The event types, kept up to date: fetched on first subscription, replayed to later
   * subscribers, and fetched again each time the server says they changed
   * (`notifications/events/list_changed`; in a modern revision heard on a `subscriptions/listen`
   * stream asking for `eventsListChanged`). Fetched once from a server that does not declare
   * `listChanged`. Errors with `CapabilityNotSupportedError` where the server has no events.
   */
  readonly types$: Observable<readonly EventType[]>;
  /**
   * The occurrences of event type `name` for `args`, pushed, polled or posted to a webhook (see
   * `FollowEventsOptions.delivery`): cold (subscribing starts polling, opens the stream or
   * subscribes the webhook; unsubscribing stops, cancels or unsubscribes it), never completing on
   * its own, erroring with the
   * server's error (an unknown event type: -32011). An occurrence seen twice (same `eventId`) is
   * emitted once. A push stream silent for twice the server's heartbeat interval is opened again
   * from the last cursor.
   */
  follow(name: string, args?: Record<string, unknown>, options?: FollowEventsOptions): Observable<EventOccurrence>;
}

/** A poll's answer as checked on arrival. */
function readPoll(result: Record<string, unknown>): EventPollResult {
  const { events, cursor, truncated, hasMore, nextPollMs } = result;
  const valid =
    Array.isArray(events) &&
    events.every((event) => isRecord(event) && typeof event.eventId === 'string' && isRecord(event.data)) &&
    (cursor === null || typeof cursor === 'string') &&
    (nextPollMs === undefined || (typeof nextPollMs === 'number' && nextPollMs >= 0));
  if (!valid) throw new ProtocolError('events/poll returned no valid poll result');
  return {
    events: events as EventOccurrence[],
    cursor: cursor as string | null,
    truncated: truncated === true,
    hasMore: hasMore === true,
    nextPollMs: (nextPollMs as number | undefined) ?? 0,
  };
}

/** The most `events/list` pages read for one list, against a server whose cursors never end. */
const MAX_LIST_PAGES = 1000;

/** Every event type of `client`'s server, page after page (`nextCursor`, as for `tools/list`). */
async function listAllTypes(client: McpClient): Promise<readonly EventType[]> {
  const types: EventType[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await firstValueFrom(client.request(EventMethod.List, cursor === undefined ? {} : { cursor }));
    if (!Array.isArray(result.events)) throw new ProtocolError('events/list returned no list of event types');
    types.push(...(result.events as EventType[]));
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') return types;
    if (seen.has(next)) throw new ProtocolError('events/list gave the same nextCursor twice');
    seen.add(next);
    cursor = next;
  }
  throw new ProtocolError(`events/list gave more than ${MAX_LIST_PAGES} pages`);
}

/** The heartbeat interval the sketch recommends, when a server declares none. */
const DEFAULT_HEARTBEAT_MS = 30_000;

/** Whether the client declared push delivery (the events extension, with `push` or no `delivery`). */
function clientPushes(client: McpClient): boolean {
  const declared = declaredExtensions(client.connection.capabilities())[EVENTS_EXTENSION] as EventsSettings | undefined;
  return declared !== undefined && (declared.delivery === undefined || declared.delivery.includes('push'));
}

/** Makes a client's events: what `eventsClient` of lazy-events-client.ts (the one the entries export) loads and calls. */
export function eventsClient(client: McpClient): EventsClient {
  const settings = serverExtension(client, EVENTS_EXTENSION) as EventsSettings | undefined;
  const supported = settings !== undefined;
  const need = (method: string) => {
    if (!supported) throw new CapabilityNotSupportedError(EVENTS_EXTENSION, method, 'server');
  };
  const list = async (): Promise<readonly EventType[]> => {
    need(EventMethod.List);
    return listAllTypes(client);
  };
  let types: Promise<readonly EventType[]> | undefined;
  /** Whether to push `name`: both sides declared push, and the server lists it for the type. */
  const pushes = async (name: string, delivery: 'auto' | 'push'): Promise<boolean> => {
    const offered = settings?.delivery?.includes('push') === true;
    if (delivery === 'auto' && !(offered && clientPushes(client))) return false;
    const type = offered ? (await (types ??= list())).find((candidate) => candidate.name === name) : undefined;
    if (type?.delivery.includes('push')) return true;
    if (delivery === 'push') throw new CapabilityNotSupportedError(EVENTS_EXTENSION, EventMethod.Stream, 'server');
    return false;
  };
  let types$: Observable<readonly EventType[]> | undefined;
  return {
    supported,
    list,
    get types$() {
      return (types$ ??= cachedList({
        fetch: () => from(list()),
        changed$:
          settings?.listChanged === true ? client.listChanges(EventMethod.ListChanged, EVENTS_LIST_CHANGED_KEY) : EMPTY,
      }));
    },
    follow(name, args = {}, options = {}) {
      const delivery = options.delivery ?? 'auto';
      const scheduler = options.scheduler ?? asyncScheduler;
      const byPoll = () => followByPoll(client, name, args, options);
      if (delivery === 'poll')
        return defer(() => {
          need(EventMethod.Poll);
          return byPoll();
        });
      if (delivery === 'webhook')
        return defer(async () => {
          need(EventMethod.Subscribe);
          const type = (await (types ??= list())).find((candidate) => candidate.name === name);
          if (
            settings?.delivery?.includes('webhook') !== true ||
            (type !== undefined && !type.delivery.includes('webhook'))
          )
            throw new CapabilityNotSupportedError(EVENTS_EXTENSION, EventMethod.Subscribe, 'server');
        }).pipe(switchMap(() => byWebhook(client, name, args, options, scheduler)));
      return defer(() => {
        need(EventMethod.Stream);
        return from(pushes(name, delivery));
      }).pipe(
        switchMap((push) =>
          push
            ? followByPush(client, {
                name,
                args,
                cursor: options.cursor ?? null,
                ...(options.maxAgeMs !== undefined && { maxAgeMs: options.maxAgeMs }),
                heartbeatMs: settings?.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
                reopenMs: options.minPollMs ?? 1000,
                scheduler,
                ...(options.onCursor && { onCursor: options.onCursor }),
                ...(options.onTruncated && { onTruncated: options.onTruncated }),
                ...(options.onStreamError && { onStreamError: options.onStreamError }),
              })
            : byPoll(),
        ),
      );
    },
  };
}

/** The occurrences of `name` by the poll loop (see `EventsClient.follow`). */
function followByPoll(
  client: McpClient,
  name: string,
  args: Record<string, unknown>,
  options: FollowEventsOptions,
): Observable<EventOccurrence> {
  return new Observable<EventOccurrence>((subscriber) => {
    const scheduler = options.scheduler ?? asyncScheduler;
    const minPollMs = options.minPollMs ?? 1000;
    const seen = new SeenIds();
    let cursor = options.cursor ?? null;
    let resuming = true;
    let current: Subscription | undefined;
    const poll = (): void => {
      const params: Record<string, unknown> = { name, arguments: args, cursor };
      if (options.maxEvents !== undefined) params.maxEvents = options.maxEvents;
      // Only the poll that resumes replays: later ones read what came since, however old.
      if (options.maxAgeMs !== undefined && resuming) params.maxAgeMs = options.maxAgeMs;
      resuming = false;
      current = client.request(EventMethod.Poll, params).subscribe({
        next: (raw) => {
          let result: EventPollResult;
          try {
            result = readPoll(raw);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          if (result.truncated) options.onTruncated?.();
          for (const event of result.events) if (seen.first(event.eventId)) subscriber.next(event);
          cursor = result.cursor;
          options.onCursor?.(cursor);
          if (subscriber.closed) return;
          const wait = result.hasMore ? 0 : Math.max(result.nextPollMs, minPollMs);
          current = scheduler.schedule(poll, wait);
        },
        error: (error: unknown) => subscriber.error(error),
      });
    };
    poll();
    return () => current?.unsubscribe();
  });
}

/** The occurrences of `name` by webhook (see `EventsClient.follow`), once the server is known to offer it. */
function byWebhook(
  client: McpClient,
  name: string,
  args: Record<string, unknown>,
  options: FollowEventsOptions,
  scheduler: SchedulerLike,
): Observable<EventOccurrence> {
  const webhook = options.webhook;
  if (webhook === undefined) throw new TypeError("delivery 'webhook' needs the webhook option (receiver and url)");
  return followByWebhook(client, {
    name,
    args,
    cursor: options.cursor ?? null,
    ...(options.maxAgeMs !== undefined && { maxAgeMs: options.maxAgeMs }),
    receiver: webhook.receiver,
    url: webhook.url,
    ttlMs: webhook.ttlMs,
    scheduler,
    ...(options.onCursor && { onCursor: options.onCursor }),
    ...(options.onTruncated && { onTruncated: options.onTruncated }),
  });
}
