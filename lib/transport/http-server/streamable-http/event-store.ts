import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/message';

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
   *
   * @param owns When given, whether the stream of `lastEventId` belongs to the session resuming
   * it: a store should send nothing and answer `undefined` when it does not (another session's
   * event id). The server checks the stream id it gets back too, and writes nothing of a stream
   * that is not the resuming session's.
   */
  replayAfter(
    lastEventId: string,
    send: (eventId: string, payload: JsonRpcMessage | readonly JsonRpcMessage[]) => void,
    owns?: (streamId: string) => boolean,
  ): string | undefined | Promise<string | undefined>;
  /**
   * Drops every event of the session whose stream ids start with `prefix` (the server calls it when
   * the session ends: nobody can resume its streams any more). Optional.
   */
  forgetSession?(prefix: string): void | Promise<void>;
  /**
   * Records which requests a POST's stream answers, when the stream becomes resumable. Optional:
   * with {@link requestsOf}, a server that resumes a stream another process served (a cluster)
   * can answer the requests that process never answered, instead of leaving them waiting.
   */
  storeRequests?(streamId: string, ids: readonly RequestId[]): void | Promise<void>;
  /** What `storeRequests` recorded for a stream; `undefined` when nothing was. */
  requestsOf?(streamId: string): readonly RequestId[] | undefined | Promise<readonly RequestId[] | undefined>;
}

/** Options of {@link createInMemoryEventStore}. */
export interface InMemoryEventStoreOptions {
  /**
   * The most events kept for one session (the streams whose ids share the part before their last
   * `~`, as the server makes them); past it, that session's oldest are evicted, so one session's
   * flood never costs another its events (#13). Default 1 000.
   */
  readonly maxEventsPerSession?: number;
  /** The most events kept over all sessions; the oldest are evicted first. Default 100 000. */
  readonly maxEvents?: number;
}

/** The store {@link createInMemoryEventStore} makes: an {@link EventStore} that answers synchronously. */
export interface InMemoryEventStore extends EventStore {
  storeEvent(streamId: string, payload: StoredEventPayload): string;
  replayAfter(
    lastEventId: string,
    send: (eventId: string, payload: JsonRpcMessage | readonly JsonRpcMessage[]) => void,
    owns?: (streamId: string) => boolean,
  ): string | undefined;
  forgetSession(prefix: string): void;
  /** How many events it holds. */
  readonly size: number;
}

/** The default bounds of {@link createInMemoryEventStore}. */
export const DEFAULT_MAX_STORED_EVENTS = 100_000;
export const DEFAULT_MAX_STORED_EVENTS_PER_SESSION = 1_000;

interface Entry {
  readonly streamId: string;
  readonly session: string;
  readonly payload: StoredEventPayload;
}

/** The session a stream belongs to: its id up to the last `~` (`<session>~<n>`), or the stream itself. */
function sessionOf(streamId: string): string {
  const cut = streamId.lastIndexOf('~');
  return cut < 0 ? streamId : streamId.slice(0, cut);
}

/**
 * Creates an {@link EventStore} held in memory, bounded per session (`maxEventsPerSession`, its
 * oldest evicted first) and in all (`maxEvents`), so a long-running server does not grow without
 * limit and no session's traffic evicts another's; a session's events are dropped when it ends.
 * Event ids are `<streamId>#<sequence>`, with one sequence for the whole store: unique, ordered,
 * and they name their stream. Synchronous. Events evicted before a client resumes are lost to that
 * client; `replayAfter` then answers `undefined` for ids that are gone.
 */
export function createInMemoryEventStore(options: InMemoryEventStoreOptions = {}): InMemoryEventStore {
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_STORED_EVENTS;
  const perSession = options.maxEventsPerSession ?? DEFAULT_MAX_STORED_EVENTS_PER_SESSION;
  if (!(maxEvents >= 1) || !(perSession >= 1))
    throw new RangeError('maxEvents and maxEventsPerSession must be at least 1');
  // Insertion-ordered: the first key is always the oldest event.
  const events = new Map<string, Entry>();
  // Event ids per stream and per session, in order: replay scans one stream, eviction one session.
  const byStream = new Map<string, string[]>();
  const bySession = new Map<string, string[]>();

  const remember = (index: Map<string, string[]>, key: string, eventId: string): void => {
    const ids = index.get(key);
    if (ids) ids.push(eventId);
    else index.set(key, [eventId]);
  };
  // The oldest event of a session is also the oldest of its stream, so both lists lose their head.
  const dropHead = (index: Map<string, string[]>, key: string): void => {
    const ids = index.get(key);
    ids?.shift();
    if (ids && ids.length === 0) index.delete(key);
  };
  const evict = (eventId: string | undefined): void => {
    const entry = eventId === undefined ? undefined : events.get(eventId);
    if (!entry) return;
    events.delete(eventId!);
    dropHead(byStream, entry.streamId);
    dropHead(bySession, entry.session);
  };
  let sequence = 0;

  return {
    storeEvent(streamId, payload) {
      const eventId = `${streamId}#${++sequence}`;
      const session = sessionOf(streamId);
      events.set(eventId, { streamId, session, payload });
      remember(byStream, streamId, eventId);
      remember(bySession, session, eventId);
      while ((bySession.get(session)?.length ?? 0) > perSession) evict(bySession.get(session)![0]);
      while (events.size > maxEvents) evict(events.keys().next().value);
      return eventId;
    },
    replayAfter(lastEventId, send, owns) {
      const entry = events.get(lastEventId);
      if (!entry || (owns && !owns(entry.streamId))) return undefined;
      const ids = byStream.get(entry.streamId) ?? [];
      const after = ids.indexOf(lastEventId);
      for (const eventId of ids.slice(after + 1)) {
        const payload = events.get(eventId)?.payload;
        if (payload !== null && payload !== undefined) send(eventId, payload);
      }
      return entry.streamId;
    },
    forgetSession(prefix) {
      const session = prefix.endsWith('~') ? prefix.slice(0, -1) : prefix;
      for (const eventId of bySession.get(session) ?? []) {
        const entry = events.get(eventId);
        events.delete(eventId);
        if (entry) byStream.delete(entry.streamId);
      }
      bySession.delete(session);
    },
    get size() {
      return events.size;
    },
  };
}
