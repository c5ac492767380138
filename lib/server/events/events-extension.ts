/**
 * Events on the server (the triggers and events extension's design sketch, as merged on 2026-09-08;
 * experimental): `events(...)` declares event types, each with an Observable source, and serves
 * `events/list`, `events/poll`, `events/stream` (push) and, when `webhooks` are configured,
 * `events/subscribe` and `events/unsubscribe`. A poll needs no subscription: its first one, with a
 * null cursor, starts following the source for its arguments, and each one after reads what came
 * since its cursor. A stream hears each occurrence as it comes; a webhook gets each one posted.
 */
import type { SchedulerLike } from '../../rx/rxjs';
import { timerScheduler } from '../../operators/timer-scheduler';
import { EVENTS_EXTENSION, EVENTS_LIST_CHANGED_KEY, EventMethod } from '../../schema/events';
import type { EventDeliveryMode, EventPollResult, EventType } from '../../schema/events';
import { JsonRpcError } from '../../jsonrpc/errors';
import { ExtensionListChanges } from '../extension-lists';
import type { ServerExtension } from '../extensions';
import type { ServerContext } from '../server-context';
import { EventCatalog, replayable } from './event-catalog';
import type { EventDefinition } from './event-catalog';
import { EventFeed } from './event-feed';
import type { FeedRead } from './event-feed';
import type { EventFeedStore } from './feed-store';
import { streamEvents } from './event-stream';
import type { PushLimits, StreamCount } from './event-stream';
import { WebhookSubscriptions } from './webhook-subscriptions';
import { SharedWebhookSubscriptions } from './shared-webhooks';
import type { SubscriptionLimits } from './webhook-requests';
import type { WebhookTargetPolicy } from './webhook-target';
import { compileJsonSchema } from '../../validation/json-schema-validator';
import type { JsonSchemaValidatorFactory } from '../../validation/json-schema-validator';

/**
 * Options of webhook delivery (`events/subscribe`). Only URLs on `allow` are posted to (the
 * sketch's allow-list, which also stands for its endpoint verification), over `https`, to
 * globally routable addresses checked at each delivery.
 */
export interface WebhookOptions extends WebhookTargetPolicy {
  /**
   * Who the caller is, for the subscription key. Default: the principal of the request's verified
   * token; a caller without one gets -32012 (webhooks need an authenticated caller).
   */
  readonly principal?: (context: ServerContext) => string | undefined;
  /** The TTL granted when the client suggests none. Default 30 min. */
  readonly defaultTtlMs?: number;
  /** The longest TTL granted; a suggestion of no expiry gets this too. Default 30 min. */
  readonly maxTtlMs?: number;
  /** The shortest TTL granted, against refresh storms. Default 1 min. */
  readonly minTtlMs?: number;
  /** Subscriptions held at once; the next gets -32013. Default 1000. */
  readonly maxSubscriptions?: number;
  /** Posts waiting per subscription; past it they are dropped for a `gap` body. Default 100. */
  readonly queueSize?: number;
  /** The waits before each retry of a failed post; then it is abandoned. Default 1 s, 5 s, 30 s, 2 min. */
  readonly retryDelaysMs?: readonly number[];
  /** Abandoned posts in a row after which deliveries stop until a refresh. Default 5. */
  readonly suspendAfter?: number;
  /** How long a replaced secret still signs, beside the new one. Default 5 min. */
  readonly rotationGraceMs?: number;
  /** How long one post may take. Default 10 s. */
  readonly timeoutMs?: number;
}

/** Options of push delivery (`events/stream`). */
export interface PushOptions {
  /**
   * How often a stream sends `notifications/events/heartbeat`; declared in the extension's
   * settings, so that a client knows when a silent stream is dead. Default 30 s (the sketch's
   * "at least every 30 seconds").
   */
  readonly heartbeatMs?: number;
  /**
   * Most occurrences one stream sends a second. Default 100. Transports write without telling
   * how fast the client reads, so this and `bufferSize` are what bound a stream's memory.
   */
  readonly maxEventsPerSecond?: number;
  /**
   * Occurrences one stream holds beyond that pace. Default 1000. Past it the stream drops what
   * waits and skips to now, with `notifications/events/active { truncated: true }`.
   */
  readonly bufferSize?: number;
  /** Streams open at once on this server; the next gets -32013. Default 1000. */
  readonly maxStreams?: number;
}

