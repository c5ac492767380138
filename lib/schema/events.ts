/**
 * Events (the triggers and events extension's design sketch, as merged on 2026-09-08, experimental): an MCP
 * server declares event types, and a client follows their occurrences, by polling
 * (`events/poll`), by a push stream (`events/stream`) or by webhook (`events/subscribe`). This
 * module holds what both sides share: the extension's identifier, its methods and the shapes they
 * carry.
 */

/** The extension identifier rxmcp negotiates events under. */
export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';

/** The delivery modes of the design sketch. */
export type EventDeliveryMode = 'poll' | 'push' | 'webhook';

/**
 * The settings a server declares for the events extension (an rxmcp addition the sketch leaves
 * open): the delivery modes it serves, and how often a push stream's heartbeat comes, so that a
 * client can tell a dead stream from a quiet one.
 */
export interface EventsSettings {
  readonly delivery?: readonly EventDeliveryMode[];
  readonly heartbeatMs?: number;
  /** The server tells when its event types change (`notifications/events/list_changed`; design sketch). */
  readonly listChanged?: boolean;
}

/**
 * The `subscriptions/listen` filter key under which a client of a modern revision asks for
 * `notifications/events/list_changed` (an rxmcp addition: the sketch names no key, and the
 * revision's filter takes keys beyond its own; the acknowledgement says whether it is honoured).
 */
export const EVENTS_LIST_CHANGED_KEY = 'eventsListChanged';

/** The methods and notifications of events (design sketch: Subscribing and Event Delivery). */
export const EventMethod = {
  List: 'events/list',
  Poll: 'events/poll',
  Stream: 'events/stream',
  Subscribe: 'events/subscribe',
  Unsubscribe: 'events/unsubscribe',
  /** A push stream is open (or, with `truncated`, skipped ahead): `{ cursor, truncated }`. */
  Active: 'notifications/events/active',
  /** One occurrence on a push stream. */
  Event: 'notifications/events/event',
  /** A push stream's keepalive, with the cursor checked up to. */
  Heartbeat: 'notifications/events/heartbeat',
  /** A recoverable failure: the stream stays open. */
  Error: 'notifications/events/error',
  /** The subscription ended (e.g. authorization revoked). */
  Terminated: 'notifications/events/terminated',
  /** The set of event types, or one's descriptor, changed: call `events/list` again. */
  ListChanged: 'notifications/events/list_changed',
} as const;

/** One event type a server declares (`events/list`). */
export interface EventType {
  readonly name: string;
  readonly description?: string;
  readonly delivery: readonly EventDeliveryMode[];
  /** JSON Schema of the subscription arguments. */
  readonly inputSchema: Record<string, unknown>;
  /** JSON Schema of an occurrence's `data`. */
  readonly payloadSchema?: Record<string, unknown>;
}

/** One occurrence of an event. */
export interface EventOccurrence {
  /** Stable identifier, for de-duplication. */
  readonly eventId: string;
  readonly name: string;
  /** When it occurred (ISO 8601). */
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
  /** The subscription's position after this occurrence (push and webhook only). */
  readonly cursor?: string | null;
}

/** The answer to `events/poll`. */
export interface EventPollResult {
  readonly events: readonly EventOccurrence[];
  /** Where the next poll starts; `null` when the event type keeps no history. */
  readonly cursor: string | null;
  /** Events were skipped (the cursor was older than what the server keeps). */
  readonly truncated: boolean;
  /** More are waiting: poll again at once. */
  readonly hasMore: boolean;
  /** When to poll next, when nothing more waits. */
  readonly nextPollMs: number;
}

/** Why webhook deliveries fail, as categories (design sketch: Webhook Delivery Status); never the endpoint's words. */
export type WebhookErrorCategory =
  'connection_refused' | 'timeout' | 'tls_error' | 'http_4xx' | 'http_5xx' | 'challenge_failed';

/** How a webhook subscription's deliveries go (`deliveryStatus` of `events/subscribe`). */
export interface WebhookDeliveryStatus {
  /** False when deliveries were suspended after repeated failures (a refresh resumes them). */
  readonly active: boolean;
  readonly lastDeliveryAt: string | null;
  readonly lastError: WebhookErrorCategory | null;
  readonly failedSince?: string;
}

/** The answer to `events/subscribe`. */
export interface EventSubscribeResult {
  /** Derived from (principal, url, name, arguments): a routing handle, not a credential. */
  readonly id: string;
  /** When the subscription lapses unless refreshed (ISO 8601); `null`: never. */
  readonly refreshBefore: string | null;
  /** A safe-to-persist watermark. */
  readonly cursor: string | null;
  readonly truncated: boolean;
  readonly deliveryStatus?: WebhookDeliveryStatus;
}

/** A webhook control body (design sketch: Non-event webhook bodies). */
export type WebhookControlBody =
  | { readonly type: 'gap'; readonly cursor: string | null }
  | {
      readonly type: 'terminated';
      readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
    };

/** The design sketch's error codes that events use. */
export const EventErrorCode = {
  NotFound: -32011,
  Forbidden: -32012,
  ResourceExhausted: -32013,
  Unsupported: -32014,
  CallbackEndpointError: -32015,
} as const;
