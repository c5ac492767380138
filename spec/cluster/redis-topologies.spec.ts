import { filter, firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { joinRedisCluster } from '../../lib/cluster/redis-cluster';
import type { RedisCluster } from '../../lib/cluster/redis-cluster';
import { createServer } from '../../lib/server/server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startRedisCluster, startSentinelSet } from '../support/redis-topologies';
import { startRoundRobinFront } from '../support/round-robin-front';
import { eventually } from '../support/until';

// Issue #42: the cluster mode on a sharded Redis Cluster (three primaries, on loopback) and on a
// primary and replica watched by Sentinel, through a failover. Real redis-server and redis-sentinel.
jest.setTimeout(60_000);

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

function definition(cluster: RedisCluster) {
  const server = createServer({
    name: 'topology-spec',
    version: '1.0.0',
    requestState: { keys: cluster.requestStateKeys },
    tasks: { store: cluster.taskStore() },
  });
  server.resource({ uri: 'test://x', name: 'x', text: 'x' });
  server.tool({ name: 'whoami', handler: () => ({ content: [{ type: 'text', text: cluster.processId }] }) });
  return server;
}

async function member(
  url: string,
  prefix: string,
): Promise<{ cluster: RedisCluster; running: RunningStreamableHttpServer }> {
  const cluster = await joinRedisCluster({ redis: url, prefix, heartbeatMs: 100 });
  open.push(cluster);
  const running = await cluster.serve(definition(cluster), { host: '127.0.0.1', port: 0 });
  return { cluster, running };
}

async function client(url: string): Promise<{ mcp: McpClient; sessionId: () => string }> {
  const transport = createStreamableHttpClientTransport({ url, reconnect: { initialDelayMs: 50, maxRetries: 40 } });
  const mcp = await connect(transport, { name: 'topology', version: '1', protocolVersion: '2025-11-25' });
  open.push(mcp);
  return { mcp, sessionId: () => transport.sessionId! };
}

const whoami = async (mcp: McpClient): Promise<string> =>
  ((await mcp.promises.callTool('whoami', {})).content as Array<{ text: string }>)[0]!.text;

describe('a cluster on a sharded Redis Cluster of three primaries', () => {
  it('keeps each session in one slot, spreads sessions over the shards, forwards, hands over and relays events', async () => {
    const redis = await startRedisCluster();
    open.push({ close: () => redis.stop() });
    const nodes: RedisConnection[] = [];
    for (const node of redis.nodes) nodes.push(await connectRedis(`redis://127.0.0.1:${node.port}`));
    open.push({ close: () => Promise.all(nodes.map((node) => node.quit())) });
    const one = await member(redis.url, 'sharded:');
    const two = await member(redis.url, 'sharded:');
    const front = await startRoundRobinFront([one.running.url.href, two.running.url.href]);
    open.push(front);

    const sessions: Array<{ mcp: McpClient; sessionId: () => string }> = [];
    for (let i = 0; i < 6; i++) {
      front.pin('initialize', 0);
      sessions.push(await client(front.url));
    }
    // Each session's record and events share one slot; the sessions are spread over the shards.
    for (const { sessionId } of sessions) {
      const [record, events] = await Promise.all(
        [`sharded:s:{${sessionId()}}`, `sharded:ev:{${sessionId()}}`].map((key) =>
          nodes[0]!.call('CLUSTER', ['KEYSLOT', key]),
        ),
      );
      expect(record).toBe(events);
    }
    const holding = await Promise.all(nodes.map(async (node) => Number(await node.call('DBSIZE', []))));
    expect(holding.filter((count) => count > 0).length).toBeGreaterThanOrEqual(2);

    // Whichever process a request reaches, the owner serves it.
    const [first] = sessions;
    for (let i = 0; i < 4; i++) expect(await whoami(first!.mcp)).toBe(one.cluster.processId);
    const updates: string[] = [];
    first!.mcp.connection.notifications$
      .pipe(filter((n) => n.method === 'notifications/resources/updated'))
      .subscribe((n) => updates.push(String((n.params as { uri: string }).uri)));
    await firstValueFrom(first!.mcp.request('resources/subscribe', { uri: 'test://x' }));
    await two.cluster.resourceUpdated('test://x');
    await eventually(() => updates.length === 1, 5_000);

    // The owner leaves: the session goes on in the other process, its subscription with it.
    await one.cluster.close();
    for (let i = 0; i < 2; i++) expect(await whoami(first!.mcp)).toBe(two.cluster.processId);
    await two.cluster.resourceUpdated('test://x');
    await eventually(() => updates.length === 2, 5_000);
    expect(await nodesHget(nodes, `sharded:s:{${first!.sessionId()}}`, 'epoch')).toBe('1');
  });
});

/** A hash field, read on whichever node holds the key. */
async function nodesHget(nodes: readonly RedisConnection[], key: string, field: string): Promise<unknown> {
  for (const node of nodes) {
    try {
      const value = await node.call('HGET', [key, field]);
      if (value !== null) return value;
    } catch {
      // MOVED: another node holds it.
    }
  }
  return null;
}

describe('a cluster on a primary and replica watched by Sentinel', () => {
  it('goes on through a failover: the session opened before it is served after it', async () => {
    const redis = await startSentinelSet();
    open.push({ close: () => redis.stop() });
    const one = await member(redis.url, 'sentinel:');
    const two = await member(redis.url, 'sentinel:');
    const front = await startRoundRobinFront([one.running.url.href, two.running.url.href]);
    open.push(front);
    front.pin('initialize', 0);
    const { mcp, sessionId } = await client(front.url);
    expect(await whoami(mcp)).toBe(one.cluster.processId);
    // The replica has the session's record before its primary goes.
    const replica = await connectRedis(`redis://127.0.0.1:${redis.replica.port}`);
    open.push({ close: () => replica.quit() });
    for (let i = 0; i < 100 && (await replica.call('EXISTS', [`sentinel:s:{${sessionId()}}`])) !== 1; i++)
      await new Promise((done) => setTimeout(done, 20));

    await redis.primary.kill();
    for (let i = 0; i < 200 && (await redis.primaryPort()) !== redis.replica.port; i++)
      await new Promise((done) => setTimeout(done, 50));
    expect(await redis.primaryPort()).toBe(redis.replica.port);

    // Calls may fail while the clients find the new primary; then the same session is served, by its
    // owner, or by the other process if the failover outlasted the owner's heartbeat (then the old
    // owner, fenced, gives it up).
    let served: string | undefined;
    for (let i = 0; i < 100 && served === undefined; i++) {
      served = await whoami(mcp).catch(() => undefined);
      if (served === undefined) await new Promise((done) => setTimeout(done, 100));
    }
    const processes = [one, two];
    expect(processes.map((member) => member.cluster.processId)).toContain(served);
    expect(await replica.call('HGET', [`sentinel:s:{${sessionId()}}`, 'owner'])).toBe(served);
    const other = processes.find((member) => member.cluster.processId !== served)!;
    await eventually(() => !other.running.handler.sessions.has(sessionId()), 5_000);
    expect(await whoami(mcp)).toBe(served);
  });
});
