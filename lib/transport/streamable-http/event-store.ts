import type { JsonRpcMessage } from '../../jsonrpc/message';

/** What an SSE event of a Streamable HTTP stream carries: a message, a batch, or nothing (a priming event). */
export type StoredEventPayload = JsonRpcMessage | readonly JsonRpcMessage[] | null;

/**
 * Where a Streamable HTTP server keeps the events it sends on SSE streams so that a client whose
 * stream broke can resume it with `GET` + `Last-Event-ID` (spec: Transports → Resumability and
 * Redelivery). Event ids are the store's to choose, but they must be unique across every stream
 * the store serves (several sessions share one store) and must identify the stream they belong to.
 *
 * Methods may answer synchronously or with a Promise (a store backed by a database).
 */
export interface EventStore {
  /**
   * Records one event of `streamId` and returns its id. `null` is a priming event: it gets an id
   * (a cursor the client can resume from) but nothing is replayed for it.
   */
  storeEvent(streamId: string, payload: StoredEventPayload): string | Promise<string>;
  /**
   * Calls `send` for each event recorded on the stream of `lastEventId` after that event, in
   * order, skipping priming events, and returns that stream's id; `undefined` when the id is
   * unknown (never issued, or already evicted), in which case nothing is sent.
   */
  replayAfter(
    lastEventId: string,
    send: (eventId: string, payload: JsonRpcMessage | readonly JsonRpcMessage[]) => void,
  ): string | undefined | Promise<string | undefined>;
}

/** Options of {@link createInMemoryEventStore}. */
export interface InMemoryEventStoreOptions {
  /** The most events kept over all streams; the oldest are evicted first. Default 10 000. */
  readonly maxEvents?: number;
}

/** The store {@link createInMemoryEventStore} makes: an {@link EventStore} that answers synchronously. */
export interface InMemoryEventStore extends EventStore {
  storeEvent(streamId: string, payload: StoredEventPayload): string;
  replayAfter(
    lastEventId: string,
    send: (eventId: string, payload: JsonRpcMessage | readonly JsonRpcMessage[]) => void,
  ): string | undefined;
  /** How many events it holds. */
  readonly size: number;
}

/** The default bound of {@link createInMemoryEventStore}. */
export const DEFAULT_MAX_STORED_EVENTS = 10_000;

interface Entry {
  readonly streamId: string;
  readonly payload: StoredEventPayload;
}

/**
 * Creates an {@link EventStore} held in memory, bounded by `maxEvents` (oldest evicted first), so a
 * long-running server does not grow without limit. Event ids are `<streamId>#<sequence>`, with one
 * sequence for the whole store: unique, ordered, and they name their stream. Synchronous.
 * Events of a stream evicted before a client resumes are lost to that client; `replayAfter` then
 * answers `undefined` for ids that are gone.
 */
export function createInMemoryEventStore(options: InMemoryEventStoreOptions = {}): InMemoryEventStore {
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_STORED_EVENTS;
  if (!(maxEvents >= 1)) throw new RangeError('maxEvents must be at least 1');
  // Insertion-ordered: the first key is always the oldest event.
  const events = new Map<string, Entry>();
  // Event ids per stream, in order, so replay does not scan other streams.
  const byStream = new Map<string, string[]>();
  let sequence = 0;

  const evictOldest = (): void => {
    const oldest = events.keys().next();
    if (oldest.done) return;
    const entry = events.get(oldest.value) as Entry;
    events.delete(oldest.value);
    const ids = byStream.get(entry.streamId);
    ids?.shift();
    if (ids && ids.length === 0) byStream.delete(entry.streamId);
  };

  return {
    storeEvent(streamId, payload) {
      const eventId = `${streamId}#${++sequence}`;
      events.set(eventId, { streamId, payload });
      const ids = byStream.get(streamId);
      if (ids) ids.push(eventId);
      else byStream.set(streamId, [eventId]);
      while (events.size > maxEvents) evictOldest();
      return eventId;
    },
    replayAfter(lastEventId, send) {
      const entry = events.get(lastEventId);
      if (!entry) return undefined;
      const ids = byStream.get(entry.streamId) ?? [];
      const after = ids.indexOf(lastEventId);
      for (const eventId of ids.slice(after + 1)) {
        const payload = events.get(eventId)?.payload;
        if (payload !== null && payload !== undefined) send(eventId, payload);
      }
      return entry.streamId;
    },
    get size() {
      return events.size;
    },
  };
}
