/**
 * Events (the triggers and events extension's design sketch of 2026-02-19, experimental): an MCP
 * server declares event types, and a client follows their occurrences. This module holds what
 * both sides share: the extension's identifier, its methods and the shapes they carry.
 */

/** The extension identifier rxmcp negotiates events under. */
export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';

/** The delivery modes of the design sketch; rxmcp serves and follows `poll`. */
export type EventDeliveryMode = 'poll' | 'push' | 'webhook';

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

/** The design sketch's error codes that events use. */
export const EventErrorCode = {
  NotFound: -32011,
  ResourceExhausted: -32013,
  Unsupported: -32014,
} as const;
