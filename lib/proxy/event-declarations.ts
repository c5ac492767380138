/**
 * What a proxy declares and tells of its upstreams' events (the triggers and events extension's
 * design sketch, as merged on 2026-09-08; experimental): the settings each side declared, the merged settings
 * of an aggregate, and the changes of the event types (`notifications/events/list_changed`), which
 * reach only the downstream clients told of events.
 */
import { catchError, EMPTY, map, skip } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { McpClient } from '../client/client-api';
import { eventsClient } from '../client/events/events-client';
import type { Connection } from '../connection/connection';
import { declaredExtensions } from '../schema/extensions';
import { EVENTS_EXTENSION, EVENTS_LIST_CHANGED_KEY, EventMethod } from '../schema/events';
import type { EventDeliveryMode, EventsSettings } from '../schema/events';
import { listenedList } from '../server/extension-lists';
import type { ListenedList } from '../server/extension-lists';

/** The events settings an upstream declared (`capabilities.extensions` or `experimental`), or undefined. */
export function declaredEvents(capabilities: unknown): EventsSettings | undefined {
  const settings = declaredExtensions(capabilities as Record<string, unknown> | undefined)[EVENTS_EXTENSION];
  return settings as EventsSettings | undefined;
}

/** Whether `client` declared the events extension to its server: events are off on that hop otherwise. */
export function clientDeclaresEvents(client: McpClient): boolean {
  return declaredEvents(client.connection.capabilities()) !== undefined;
}

const MODES: readonly EventDeliveryMode[] = ['poll', 'push', 'webhook'];

/**
 * The events settings to declare for several upstreams at once (an aggregate): every delivery mode
 * one of them serves, and the longest heartbeat interval, so that a client never takes the
 * slowest upstream's quiet stream for a dead one. Undefined when none declared events.
 */
export function mergedEvents(declared: ReadonlyArray<EventsSettings | undefined>): EventsSettings | undefined {
  const present = declared.filter((settings): settings is EventsSettings => settings !== undefined);
  if (present.length === 0) return undefined;
  const served = new Set<EventDeliveryMode>(present.flatMap((settings) => settings.delivery ?? ['poll' as const]));
  const beats = present.flatMap((settings) => (settings.heartbeatMs === undefined ? [] : [settings.heartbeatMs]));
  return {
    delivery: MODES.filter((mode) => served.has(mode)),
    ...(beats.length > 0 ? { heartbeatMs: Math.max(...beats) } : {}),
    // The merged types follow the upstreams, which come, go and change theirs.
    listChanged: true,
  };
}

/**
 * Whether list change `method` may reach a downstream connection: the events one only where the
 * proxy declared events to it and its client declared them (off otherwise, as the extension is).
 */
export function mayTell(connection: Pick<Connection, 'capabilities' | 'peerCapabilities'>, method: string): boolean {
  return (
    method !== EventMethod.ListChanged ||
    (declaredEvents(connection.capabilities()) !== undefined &&
      declaredEvents(connection.peerCapabilities) !== undefined)
  );
}

/**
 * Each change of the upstream's event types, as `notifications/events/list_changed` (none where
 * the upstream hop has no events, or the upstream does not tell of changes).
 */
export function eventTypeChanges(upstream: McpClient): Observable<string> {
  if (!clientDeclaresEvents(upstream) || declaredEvents(upstream.serverCapabilities)?.listChanged !== true)
    return EMPTY;
  return eventsClient(upstream).types$.pipe(
    skip(1),
    map(() => EventMethod.ListChanged),
    catchError(() => EMPTY),
  );
}

/**
 * What a proxy's listen streams follow of its `notifications/events/list_changed`, told at each
 * `changes$`: only while the proxy declares events (`declared`, read per stream).
 */
export function eventsListenList(changes$: Observable<unknown>, declared: () => Record<string, unknown>): ListenedList {
  const list = listenedList(EventMethod.ListChanged, EVENTS_LIST_CHANGED_KEY, EVENTS_EXTENSION, changes$);
  return {
    follow: (wanted, clientCapabilities, agreed, relay) =>
      declaredEvents(declared()) === undefined ? undefined : list.follow(wanted, clientCapabilities, agreed, relay),
  };
}
