import { randomBytes, randomUUID } from 'node:crypto';
import type pino from 'pino';
import { childLogger } from '../base/logger';
import type { LoggerOption } from '../base/logger';
import type { LogLevel } from '../connection/handler-events';
import { BusLog, LOG, RESOURCE_UPDATED } from './bus-log';
import type { McpServer } from '../server/server';
import {
  createStreamableHttpHandler,
  DEFAULT_MAX_BODY_BYTES,
} from '../transport/http-server/streamable-http/streamable-http-handler';
import { startStreamableHttpServer } from '../transport/http-server/streamable-http/streamable-http-server';
import type {
  RunningStreamableHttpServer,
  StreamableHttpServerOptions,
} from '../transport/http-server/streamable-http/streamable-http-server';
import { ClusterAuth } from './cluster-auth';
import { ClusterBus } from './cluster-bus';
import { ClusterEndpoint } from './cluster-endpoint';
import { ClusterKeys } from './cluster-keys';
import { clusterOperations } from './cluster-operations';
import { ClusterSessions } from './cluster-sessions';
import { connectRedis } from './redis-connection';
import type { RedisConnection, RedisSource } from './redis-connection';
import { ForwardProof } from './forward-proof';
import { keepAlive, relayEvents, reviveOnReconnect } from './cluster-upkeep';
import { OwnershipLease } from './ownership-lease';
import { createRedisEventStore } from './redis-event-store';
import { createRedisTaskStore } from './redis-task-store';
import type { TaskStore } from '../server/tasks/task-store';
import { SessionRegistry } from './session-registry';

/** Defaults of {@link joinRedisCluster}. */
export const DEFAULT_CLUSTER_PREFIX = 'rxmcp:';
export const DEFAULT_CLUSTER_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_CLUSTER_MAX_EVENTS_PER_SESSION = 1000;
export const DEFAULT_HEARTBEAT_MS = 1000;

/** Options of {@link joinRedisCluster}. */
export interface RedisClusterOptions {
  /** The Redis server: a URL (`redis://127.0.0.1:6379`, loads the optional `ioredis` package) or a client. */
  readonly redis: RedisSource;
  /** Starts every key and channel, so that several clusters can share one Redis. Default `rxmcp:`. */
  readonly prefix?: string;
  /**
   * A session with no request and no open stream for this long ends, in every process and in
   * Redis (its record and events expire). Default 30 minutes.
   */
  readonly sessionIdleMs?: number;
  /** The most SSE events kept per session for resumption (its Redis Stream's length). Default 1 000. */
  readonly maxEventsPerSession?: number;
  /**
   * How often this process says it is alive; it is taken for gone (and its sessions are taken over
   * by the processes their requests reach) after three beats are missed, or at once when its port
   * refuses connections. Default 1 000 ms.
   */
  readonly heartbeatMs?: number;
  /**
   * The secret the processes sign the requests they forward to each other with (HMAC-SHA256 over
   * the method, path, session id, credentials, a timestamp and the body's digest): a request that
   * claims to be forwarded without a valid proof is served as one from outside. Give every process
   * the same one (at least 32 random bytes); default: one made at the cluster's first join and kept
   * in Redis, readable by whoever can read Redis.
   */
  readonly forwardingSecret?: string;
  /**
   * The most sessions one principal (a verified caller: `principalOf`) may hold at once across the
   * cluster; an `initialize` past it is answered 429 with `Retry-After`. Counted in Redis, so a
   * caller cannot spread sessions over the processes. Callers of an endpoint without `auth` have no
   * principal and no quota (each process's `maxSessions` still holds). Default: no quota.
   */
  readonly maxSessionsPerPrincipal?: number;
  readonly logger?: LoggerOption;
}

/**
 * How {@link RedisCluster.serve} listens: the Streamable HTTP server's options, less what the
 * cluster decides. `auth` protects the endpoint of every process: each request's token is checked by
 * the process it reaches before anything is looked up, taken over, forwarded or written in Redis,
 * and again by the owner a request is forwarded to; each session belongs to the principal
 * (`principalOf`) that opened it, in every process and across takeovers.
 */
export type ClusterServeOptions = Omit<
  StreamableHttpServerOptions,
  'handler' | 'server' | 'onSession' | 'eventStore' | 'generateSessionId' | 'sessionIdleMs' | 'sessionless'
>;

/**
 * One process of a cluster that serves one MCP server on Streamable HTTP from many processes,
 * with its sessions, their state and their events in Redis (see {@link joinRedisCluster}).
 */
