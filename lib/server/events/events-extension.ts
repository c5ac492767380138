/**
 * Events on the server (the triggers and events extension's design sketch of 2026-02-19;
 * experimental): `events(...)` declares event types, each with an Observable source, and serves
 * `events/list` and `events/poll`. A poll needs no subscription: its first one, with a null
 * cursor, starts following the source for its arguments, and each one after reads what came since
 * its cursor. Push (`events/stream`) and webhook delivery are not served yet.
 */
import type { Observable, SchedulerLike } from '../../rx/rxjs';
import { JsonRpcError } from '../../jsonrpc/errors';
import { timerScheduler } from '../../operators/timer-scheduler';
import { EVENTS_EXTENSION, EventErrorCode } from '../../schema/events';
import type { EventPollResult, EventType } from '../../schema/events';
import { principalOf } from '../../transport/transport';
import type { ServerExtension } from '../extensions';
import type { ServerContext } from '../server-context';
import { EventFeed } from './event-feed';
import type { EventEmission } from './event-feed';

/** One event type a server serves. */
export interface EventDefinition {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the subscription arguments. Default: any object. */
  readonly inputSchema?: Record<string, unknown>;
  /** JSON Schema of an occurrence's `data`. */
  readonly payloadSchema?: Record<string, unknown>;
  /**
   * The occurrences for one set of arguments, as the caller of the poll may see them. Subscribed
   * when the first poll for those arguments comes, unsubscribed when none has come for `leaseMs`.
   * `context` is that first poll's: read who asks (`auth`, `session`) from it, but not its
   * `signal`, which ends with that poll while the source goes on.
   */
  readonly source: (args: Record<string, unknown>, context: ServerContext) => Observable<EventEmission>;
}

/** Options of {@link events}. */
export interface EventsOptions {
  /** When a client should poll next, when nothing more waits. Default 5 s. */
  readonly nextPollMs?: number;
  /** Most occurrences one poll returns (a client may ask for fewer). Default 100. */
  readonly maxEvents?: number;
  /** Occurrences kept per followed source for polls to read. Default 1000. */
  readonly capacity?: number;
  /** A followed source no poll has read for this long is released. Default 5 min. */
  readonly leaseMs?: number;
  /** Sources followed at once, across callers and arguments; a poll past it gets -32013. Default 1000. */
  readonly maxFeeds?: number;
  /** Where leases are timed. */
  readonly scheduler?: SchedulerLike;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stable text for JSON values: object keys sorted, so that equal arguments name one feed. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * The events extension for `createServer({ extensions: [...] })`.
 * @example
 * const server = createServer({
 *   name: 'inbox', version: '1.0.0',
 *   extensions: [events([{ name: 'email.received', source: () => mail$.pipe(map((mail) => ({ data: mail }))) }])],
 * });
 */
export function events(definitions: readonly EventDefinition[], options: EventsOptions = {}): ServerExtension {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  if (byName.size !== definitions.length) throw new TypeError('events: each event type needs a name of its own');
  const types: EventType[] = definitions.map((definition) => ({
    name: definition.name,
    ...(definition.description === undefined ? {} : { description: definition.description }),
    delivery: ['poll'],
    inputSchema: definition.inputSchema ?? { type: 'object' },
    ...(definition.payloadSchema === undefined ? {} : { payloadSchema: definition.payloadSchema }),
  }));
  const nextPollMs = options.nextPollMs ?? 5000;
  const maxEvents = options.maxEvents ?? 100;
  const feeds = new Map<string, EventFeed>();

  const poll = (params: Record<string, unknown>, context: ServerContext): EventPollResult => {
    const { name, arguments: args = {}, cursor = null, maxEvents: asked } = params;
    if (typeof name !== 'string') throw JsonRpcError.invalidParams("events/poll needs the event type's name");
    const definition = byName.get(name);
    if (!definition)
      throw new JsonRpcError(EventErrorCode.NotFound, `No event type named ${JSON.stringify(name)}`, { kind: 'event' });
    if (!isObject(args)) throw JsonRpcError.invalidParams('events/poll: arguments must be an object');
    if (cursor !== null && typeof cursor !== 'string')
      throw JsonRpcError.invalidParams('events/poll: cursor must be a string or null');
    if (asked !== undefined && !(Number.isInteger(asked) && (asked as number) > 0))
      throw JsonRpcError.invalidParams('events/poll: maxEvents must be a positive integer');
    // Each caller follows its own sources: what one may see is not read by another.
    const key = `${principalOf(context.auth) ?? ''}\n${name}\n${canonical(args)}`;
    let feed = feeds.get(key);
    if (!feed) {
      if (feeds.size >= (options.maxFeeds ?? 1000))
        throw new JsonRpcError(EventErrorCode.ResourceExhausted, 'Too many event sources followed at once', {
          limit: 'subscriptions',
        });
      feed = new EventFeed(
        name,
        () => definition.source(args, context),
        options.capacity ?? 1000,
        options.leaseMs ?? 300_000,
        options.scheduler ?? timerScheduler,
        () => feeds.delete(key),
      );
      feeds.set(key, feed);
    }
    const read = feed.read(cursor, Math.min((asked as number | undefined) ?? maxEvents, maxEvents));
    return { ...read, nextPollMs };
  };

  return {
    id: EVENTS_EXTENSION,
    handlers: {
      'events/list': () => ({ events: types }),
      'events/poll': (params, context) => ({ ...poll(params, context) }),
    },
  };
}
