/**
 * Events on the client (the triggers and events extension's design sketch of 2026-02-19;
 * experimental): the event types a server declares, and an event type's occurrences as an
 * Observable. The SDK runs the poll loop (`events/poll` at the interval the server asks for, at
 * once while more wait), so that the model only ever sees occurrences.
 */
import { asyncScheduler, firstValueFrom, Observable } from '../../rx/rxjs';
import type { SchedulerLike, Subscription } from '../../rx/rxjs';
import { CapabilityNotSupportedError, ProtocolError } from '../../jsonrpc/errors';
import { EVENTS_EXTENSION } from '../../schema/events';
import type { EventOccurrence, EventPollResult, EventType } from '../../schema/events';
import type { McpClient } from '../client-api';
import { serverSupportsExtension } from '../extensions';

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
  /** Where the waits between polls are timed. */
  readonly scheduler?: SchedulerLike;
}

/** The events of the server a client is connected to. */
export interface EventsClient {
  /** Whether the server declared the events extension. */
  readonly supported: boolean;
  /** The event types the server declares. */
  list(): Promise<readonly EventType[]>;
  /**
   * The occurrences of event type `name` for `args`, as they are polled: cold (subscribing starts
   * polling, unsubscribing stops it), never completing on its own, erroring with the server's
   * error (an unknown event type: -32011). An occurrence seen twice (same `eventId`) is emitted once.
   */
  follow(name: string, args?: Record<string, unknown>, options?: FollowEventsOptions): Observable<EventOccurrence>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A poll's answer as checked on arrival. */
function readPoll(result: Record<string, unknown>): EventPollResult {
  const { events, cursor, truncated, hasMore, nextPollMs } = result;
  const valid =
    Array.isArray(events) &&
    events.every((event) => isObject(event) && typeof event.eventId === 'string' && isObject(event.data)) &&
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

/** How many recent event ids a follower remembers to drop a repeat. */
const REMEMBERED_IDS = 1000;

/**
 * The events of the server `client` is connected to.
 * @example
 * const events = eventsClient(client);
 * events.follow('email.received', { from: '*@example.com' }).subscribe((event) => wakeTheAgent(event.data));
 */
export function eventsClient(client: McpClient): EventsClient {
  const supported = serverSupportsExtension(client, EVENTS_EXTENSION);
  const need = (method: string) => {
    if (!supported) throw new CapabilityNotSupportedError(EVENTS_EXTENSION, method, 'server');
  };
  return {
    supported,
    async list() {
      need('events/list');
      const result = await firstValueFrom(client.request('events/list', {}));
      if (!Array.isArray(result.events)) throw new ProtocolError('events/list returned no list of event types');
      return result.events as EventType[];
    },
    follow(name, args = {}, options = {}) {
      return new Observable<EventOccurrence>((subscriber) => {
        need('events/poll');
        const scheduler = options.scheduler ?? asyncScheduler;
        const minPollMs = options.minPollMs ?? 1000;
        const seen: string[] = [];
        let cursor = options.cursor ?? null;
        let current: Subscription | undefined;
        const poll = (): void => {
          const params: Record<string, unknown> = { name, arguments: args, cursor };
          if (options.maxEvents !== undefined) params.maxEvents = options.maxEvents;
          current = client.request('events/poll', params).subscribe({
            next: (raw) => {
              let result: EventPollResult;
              try {
                result = readPoll(raw);
              } catch (error) {
                subscriber.error(error);
                return;
              }
              if (result.truncated) options.onTruncated?.();
              for (const event of result.events) {
                if (seen.includes(event.eventId)) continue;
                seen.push(event.eventId);
                if (seen.length > REMEMBERED_IDS) seen.shift();
                subscriber.next(event);
              }
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
    },
  };
}