export interface RedisCluster {
  /** This process's id in the cluster. */
  readonly processId: string;
  /** The key every process signs `requestState` with: give it to `createServer({ requestState: { keys } })`. */
  readonly requestStateKeys: readonly string[];
  /**
   * Serves `server` as this process's share of the cluster's endpoint. Any request may reach any
   * process: a session's requests are forwarded to the process that owns it, and a session whose
   * process is gone is taken over. Closing the result hands this process's sessions to the others.
   */
  serve(server: McpServer, options?: ClusterServeOptions): Promise<RunningStreamableHttpServer>;
  /**
   * A task store in this cluster's Redis, for `createServer({ tasks: { store } })` in every process:
   * a task can then be read, listed and cancelled from any process, and one whose process died
   * reads as failed, with an error that says so (a store kept in Redis).
   */
  taskStore(): TaskStore;
  /** `server.resourceUpdated(uri)` in every process of the cluster. */
  resourceUpdated(uri: string): Promise<void>;
  /** `server.log(level, data)` in every process of the cluster. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /** Sends `payload` (JSON) to the listeners of `topic` in every process, this one included. */
  publish(topic: string, payload: unknown): Promise<void>;
  /** Listens to `topic`; returns a function that stops listening. */
  on(topic: string, listener: (payload: unknown) => void): () => void;
  /** Stops this process's part: its servers close (their sessions go on elsewhere), Redis is let go. */
  close(): Promise<void>;
}

/**
 * Joins (or starts) a cluster on Redis: connects, shares the `requestState` key, and subscribes to
 * the cluster's events. Then `serve` a server: every process of the cluster serves the same
 * definition (the same tools, resources and prompts, so lists and `server/discover` agree).
 *
 * Redis holds, per session: a hash with its owner, epoch, the principal that opened it and its
 * persisted state (revision, client capabilities and info, log level, subscriptions: a few kilobytes
 * at most), and a Redis Stream of its SSE events, at most `maxEventsPerSession` long; both expire
 * after `sessionIdleMs`. Per process, a heartbeat key; for the cluster, the `requestState` key, the
 * forwarding secret (unless the options give one) and one pub/sub channel. When Redis comes back
 * empty (restarted without persistence), each process writes again what it holds: its heartbeat,
 * the shared keys, and the records of the sessions it serves.
 *
 * With `serve(server, { auth })`, a request's token is checked by the process it reaches before
 * anything is looked up, forwarded, taken over or written in Redis; a request forwarded to a
 * session's owner carries the caller's token and an HMAC proof that a peer sent it, and the owner
 * checks the token again (no process takes another's word for who called). A session is served
 * only to the principal that opened it, on every process and after any takeover: another gets 403.
 *
 * @example
 * const cluster = await joinRedisCluster({ redis: 'redis://127.0.0.1:6379' });
 * const server = createServer({ name: 'demo', version: '1.0.0', requestState: { keys: cluster.requestStateKeys } });
 * const running = await cluster.serve(server, { port: 3000 });
 */
export async function joinRedisCluster(options: RedisClusterOptions): Promise<RedisCluster> {
  const owned = typeof options.redis === 'string';
  const redis = typeof options.redis === 'string' ? await connectRedis(options.redis) : options.redis;
  const keys = new ClusterKeys(options.prefix ?? DEFAULT_CLUSTER_PREFIX);
  const log = childLogger(options.logger, { component: 'cluster' });
  const processId = randomUUID();
  const stateKey = await sharedSecret(redis, keys.requestStateKey);
  const forwardingSecret = options.forwardingSecret ?? (await sharedSecret(redis, keys.forwardingSecretKey));
  const bus = await ClusterBus.open(redis, keys.bus, log);
  const busLog = new BusLog(redis, keys, log);
  await busLog.open();
  return new ClusterProcess({ redis, owned, keys, log, processId, bus, busLog, stateKey, forwardingSecret, options });
}

/** The secret kept at `key`, made by the first process that asks for it. */
async function sharedSecret(redis: RedisConnection, key: string): Promise<string> {
  await redis.call('SET', [key, randomBytes(32).toString('base64url'), 'NX']);
  return String(await redis.call('GET', [key]));
}

interface ProcessParts {
  readonly redis: RedisConnection;
  readonly owned: boolean;
  readonly keys: ClusterKeys;
  readonly log: pino.Logger;
  readonly processId: string;
  readonly bus: ClusterBus;
  readonly busLog: BusLog;
  readonly stateKey: string;
  readonly forwardingSecret: string;
  readonly options: RedisClusterOptions;
}

/** A process of the cluster: its servers, heartbeat and events. */
class ClusterProcess implements RedisCluster {
  readonly processId: string;
  readonly requestStateKeys: readonly string[];
  private readonly running = new Set<RunningStreamableHttpServer>();
  private closed = false;

  constructor(private readonly parts: ProcessParts) {
    this.processId = parts.processId;
    this.requestStateKeys = [parts.stateKey];
  }