/** Options of {@link events}. */
export interface EventsOptions {
  /** When a client should poll next, when nothing more waits. Default 5 s. */
  readonly nextPollMs?: number;
  /** Event types per `events/list` page; past it, `nextCursor` leads to the next. Default 100. */
  readonly pageSize?: number;
  /** Most occurrences one poll returns (a client may ask for fewer). Default 100. */
  readonly maxEvents?: number;
  /** Occurrences kept per followed source for polls and replays to read. Default 1000. */
  readonly capacity?: number;
  /** A followed source no poll has read and nobody listens to for this long is released. Default 5 min. */
  readonly leaseMs?: number;
  /** Sources followed at once, across callers and arguments; past it, -32013. Default 1000. */
  readonly maxFeeds?: number;
  /** The wait before following a failed source again while streams listen. Default 5 s. */
  readonly retryMs?: number;
  /** Push delivery: its options, or false to serve poll only. Default: served with the defaults. */
  readonly push?: PushOptions | false;
  /** Webhook delivery: served only when given, to the URLs its allow-list names. */
  readonly webhooks?: WebhookOptions;
  /** Where leases, heartbeats, pacing, retries and TTLs are timed. */
  readonly scheduler?: SchedulerLike;
  /**
   * Compiles each event type's `inputSchema` into the check of subscription arguments, which
   * refuses with -32602 what does not match. Default: rxmcp's own validator, as for tools.
   */
  readonly jsonSchemaValidator?: JsonSchemaValidatorFactory;
  /**
   * Where feeds are kept so that the processes of a cluster share them: e.g.
   * `redisEventFeeds(redis)` of rxmcp/cluster. A cursor then reads on every process, and each
   * source is followed by one process at a time. A store that keeps `webhooks` shares the webhook
   * subscriptions too: each has one record, and one process at a time delivers it. Default: each
   * feed and subscription lives in this process's memory.
   */
  readonly store?: EventFeedStore;
}

export type { EventDefinition };

/** The events extension as `events()` makes it: a server extension whose event types may change. */
export interface EventsExtension extends ServerExtension {
  /** The event types served now, as `events/list` answers them. */
  readonly types: readonly EventType[];
  /**
   * Serves `definitions` from now on, in place of the types served so far (design sketch: List
   * changes and type removal). When what `events/list` answers changed, every client that
   * declared events hears `notifications/events/list_changed` (a modern one on a
   * `subscriptions/listen` stream asking for `eventsListChanged`). Subscriptions of a type no
   * longer served end with -32011 (`{ kind: 'event' }`); those of a type whose `inputSchema` or
   * `payloadSchema` changed other than by additions end with -32014 (`{ feature, reason:
   * 'schema_changed' }`); the others go on. Throws a `TypeError`, changing nothing, for two types
   * of one name.
   */
  setTypes(definitions: readonly EventDefinition[]): void;
}

