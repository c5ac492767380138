/**
 * The event types a server serves and the sources it follows for them, shared by every delivery
 * mode: the checks of a subscription's params (design sketch: Error Codes), and one feed per
 * caller, event type and arguments (the sketch's lease key), bounded in number.
 */
import { canonical, isRecord } from '../../base/objects';
import type { Observable, SchedulerLike } from '../../rx/rxjs';
import { JsonRpcError } from '../../jsonrpc/errors';
import { EventErrorCode } from '../../schema/events';
import type { EventDeliveryMode, EventOccurrence, EventType } from '../../schema/events';
import { principalOf } from '../../transport/transport';
import type { JsonSchemaValidate, JsonSchemaValidatorFactory } from '../../validation/json-schema-validator';
import type { ServerContext } from '../server-context';
import { EventFeed } from './event-feed';
import { endedTypes } from './type-changes';
import type { EventEmission, EventFeedOptions, FeedEntry } from './event-feed';
import type { EventFeedStore, Feed } from './feed-store';

/** One event type a server serves. */
export interface EventDefinition {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the subscription arguments. Default: any object. */
  readonly inputSchema?: Record<string, unknown>;
  /** JSON Schema of an occurrence's `data`. */
  readonly payloadSchema?: Record<string, unknown>;
  /**
   * The delivery modes offered for this type, among those the server serves. Default: all of
   * them (poll; push unless `push: false`; webhook when `webhooks` are configured).
   */
  readonly delivery?: readonly EventDeliveryMode[];
  /**
   * The occurrences for one set of arguments, as the caller may see them. Subscribed when the
   * first poll, stream or webhook subscription for those arguments comes, unsubscribed when none
   * has come for `leaseMs` and none listens. `context` is that first request's: read who asks
   * (`auth`, `session`) from it, but not its `signal`, which ends with that request while the
   * source goes on.
   */
  readonly source: (args: Record<string, unknown>, context: ServerContext) => Observable<EventEmission>;
}

/** A subscription's params, checked: the sketch's `{ name, arguments, cursor }`. */
export interface SubscriptionParams {
  readonly definition: EventDefinition;
  readonly args: Record<string, unknown>;
  readonly cursor: string | null;
  /** Occurrences older than this (by their `timestamp`) are not replayed (design sketch: `maxAgeMs`). */
  readonly maxAgeMs?: number;
}

/**
 * What of `replay` a subscription that asked for none older than `maxAgeMs` gets (all of it
 * without one; an occurrence whose time cannot be read is kept), and whether any was left out:
 * the sketch's `truncated`. `occurrenceOf` finds each item's occurrence (a feed entry's, or the
 * item itself).
 */
export function replayable<T>(
  replay: readonly T[],
  maxAgeMs: number | undefined,
  occurrenceOf: (item: T) => { readonly timestamp: string },
): { readonly entries: readonly T[]; readonly skipped: boolean } {
  if (maxAgeMs === undefined) return { entries: replay, skipped: false };
  const oldest = Date.now() - maxAgeMs;
  const entries = replay.filter((item) => {
    const time = Date.parse(occurrenceOf(item).timestamp);
    return Number.isNaN(time) || time >= oldest;
  });
  return { entries, skipped: entries.length < replay.length };
}

/** The occurrence of a feed entry, for {@link replayable}. */
export const entryOccurrence = (entry: FeedEntry): EventOccurrence => entry.occurrence;

/** The bounds of a catalog's feeds. */
export interface CatalogLimits {
  readonly capacity: number;
  readonly leaseMs: number;
  readonly retryMs: number;
  readonly maxFeeds: number;
  readonly scheduler: SchedulerLike;
  /** Compiles a type's `inputSchema` into the check of subscription arguments. */
  readonly validator: JsonSchemaValidatorFactory;
  /** Where feeds are shared with other processes; none: each feed lives in this process's memory. */
  readonly store: EventFeedStore | undefined;
}

/** The -32011 of an event type nobody serves (design sketch: Error Codes). */
export const unknownEventType = (name: unknown): JsonRpcError =>
  new JsonRpcError(EventErrorCode.NotFound, `No event type named ${JSON.stringify(name)}`, { kind: 'event' });

/** The -32014 of a delivery mode an event type does not offer. */
export const unsupportedMode = (mode: EventDeliveryMode, name: string): JsonRpcError =>
  new JsonRpcError(EventErrorCode.Unsupported, `Event type ${JSON.stringify(name)} is not delivered by ${mode}`, {
    feature: 'deliveryMode',
    value: mode,
  });

/** The descriptors `events/list` answers for `definitions`, each with the modes it is delivered by among `served`. */
function typesOf(definitions: readonly EventDefinition[], served: readonly EventDeliveryMode[]): EventType[] {
  return definitions.map((definition) => ({
    name: definition.name,
    ...(definition.description === undefined ? {} : { description: definition.description }),
    delivery: served.filter((mode) => definition.delivery?.includes(mode) ?? true),
    inputSchema: definition.inputSchema ?? { type: 'object' },
    ...(definition.payloadSchema === undefined ? {} : { payloadSchema: definition.payloadSchema }),
  }));
}

