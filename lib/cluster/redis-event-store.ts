import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
import type pino from 'pino';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/message';
import type { EventStore, StoredEventPayload } from '../transport/http-server/streamable-http/event-store';
import { sessionOfStream } from './cluster-keys';
import type { ClusterKeys } from './cluster-keys';
import type { RedisConnection } from './redis-connection';
import type { SessionRegistry } from './session-registry';

/** Options of {@link createRedisEventStore}. */
export interface RedisEventStoreOptions {
  readonly redis: RedisConnection;
  readonly keys: ClusterKeys;
  /** The most events kept per session (its Redis Stream is trimmed to this length). */
  readonly maxEventsPerSession: number;
  /** A session's events expire this long after its last event (its idle time). */
  readonly ttlMs: number;
  readonly logger: pino.Logger;
  /**
   * The registry of the process's sessions: with it, each event of a session this process owns is
   * appended only while it still owns the session at the epoch it claimed (fenced); an event
   * refused so is not delivered either (the store rejects with {@link SessionTakenOverError}).
   */
  readonly registry?: SessionRegistry;
  /** The cluster-wide event each relayed notification stands for: stored with it (field `b`). */
  readonly busTags?: WeakMap<object, string>;
}

/** An owner's write was refused: another process took the session over. */
export class SessionTakenOverError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.SessionTakenOver;
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} was taken over by another process: this one no longer writes for it`);
    this.name = 'SessionTakenOverError';
  }
}

/** The store the cluster uses: an {@link EventStore} whose sessions' events can be kept when a process leaves. */
export interface RedisEventStore extends EventStore {
  /** While set, `forgetSession` keeps the events: the process is leaving and others carry its sessions on. */
  keepOnClose: boolean;
}

/**
 * Creates an {@link EventStore} on Redis Streams, one per session (`<prefix>ev:<session>`), shared
 * by every process of a cluster: any process replays what another stored. Each entry holds its SSE
 * stream's id and its JSON; event ids are `<streamId>#<entry id>`. A session's stream is trimmed to
 * `maxEventsPerSession` entries and expires `ttlMs` after its last event; it is deleted when the
 * session ends. A `Last-Event-ID` whose entry was trimmed answers `undefined` (the client then
 * cannot resume without loss, and is told so with 400). It also records the requests each POST's
 * stream carries, so that the process that takes a session over answers those its dead owner
 * left unanswered.
 */
export function createRedisEventStore(options: RedisEventStoreOptions): RedisEventStore {
  const { redis, keys, maxEventsPerSession, ttlMs, logger, registry, busTags } = options;
  const maxLen = String(maxEventsPerSession);
  /** Appends one entry to the stream's session: fenced with a registry, its entry id. */
  const append = async (streamId: string, fields: string[]): Promise<string> => {
    const sessionId = sessionOfStream(streamId);
    if (registry) {
      const id = await registry.append(sessionId, fields, maxEventsPerSession);
      if (id === undefined) throw new SessionTakenOverError(sessionId);
      return id;
    }
    const key = keys.events(sessionId);
    const [entryId] = await Promise.all([
      redis.call('XADD', [key, 'MAXLEN', maxLen, '*', ...fields]),
      redis.call('PEXPIRE', [key, ttlMs]),
    ]);
    return String(entryId);
  };
  return {
    keepOnClose: false,
    async storeEvent(streamId: string, payload: StoredEventPayload): Promise<string> {
      const data = payload === null ? '' : JSON.stringify(payload);
      const fields = ['s', streamId, 'd', data];
      const bus = payload === null ? undefined : busTags?.get(payload);
      if (bus !== undefined) fields.push('b', bus);
      return `${streamId}#${await append(streamId, fields)}`;
    },
    async replayAfter(lastEventId, send): Promise<string | undefined> {
      const cut = lastEventId.lastIndexOf('#');
      if (cut < 0) return undefined;
      const streamId = lastEventId.slice(0, cut);
      const entryId = lastEventId.slice(cut + 1);
      if (!/^\d+-\d+$/.test(entryId)) return undefined;
      const entries = (await redis.call('XRANGE', [keys.events(sessionOfStream(streamId)), entryId, '+'])) as Array<
        [string, string[]]
      >;
      // The entry itself comes first; when it is gone (trimmed, expired), what followed it may be too.
      if (entries.length === 0 || entries[0]![0] !== entryId) return undefined;
      for (const [id, fields] of entries.slice(1)) {
        const entry = fieldsOf(fields);
        if (entry.s !== streamId || !entry.d) continue;
        try {
          send(`${streamId}#${id}`, JSON.parse(entry.d) as JsonRpcMessage | JsonRpcMessage[]);
        } catch (error) {
          logger.error({ err: error, eventId: id }, 'stored event is not JSON: skipped');
        }
      }
      return streamId;
    },
    async storeRequests(streamId: string, ids: readonly RequestId[]): Promise<void> {
      // An entry without data: replays skip it; it is trimmed and expires with the events.
      await append(streamId, ['s', streamId, 'r', JSON.stringify(ids)]);
    },
    async requestsOf(streamId: string): Promise<readonly RequestId[] | undefined> {
      const entries = (await redis.call('XRANGE', [keys.events(sessionOfStream(streamId)), '-', '+'])) as Array<
        [string, string[]]
      >;
      // The latest record counts: a stream whose owed requests were answered is recorded again, empty.
      let ids: RequestId[] | undefined;
      for (const [, fields] of entries) {
        const entry = fieldsOf(fields);
        if (entry.s === streamId && entry.r !== undefined) ids = JSON.parse(entry.r) as RequestId[];
      }
      return ids;
    },
    async forgetSession(prefix: string): Promise<void> {
      if (this.keepOnClose) return;
      const sessionId = prefix.endsWith('~') ? prefix.slice(0, -1) : prefix;
      // With a registry, a session's events go with its record (a fenced write): only those of no session go here.
      if (registry) await registry.forgetUnownedEvents(sessionId);
      else await redis.call('DEL', [keys.events(sessionId)]);
    },
  };
}

/** A stream entry's fields, `[name, value, ...]`, as a record. */
function fieldsOf(fields: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
  return record;
}
