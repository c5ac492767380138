/**
 * What a cluster process does besides serving requests: its heartbeat (which renews its ownership
 * lease) and the upkeep of its sessions' records, writing again what a Redis restarted empty lost,
 * and relaying cluster-wide events to its server.
 */
import type { LogLevel } from '../connection/handler-events';
import type { McpServer } from '../server/server';
import { LOG, RESOURCE_UPDATED } from './bus-log';
import type { BusLog } from './bus-log';
import type { ClusterBus } from './cluster-bus';
import type { OwnershipLease } from './ownership-lease';
import type { ClusterKeys } from './cluster-keys';
import type { RedisConnection } from './redis-connection';
import type { SessionRegistry } from './session-registry';
import type pino from 'pino';

/** What a process writes again when Redis lost it: the shared secrets, and who it is. */
export interface SharedParts {
  readonly redis: RedisConnection;
  readonly keys: ClusterKeys;
  readonly processId: string;
  readonly stateKey: string;
  readonly forwardingSecret: string;
  /** The cluster's options: a forwarding secret they give is not kept in Redis. */
  readonly options: { readonly forwardingSecret?: string };
  readonly log: pino.Logger;
}

/**
 * Says every `heartbeatMs` that this process is alive at `url`, and keeps the records of the
 * sessions it serves from expiring (one served over a long stream makes no lookups). Returns a
 * function that stops both.
 */
export function keepAlive(parts: {
  readonly registry: SessionRegistry;
  readonly lease: OwnershipLease;
  readonly url: string;
  readonly heartbeatMs: number;
  readonly idleMs: number;
  readonly sessions: ReadonlyMap<string, unknown>;
  readonly log: pino.Logger;
}): () => void {
  const { registry, lease, url, heartbeatMs, idleMs, sessions, log } = parts;
  const beat = setInterval(() => {
    const sentAt = Date.now();
    registry
      .beat(registry.processId, url, heartbeatMs * 3)
      .then(async () => {
        if (lease.renew(sentAt)) return;
        // The lease lapsed (a pause, or Redis out of reach): whatever another process took over
        // meanwhile is given up before the lease holds again.
        const kept = await registry.verifyAll(sessions.keys());
        log.warn({ kept }, 'ownership lease had lapsed: sessions checked in Redis');
        lease.restart(sentAt);
      })
      .catch((error: unknown) => log.error({ err: error }, 'heartbeat failed'));
  }, heartbeatMs);
  const touch = setInterval(
    () => registry.touch(sessions.keys()).catch((error: unknown) => log.error({ err: error }, 'touch failed')),
    Math.max(1000, Math.min(idleMs / 4, 60_000)),
  );
  beat.unref();
  touch.unref();
  return () => {
    clearInterval(beat);
    clearInterval(touch);
  };
}

/**
 * When the connection to Redis is back (ioredis says `ready` after a reconnect), writes again what a
 * Redis restarted empty lost: this process's heartbeat, the shared secrets, and the records of the
 * sessions it serves (owner, epoch, principal, state), each only where it is missing. Returns a
 * function that stops listening.
 */
export function reviveOnReconnect(parts: {
  readonly parts: SharedParts;
  readonly registry: SessionRegistry;
  readonly url: string;
  readonly heartbeatMs: number;
  readonly sessions: ReadonlyMap<string, unknown>;
}): () => void {
  const { registry, url, heartbeatMs, sessions } = parts;
  const { redis, keys, processId, stateKey, forwardingSecret, options, log } = parts.parts;
  const revive = () => {
    const writes = [
      registry.beat(processId, url, heartbeatMs * 3),
      redis.call('SET', [keys.requestStateKey, stateKey, 'NX']),
      options.forwardingSecret === undefined
        ? redis.call('SET', [keys.forwardingSecretKey, forwardingSecret, 'NX'])
        : Promise.resolve(),
      registry.revive(sessions.keys()).then((count) => {
        if (count > 0) log.warn({ sessions: count }, 'Redis had lost sessions this process serves: registered again');
      }),
    ];
    Promise.all(writes).catch((error: unknown) => log.error({ err: error }, 'cannot register again in Redis'));
  };
  redis.on('ready', revive);
  return () => void redis.off?.('ready', revive);
}

/**
 * Applies the cluster-wide resource updates and log messages to `server`, and, each time the bus is
 * subscribed again after a cut, those logged meanwhile; returns a function that stops.
 */
export function relayEvents(bus: ClusterBus, server: McpServer, busLog: BusLog, log: pino.Logger): () => void {
  const apply = (topic: string, payload: unknown, id: string | undefined): void => {
    if (topic === RESOURCE_UPDATED) busLog.relay(id, () => server.resourceUpdated(String(payload)));
    else if (topic === LOG) {
      const { level, data, logger } = payload as { level: LogLevel; data: unknown; logger?: string };
      busLog.relay(id, () => server.log(level, data, logger));
    }
  };
  const stopUpdates = bus.on(RESOURCE_UPDATED, (uri, id) => apply(RESOURCE_UPDATED, uri, id));
  const stopLogs = bus.on(LOG, (payload, id) => apply(LOG, payload, id));
  const stopCatchingUp = bus.onResubscribed(() => {
    busLog.missed().then(
      (events) => {
        if (events.length > 0)
          log.warn({ events: events.length }, 'cluster events published during a cut relayed from the log');
        for (const { topic, payload, id } of events) apply(topic, payload, id);
      },
      (error: unknown) => log.error({ err: error }, 'cannot read the cluster events missed during a cut'),
    );
  });
  return () => {
    stopUpdates();
    stopLogs();
    stopCatchingUp();
  };
}