/** `definitions` by name; a `TypeError` for two of one name. */
function byNameOf(definitions: readonly EventDefinition[]): Map<string, EventDefinition> {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  if (byName.size !== definitions.length) throw new TypeError('events: each event type needs a name of its own');
  return byName;
}

export class EventCatalog {
  private byName: Map<string, EventDefinition>;
  /** The feeds followed, by key, with the event type each is of. */
  private readonly feeds = new Map<string, { readonly feed: Feed; readonly name: string }>();
  /** What `events/list` answers. */
  types: readonly EventType[];
  private readonly validators = new WeakMap<EventType, JsonSchemaValidate>();

  constructor(
    definitions: readonly EventDefinition[],
    private readonly served: readonly EventDeliveryMode[],
    private readonly limits: CatalogLimits,
  ) {
    this.byName = byNameOf(definitions);
    this.types = typesOf(definitions, served);
  }

  /**
   * Serves `definitions` from now on (design sketch: List changes and type removal); true when
   * what `events/list` answers changed. The subscriptions of a type no longer served end with
   * -32011, those of a type whose schemas changed other than by additions with -32014, and the
   * others go on (a source followed afresh is the new definition's). Throws a `TypeError`,
   * changing nothing, for two types of one name.
   */
  replace(definitions: readonly EventDefinition[]): boolean {
    const byName = byNameOf(definitions);
    const types = typesOf(definitions, this.served);
    const ended = endedTypes(this.types, types);
    const changed = canonical(types) !== canonical(this.types);
    this.byName = byName;
    this.types = types;
    for (const { feed, name } of [...this.feeds.values()]) {
      const error = ended.get(name);
      if (error !== undefined) feed.end?.(error);
    }
    return changed;
  }

  /** The check of a type's subscription arguments against its `inputSchema`, compiled on first use. */
  private validatorOf(type: EventType): JsonSchemaValidate {
    let validate = this.validators.get(type);
    if (!validate) this.validators.set(type, (validate = this.limits.validator(type.inputSchema)));
    return validate;
  }

  /**
   * Checks a subscription's params for `method` delivered by `mode`: -32011 for an unknown type,
   * -32014 for a mode it does not offer, -32602 for malformed params or `arguments` its
   * `inputSchema` refuses.
   */
  check(params: Record<string, unknown>, method: string, mode: EventDeliveryMode): SubscriptionParams {
    const { name, arguments: args = {}, cursor = null, maxAgeMs } = params;
    if (typeof name !== 'string') throw JsonRpcError.invalidParams(`${method} needs the event type's name`);
    const definition = this.byName.get(name);
    if (!definition) throw unknownEventType(name);
    if (!isRecord(args)) throw JsonRpcError.invalidParams(`${method}: arguments must be an object`);
    if (cursor !== null && typeof cursor !== 'string')
      throw JsonRpcError.invalidParams(`${method}: cursor must be a string or null`);
    if (maxAgeMs !== undefined && !(typeof maxAgeMs === 'number' && Number.isFinite(maxAgeMs) && maxAgeMs >= 0))
      throw JsonRpcError.invalidParams(`${method}: maxAgeMs must be a non-negative number`);
    const type = this.types.find((each) => each.name === name)!;
    if (!type.delivery.includes(mode)) throw unsupportedMode(mode, name);
    const issues = this.validatorOf(type)(args);
    if (issues.length > 0)
      throw JsonRpcError.invalidParams(
        issues.map((issue) => ({ ...issue, path: issue.path ? `arguments.${issue.path}` : 'arguments' })),
      );
    return maxAgeMs === undefined ? { definition, args, cursor } : { definition, args, cursor, maxAgeMs };
  }

  /** The feed of `subscription` for `context`'s caller: each caller follows its own sources. */
  feed(subscription: SubscriptionParams, context: ServerContext, principal = principalOf(context.auth)): Feed {
    const { definition, args } = subscription;
    const { name } = definition;
    const key = `${principal ?? ''}\n${name}\n${canonical(args)}`;
    let feed = this.feeds.get(key)?.feed;
    if (!feed) {
      if (this.feeds.size >= this.limits.maxFeeds)
        throw new JsonRpcError(EventErrorCode.ResourceExhausted, 'Too many event sources followed at once', {
          limit: 'subscriptions',
          max: this.limits.maxFeeds,
        });
      const options: EventFeedOptions = {
        name,
        // Followed anew, a source is the one of the definition served then.
        source: () => (this.byName.get(name) ?? definition).source(args, context),
        capacity: this.limits.capacity,
        leaseMs: this.limits.leaseMs,
        retryMs: this.limits.retryMs,
        scheduler: this.limits.scheduler,
        onIdle: () => this.feeds.delete(key),
      };
      feed = this.limits.store ? this.limits.store.open({ ...options, key }) : new EventFeed(options);
      this.feeds.set(key, { feed, name });
    }
    return feed;
  }
}