/** Makes the events extension: what `events` of lazy-events.ts (the one rxmcp/server exports) loads and calls. */
export function events(definitions: readonly EventDefinition[], options: EventsOptions = {}): EventsExtension {
  const scheduler = options.scheduler ?? timerScheduler;
  const push = options.push === false ? undefined : (options.push ?? {});
  const served: EventDeliveryMode[] = push ? ['poll', 'push'] : ['poll'];
  if (options.webhooks) served.push('webhook');
  const catalog = new EventCatalog(definitions, served, {
    capacity: options.capacity ?? 1000,
    leaseMs: options.leaseMs ?? 300_000,
    retryMs: options.retryMs ?? 5000,
    maxFeeds: options.maxFeeds ?? 1000,
    scheduler,
    validator: options.jsonSchemaValidator ?? compileJsonSchema,
    store: options.store,
  });
  const nextPollMs = options.nextPollMs ?? 5000;
  const pageSize = options.pageSize ?? 100;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new RangeError(`events: pageSize must be a positive integer, got ${pageSize}`);
  const maxEvents = options.maxEvents ?? 100;
  const limits: PushLimits | undefined = push && {
    heartbeatMs: push.heartbeatMs ?? 30_000,
    maxEventsPerSecond: push.maxEventsPerSecond ?? 100,
    bufferSize: push.bufferSize ?? 1000,
    maxStreams: push.maxStreams ?? 1000,
    scheduler,
  };
  const streams: StreamCount = { open: 0 };
  const webhooks = options.webhooks && webhookSubscriptions(catalog, options.webhooks, scheduler, options.store);

  /** Answers `events/poll`: at once from a feed in memory, once the store answers from a shared one. */
  const poll = (
    params: Record<string, unknown>,
    context: ServerContext,
  ): Record<string, unknown> | Promise<Record<string, unknown>> => {
    const subscription = catalog.check(params, EventMethod.Poll, 'poll');
    const asked = params.maxEvents;
    if (asked !== undefined && !(typeof asked === 'number' && Number.isInteger(asked) && asked > 0))
      throw JsonRpcError.invalidParams('events/poll: maxEvents must be a positive integer');
    const feed = catalog.feed(subscription, context);
    const max = Math.min(asked ?? maxEvents, maxEvents);
    const answer = (read: FeedRead): Record<string, unknown> =>
      ({ ...aged(read, subscription.maxAgeMs), nextPollMs }) satisfies EventPollResult;
    if (feed instanceof EventFeed) return answer(feed.read(subscription.cursor, max));
    return feed.read(subscription.cursor, max).then(answer);
  };

  const listChanged = new ExtensionListChanges(EventMethod.ListChanged, EVENTS_LIST_CHANGED_KEY);
  return {
    id: EVENTS_EXTENSION,
    settings: { delivery: served, ...(limits ? { heartbeatMs: limits.heartbeatMs } : {}), listChanged: true },
    get types() {
      return catalog.types;
    },
    setTypes: (next) => {
      if (catalog.replace(next)) listChanged.changed();
    },
    listChanged,
    handlers: {
      [EventMethod.List]: (params: Record<string, unknown>) => listPage(catalog.types, params.cursor, pageSize),
      [EventMethod.Poll]: poll,
      ...(limits && {
        [EventMethod.Stream]: (params: Record<string, unknown>, context: ServerContext) =>
          streamEvents(catalog, limits, streams, catalog.check(params, EventMethod.Stream, 'push'), context),
      }),
      ...(webhooks && {
        [EventMethod.Subscribe]: async (params: Record<string, unknown>, context: ServerContext) => ({
          ...(await webhooks.subscribe(params, context)),
        }),
        [EventMethod.Unsubscribe]: (params: Record<string, unknown>, context: ServerContext) =>
          webhooks.unsubscribe(params, context),
      }),
    },
  };
}

/** The webhook subscriptions of `options`, with their defaults. */
function webhookSubscriptions(
  catalog: EventCatalog,
  options: WebhookOptions,
  scheduler: SchedulerLike,
  store: EventFeedStore | undefined,
): WebhookSubscriptions | SharedWebhookSubscriptions {
  const limits: SubscriptionLimits = {
    policy: { allow: options.allow, ...(options.allowAddresses && { allowAddresses: options.allowAddresses }) },
    principal: options.principal,
    defaultTtlMs: options.defaultTtlMs ?? 1_800_000,
    maxTtlMs: options.maxTtlMs ?? 1_800_000,
    minTtlMs: options.minTtlMs ?? 60_000,
    maxSubscriptions: options.maxSubscriptions ?? 1000,
    queueSize: options.queueSize ?? 100,
    retryDelaysMs: options.retryDelaysMs ?? [1000, 5000, 30_000, 120_000],
    suspendAfter: options.suspendAfter ?? 5,
    rotationGraceMs: options.rotationGraceMs ?? 300_000,
    timeoutMs: options.timeoutMs ?? 10_000,
    scheduler,
  };
  return store?.webhooks
    ? new SharedWebhookSubscriptions(catalog, limits, store.webhooks, scheduler)
    : new WebhookSubscriptions(catalog, limits);
}

/** `read` without the occurrences older than `maxAgeMs` (when asked); its cursor still passes them. */
/**
 * One page of `events/list` (same semantics as `tools/list`): from the position `cursor` names (an
 * opaque string of ours; -32602 for one we did not give), with `nextCursor` when more follow.
 */
function listPage(types: readonly EventType[], cursor: unknown, pageSize: number): Record<string, unknown> {
  let from = 0;
  if (cursor !== undefined && cursor !== null) {
    const position = typeof cursor === 'string' && /^e[0-9]+$/.test(cursor) ? Number(cursor.slice(1)) : NaN;
    if (!Number.isSafeInteger(position) || position > types.length)
      throw JsonRpcError.invalidParams('events/list: cursor is not one this server gave');
    from = position;
  }
  const to = from + pageSize;
  return { events: types.slice(from, to), ...(to < types.length ? { nextCursor: `e${to}` } : {}) };
}

function aged(read: FeedRead, maxAgeMs: number | undefined): FeedRead {
  const { entries: events, skipped } = replayable(read.events, maxAgeMs, (occurrence) => occurrence);
  // The floor passed the cursor: what it skipped is said as a gap (design sketch: `maxAgeMs`).
  return skipped ? { ...read, events, truncated: true } : read;
}
