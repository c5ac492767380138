import { filter, firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startClusterChild } from '../support/cluster-processes';
import type { ClusterChild } from '../support/cluster-processes';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { startRoundRobinFront } from '../support/round-robin-front';
import type { RoundRobinFront } from '../support/round-robin-front';
import { eventually } from '../support/until';

// Issue #42: every cluster-wide event meant for a session is stored before it is delivered, so that
// the process that takes a session over sends what the dead owner never did, and nothing twice.
// Two cluster processes built from the sources, on a real redis-server.
jest.setTimeout(30_000);

const PREFIX = 'missed:';
let redis: RunningRedis;
let admin: RedisConnection;
let a: ClusterChild;
let b: ClusterChild;
let front: RoundRobinFront;
const closing: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = await connectRedis(redis.url);
  a = await startClusterChild({ redisUrl: redis.url, prefix: PREFIX });
  b = await startClusterChild({ redisUrl: redis.url, prefix: PREFIX });
  front = await startRoundRobinFront([a.url, b.url]);
});

afterAll(async () => {
  for (const item of closing.reverse()) await item.close();
  await front?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await admin?.quit();
  await redis?.stop();
});

async function client(url: string, initialDelayMs = 20): Promise<{ mcp: McpClient; sessionId: () => string }> {
  const transport = createStreamableHttpClientTransport({ url, reconnect: { initialDelayMs, maxRetries: 30 } });
  const mcp = await connect(transport, { name: 'missed', version: '1', protocolVersion: '2025-11-25' });
  closing.push(mcp);
  return { mcp, sessionId: () => transport.sessionId! };
}

/**
 * A session opened on the process behind the front's first place, subscribed to test://watched, and
 * a client of the second process that touches it: once, delivered, before the test goes on.
 */
async function watching(initialDelayMs: number) {
  front.pin('initialize', 0);
  const watcher = await client(front.url, initialDelayMs);
  const updates: string[] = [];
  watcher.mcp.connection.notifications$
    .pipe(filter((n) => n.method === 'notifications/resources/updated'))
    .subscribe((n) => updates.push(String((n.params as { uri: string }).uri)));
  await firstValueFrom(watcher.mcp.request('resources/subscribe', { uri: 'test://watched' }));
  const toucher = await client(b.url);
  await toucher.mcp.promises.callTool('touch', {});
  await eventually(() => updates.length === 1, 5_000);
  return { watcher, updates, toucher };
}

describe('a session whose owner died before it was taken over', () => {
  it('gets, once taken over, the resource updates sent meanwhile, each once', async () => {
    // Its GET stream retries after 600 ms: the updates below are sent while nobody serves the session.
    const { watcher, updates, toucher } = await watching(600);

    await a.stop('SIGKILL');
    front.replace(0, b.url);
    for (let i = 0; i < 3; i++) await toucher.mcp.promises.callTool('touch', {});
    // Nobody served the session while those were sent.
    expect(await admin.call('HGET', [`${PREFIX}s:{${watcher.sessionId()}}`, 'owner'])).toBe(a.processId);
    expect(updates).toHaveLength(1);

    await watcher.mcp.promises.ping();
    expect(await admin.call('HGET', [`${PREFIX}s:{${watcher.sessionId()}}`, 'owner'])).toBe(b.processId);
    await eventually(() => updates.length >= 4, 10_000);
    await toucher.mcp.promises.callTool('touch', {});
    await eventually(() => updates.length >= 5, 5_000);
    await new Promise((done) => setTimeout(done, 300));
    expect(updates).toEqual(Array.from({ length: 5 }, () => 'test://watched'));
  });

  it('gets only what it missed when the events that recorded its last update were trimmed from its stream', async () => {
    // A third process owns the session; a busy session's stream keeps a bounded number of events.
    const c = await startClusterChild({ redisUrl: redis.url, prefix: PREFIX });
    closing.push({ close: () => c.stop() });
    front.replace(0, c.url);
    const { watcher, updates, toucher } = await watching(20);
    // The stream no longer holds the event that said the update was delivered.
    await admin.call('XTRIM', [`${PREFIX}ev:{${watcher.sessionId()}}`, 'MAXLEN', '0']);

    await c.stop('SIGKILL');
    front.replace(0, b.url);
    for (let i = 0; i < 2; i++) await toucher.mcp.promises.callTool('touch', {});
    await watcher.mcp.promises.ping();
    expect(await admin.call('HGET', [`${PREFIX}s:{${watcher.sessionId()}}`, 'owner'])).toBe(b.processId);
    await eventually(() => updates.length >= 3, 10_000);
    await toucher.mcp.promises.callTool('touch', {});
    await eventually(() => updates.length >= 4, 5_000);
    await new Promise((done) => setTimeout(done, 300));
    // The first update is not sent again: the session's record says where its delivered events stop.
    expect(updates).toHaveLength(4);
  });
});

describe('a process whose subscription to the cluster events was cut', () => {
  it('relays, once subscribed again, the events published meanwhile to its sessions, each once', async () => {
    const watcher = await client(b.url);
    const updates: string[] = [];
    watcher.mcp.connection.notifications$
      .pipe(filter((n) => n.method === 'notifications/resources/updated'))
      .subscribe((n) => updates.push(String((n.params as { uri: string }).uri)));
    await firstValueFrom(watcher.mcp.request('resources/subscribe', { uri: 'test://watched' }));
    // Redis runs one command at a time: the subscriptions are gone when the event is logged and
    // published (as another process's touch does), so no process receives it on the channel.
    const event = { topic: 'rxmcp.resource-updated', payload: 'test://watched' };
    const [, id] = (await Promise.all([
      admin.call('CLIENT', ['KILL', 'TYPE', 'pubsub']),
      admin.call('XADD', [`${PREFIX}bus-log`, '*', 'e', JSON.stringify(event)]),
    ])) as [unknown, string];
    await admin.call('PUBLISH', [`${PREFIX}bus`, JSON.stringify({ ...event, id })]);
    await eventually(() => updates.length === 1, 10_000);
    // The same event published again once the process is subscribed (a publisher that was slow): relayed once.
    await admin.call('PUBLISH', [`${PREFIX}bus`, JSON.stringify({ ...event, id })]);
    // The next event arrives on the channel as before.
    const toucher = await client(b.url);
    await toucher.mcp.promises.callTool('touch', {});
    await eventually(() => updates.length >= 2, 5_000);
    await new Promise((done) => setTimeout(done, 300));
    expect(updates).toHaveLength(2);
  });
});
