/**
 * The cluster-wide events meant for sessions (resource updates, log messages), kept in a Redis
 * Stream as well as published, so that a session whose owner died gets, once taken over, those it
 * missed. Each such event's notification is stored in the session's events with the event's id
 * (the `b` field), so the process that takes the session over knows where its owner stopped.
 */
import type pino from 'pino';
import { LOG_LEVELS } from '../connection/handler-events';
import type { LogLevel } from '../connection/handler-events';
import type { JsonRpcMessage, JsonRpcNotification } from '../jsonrpc/message';
import type { PersistedSession } from '../server/server-context';
import type { Transport } from '../transport/transport';
import type { ClusterKeys } from './cluster-keys';
import type { RedisConnection } from './redis-connection';

/** The topics of the cluster-wide resource updates and log messages. */
export const RESOURCE_UPDATED = 'rxmcp.resource-updated';
export const LOG = 'rxmcp.log';

/** How many events the log keeps (approximately: trimmed with `~`). */
const MAX_LOGGED_EVENTS = 10_000;
/** How many of the events it relayed last a process remembers, to relay one it receives twice once. */
const RELAYED_KEPT = 4096;
/** The most logged events a process reads at once when it catches up after a cut. */
const CATCH_UP_MAX = 1000;

/** A logged event as published: its topic, payload and id in the log. */
export interface LoggedEvent {
  readonly topic: string;
  readonly payload: unknown;
  readonly id: string;
}

/** Whether stream id `a` comes after `b` (`<ms>-<seq>`). */
export function streamIdAfter(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am > bm : as > bs;
}

/**
 * The log of one cluster's session events, as one process sees it: the last event it relayed,
 * and which outgoing notifications carry which event (so that the event store records it).
 */
export class BusLog {
  /** The notification objects a relayed event became, with the event's id. */
  readonly tags = new WeakMap<object, string>();
  /** The id of the last event this process relayed (or the log's last when it joined). */
  lastId = '0-0';
  private relaying: string | undefined;
  /** The ids of the events relayed last: one read from the log after a cut may also be published. */
  private readonly relayed = new Set<string>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: ClusterKeys,
    private readonly log: pino.Logger,
  ) {}

  /** Reads where the log is now: events before it are not this process's to relay. */
  async open(): Promise<void> {
    const last = (await this.redis.call('XREVRANGE', [this.keys.busLog, '+', '-', 'COUNT', 1])) as Array<[string]>;
    if (last.length > 0) this.lastId = last[0]![0];
  }

  /** Appends an event to the log; resolves with its id. */
  async append(topic: string, payload: unknown): Promise<string> {
    const args = [this.keys.busLog, 'MAXLEN', '~', MAX_LOGGED_EVENTS, '*', 'e', JSON.stringify({ topic, payload })];
    return String(await this.redis.call('XADD', args));
  }

  /**
   * Runs `deliver` (which sends the event's notifications to this process's sessions) as event `id`;
   * nothing when event `id` was relayed here already (read from the log, then received as published).
   */
  relay(id: string | undefined, deliver: () => void): void {
    if (id !== undefined) {
      if (this.relayed.has(id)) return;
      this.relayed.add(id);
      if (this.relayed.size > RELAYED_KEPT) this.relayed.delete(this.relayed.values().next().value as string);
      if (streamIdAfter(id, this.lastId)) this.lastId = id;
    }
    this.relaying = id;
    try {
      deliver();
    } finally {
      this.relaying = undefined;
    }
  }

  /**
   * The logged events after the last one relayed here (at most {@link CATCH_UP_MAX}), in order: what
   * this process did not receive while its subscription was cut.
   */
  missed(): Promise<LoggedEvent[]> {
    return this.read(this.lastId, '+', CATCH_UP_MAX);
  }

  /** The logged events after `after`, up to `upTo` (`+`: the last), at most `count` of them, in order. */
  private async read(after: string, upTo: string, count?: number): Promise<LoggedEvent[]> {
    const args: (string | number)[] = [this.keys.busLog, `(${after}`, upTo];
    if (count !== undefined) args.push('COUNT', count);
    const entries = (await this.redis.call('XRANGE', args)) as Array<[string, string[]]>;
    return entries.flatMap(([id, fields]) => {
      try {
        const { topic, payload } = JSON.parse(fields[1] ?? '') as { topic?: unknown; payload?: unknown };
        return typeof topic === 'string' ? [{ topic, payload, id }] : [];
      } catch {
        return [];
      }
    });
  }

  /** Called with each message a session sends: a notification sent while relaying carries the event's id. */
  sending(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    if (this.relaying !== undefined && !Array.isArray(message)) this.tags.set(message, this.relaying);
  }

  /**
   * A session was taken over: sends it the logged events after the last one delivered to it (the
   * later of `since`, its record's watermark, and the last its stored events name), up to the last
   * this process relayed (later ones reach it as they are relayed), each as the notification its
   * owner would have sent. The record's watermark (where the log was when the session opened, moved
   * on by each delivered event it stores) survives the trimming of the session's events.
   */
  async replay(sessionId: string, state: PersistedSession, since: string, transport: Transport): Promise<number> {
    const upTo = this.lastId;
    const after = await this.lastDelivered(sessionId, since, upTo);
    if (!streamIdAfter(upTo, after)) return 0;
    let sent = 0;
    for (const event of await this.read(after, upTo)) {
      const message = notificationFor(event, state);
      if (message === undefined) continue;
      this.tags.set(message, event.id);
      transport.send(message);
      sent++;
    }
    if (sent > 0) this.log.info({ sessionId, sent }, 'events its owner missed sent to a session taken over');
    return sent;
  }

  /**
   * The id of the last logged event up to `upTo` the session's events record, or `since` when it is
   * later (one relayed to it here meanwhile, after `upTo`, does not count: those before it are
   * still owed).
   */
  private async lastDelivered(sessionId: string, since: string, upTo: string): Promise<string> {
    const entries = (await this.redis.call('XRANGE', [this.keys.events(sessionId), '-', '+'])) as Array<
      [string, string[]]
    >;
    let last = since;
    for (const [, fields] of entries) {
      const at = fields.indexOf('b');
      const id = at >= 0 && at % 2 === 0 ? fields[at + 1]! : undefined;
      if (id !== undefined && streamIdAfter(id, last) && !streamIdAfter(id, upTo)) last = id;
    }
    return last;
  }
}

const rank = (level: LogLevel): number => LOG_LEVELS.indexOf(level);

/** The notification a logged event is for a session in `state`; undefined when it is not for it. */
function notificationFor(event: LoggedEvent, state: PersistedSession): JsonRpcNotification | undefined {
  if (event.topic === RESOURCE_UPDATED && typeof event.payload === 'string') {
    if (!state.subscriptions.includes(event.payload)) return undefined;
    return { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: event.payload } };
  }
  if (event.topic === LOG) {
    const { level, data, logger } = event.payload as { level: LogLevel; data: unknown; logger?: string };
    if (state.declared?.logging === undefined || rank(level) < rank(state.logLevel)) return undefined;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    return { jsonrpc: '2.0', method: 'notifications/message', params };
  }
  return undefined;
}