  async serve(server: McpServer, serveOptions: ClusterServeOptions = {}): Promise<RunningStreamableHttpServer> {
    const { redis, keys, log, processId, busLog, options } = this.parts;
    const idleMs = options.sessionIdleMs ?? DEFAULT_CLUSTER_SESSION_IDLE_MS;
    const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    const registry = new SessionRegistry(redis, keys, idleMs, processId, options.maxSessionsPerPrincipal ?? 0);
    const auth = serveOptions.auth === undefined ? undefined : new ClusterAuth(serveOptions.auth);
    const eventStore = createRedisEventStore({
      redis,
      keys,
      maxEventsPerSession: options.maxEventsPerSession ?? DEFAULT_CLUSTER_MAX_EVENTS_PER_SESSION,
      ttlMs: idleMs,
      logger: log,
      registry,
      busTags: busLog.tags,
    });
    // The heartbeat lives 3 beats; a beat that reached Redis vouches for this process's ownership for 2.
    const lease = new OwnershipLease(heartbeatMs * 3, heartbeatMs);
    const sessions = new ClusterSessions(server, registry, busLog, log);
    const operations = clusterOperations(serveOptions.operations, redis, serveOptions.logger ?? options.logger);
    // The endpoint names the sessions its handler opens; the handler is made first.
    const named: { endpoint?: ClusterEndpoint } = {};
    const local = createStreamableHttpHandler({
      ...serveOptions,
      auth,
      server,
      eventStore,
      sessionIdleMs: idleMs,
      generateSessionId: (req) => named.endpoint!.sessionIdFor(req),
      onSession: (transport) => sessions.connect(transport, undefined),
      calls: operations?.tracking ? operations.calls : undefined,
    });
    const endpoint = new ClusterEndpoint({
      processId,
      local,
      registry,
      lease,
      maxBodyBytes: serveOptions.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      auth,
      proof: new ForwardProof(this.parts.forwardingSecret),
      busPosition: () => busLog.lastId,
      resume: (transport, record, opener) => sessions.connect(transport, record, opener),
      log,
    });
    named.endpoint = endpoint;
    const clusterHandler = {
      handle: endpoint.handle.bind(endpoint),
      sessions: local.sessions,
      close: () => local.close(),
    };
    const running = await startStreamableHttpServer({
      ...serveOptions,
      ...(auth ? { auth: auth.forServer } : {}),
      handler: clusterHandler,
      operations,
    });
    const stopUpkeep = await this.upkeep({
      registry,
      lease,
      endpoint,
      server,
      url: running.url.href,
      sessions: local.sessions,
    });
    const shared: RunningStreamableHttpServer = {
      ...running,
      close: async () => {
        stopUpkeep();
        // The sessions go on in other processes: keep their records and events, and give them up.
        sessions.leaving = true;
        eventStore.keepOnClose = true;
        await registry.leave(processId).catch(() => undefined);
        await registry.release(local.sessions.keys()).catch(() => undefined);
        this.running.delete(shared);
        await running.close();
      },
    };
    this.running.add(shared);
    return shared;
  }

  /**
   * Starts what the process does beside serving: its heartbeat (the first written before this
   * resolves), the upkeep of its sessions' records, writing again what a Redis restarted empty
   * lost, relaying the cluster's events, and dropping the sessions another process took over.
   * Resolves with a function that stops it all.
   */
  private async upkeep(parts: {
    readonly registry: SessionRegistry;
    readonly lease: OwnershipLease;
    readonly endpoint: ClusterEndpoint;
    readonly server: McpServer;
    readonly url: string;
    readonly sessions: ReadonlyMap<string, unknown>;
  }): Promise<() => void> {
    const { registry, lease, endpoint, server, url, sessions } = parts;
    const { log, processId, bus, options } = this.parts;
    const idleMs = options.sessionIdleMs ?? DEFAULT_CLUSTER_SESSION_IDLE_MS;
    const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    // A fenced write refused: another process took the session over, this one stops serving it.
    const dropping = registry.replaced$.subscribe((sessionId) => {
      log.warn({ sessionId }, 'session taken over by another process: no longer served here');
      endpoint.drop(sessionId);
    });
    const sentAt = Date.now();
    await registry.beat(processId, url, heartbeatMs * 3);
    lease.restart(sentAt);
    const stopBeating = keepAlive({ registry, lease, url, heartbeatMs, idleMs, sessions, log });
    const stopReviving = reviveOnReconnect({ parts: this.parts, registry, url, heartbeatMs, sessions });
    const stopRelaying = relayEvents(bus, server, this.parts.busLog, log);
    return () => {
      stopBeating();
      stopReviving();
      stopRelaying();
      dropping.unsubscribe();
    };
  }

  taskStore(): TaskStore {
    const { redis, keys, processId } = this.parts;
    return createRedisTaskStore({ redis, keys, processId });
  }

  resourceUpdated(uri: string): Promise<void> {
    return this.logged(RESOURCE_UPDATED, uri);
  }

  log(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    return this.logged(LOG, logger === undefined ? { level, data } : { level, data, logger });
  }

  /** Publishes an event meant for sessions, logged first so that a session whose owner is gone gets it once taken over. */
  private async logged(topic: string, payload: unknown): Promise<void> {
    const id = await this.parts.busLog.append(topic, payload);
    await this.parts.bus.publish(topic, payload, id);
  }

  publish(topic: string, payload: unknown): Promise<void> {
    return this.parts.bus.publish(topic, payload);
  }

  on(topic: string, listener: (payload: unknown) => void): () => void {
    return this.parts.bus.on(topic, listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const running of [...this.running]) await running.close();
    await this.parts.bus.close();
    if (this.parts.owned) await this.parts.redis.quit();
  }
}
