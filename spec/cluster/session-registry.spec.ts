import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { ClusterKeys } from '../../lib/cluster/cluster-keys';
import { joinRedisCluster } from '../../lib/cluster/redis-cluster';
import { SessionRegistry } from '../../lib/cluster/session-registry';
import type { PersistedSession } from '../../lib/server/server-context';
import type { RedisCluster } from '../../lib/cluster/redis-cluster';
import { createServer } from '../../lib/server/server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { startRoundRobinFront } from '../support/round-robin-front';
import type { RoundRobinFront } from '../support/round-robin-front';
import { eventually } from '../support/until';

// Issue #17: the sessions of a cluster in Redis: expiry, hand-over when a process leaves, and what
// a session costs there. Two cluster processes in this one process, on a real redis-server.
let redis: RunningRedis;
let admin: RedisConnection;
const open: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = await connectRedis(redis.url);
});

afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

afterAll(async () => {
  await admin?.quit();
  await redis?.stop();
});

function definition() {
  const server = createServer({ name: 'cluster-spec', version: '1.0.0', capabilities: { logging: {} } });
  server.resource({ uri: 'test://x', name: 'x', text: 'x' });
  server.tool({ name: 'echo', handler: () => ({ content: [{ type: 'text', text: 'echo' }] }) });
  return server;
}

/** A process of the cluster serving the definition; the first passes its own Redis client. */
async function member(
  sessionIdleMs: number,
  prefix: string,
): Promise<{ cluster: RedisCluster; running: RunningStreamableHttpServer }> {
  const redisSource = open.length === 0 ? await connectRedis(redis.url) : redis.url;
  const cluster = await joinRedisCluster({ redis: redisSource, sessionIdleMs, heartbeatMs: 100, prefix });
  open.push(cluster);
  if (typeof redisSource !== 'string') open.push({ close: () => redisSource.quit() });
  const running = await cluster.serve(definition());
  return { cluster, running };
}

async function client(url: string) {
  const transport = createStreamableHttpClientTransport({ url, reconnect: { initialDelayMs: 20, maxRetries: 5 } });
  const mcp = await connect(transport, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
  open.push(mcp);
  return { mcp, sessionId: () => transport.sessionId! };
}

async function front(urls: string[]): Promise<RoundRobinFront> {
  const started = await startRoundRobinFront(urls);
  open.push(started);
  return started;
}

function post(url: URL, body: unknown, sessionId?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId !== undefined ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** Opens a session with plain POSTs (no stream left open); resolves its id. */
async function initialize(url: URL): Promise<string> {
  const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
  const opened = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params });
  await opened.text();
  const id = opened.headers.get('mcp-session-id')!;
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
  expect(initialized.status).toBe(202);
  return id;
}

describe('the sessions of a cluster in Redis', () => {
  it('end everywhere when idle: in their process and in Redis, and no process serves them after', async () => {
    const first = await member(400, 'idle:');
    const second = await member(400, 'idle:');
    // A client that opens no stream: the session is idle once initialized.
    const id = await initialize(first.running.url);
    expect(await admin.call('EXISTS', [`idle:s:{${id}}`])).toBe(1);
    await eventually(() => !first.running.handler.sessions.has(id), 5_000);
    expect(await admin.call('EXISTS', [`idle:s:{${id}}`, `idle:ev:{${id}}`])).toBe(0);
    const late = await post(second.running.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, id);
    expect(late.status).toBe(404);
  });

  it('keep their log level and subscriptions in a record of a few kilobytes', async () => {
    const { running } = await member(60_000, 'state:');
    const { mcp, sessionId } = await client(running.url.href);
    await mcp.promises.setLoggingLevel('error');
    await firstValueFrom(mcp.request('resources/subscribe', { uri: 'test://x' }));
    const key = `state:s:{${sessionId()}}`;
    const state = JSON.parse(String(await admin.call('HGET', [key, 'state']))) as Record<string, unknown>;
    expect(state).toMatchObject({ logLevel: 'error', subscriptions: ['test://x'] });
    expect((state.lifecycle as { value: unknown }).value).toBe('operating');
    expect(Number(await admin.call('MEMORY', ['USAGE', key]))).toBeLessThan(4096);
    const ttl = Number(await admin.call('PTTL', [key]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('go on in another process at once when their process closes, with their state', async () => {
    const leaving = await member(60_000, 'leave:');
    const staying = await member(60_000, 'leave:');
    const balancer = await front([leaving.running.url.href, staying.running.url.href]);
    balancer.pin('initialize', 0);
    const { mcp, sessionId } = await client(balancer.url);
    await mcp.promises.setLoggingLevel('warning');
    await leaving.cluster.close();
    const since = Date.now();
    expect((await mcp.promises.callTool('echo', {})).content).toEqual([{ type: 'text', text: 'echo' }]);
    // Well within the heartbeat's expiry: the closing process gave its sessions up.
    expect(Date.now() - since).toBeLessThan(300);
    expect(staying.running.handler.sessions.has(sessionId())).toBe(true);
    const key = `leave:s:{${sessionId()}}`;
    expect(await admin.call('HGET', [key, 'owner'])).toBe(staying.cluster.processId);
    const state = JSON.parse(String(await admin.call('HGET', [key, 'state']))) as { logLevel: string };
    expect(state.logLevel).toBe('warning');
  });

  it('are taken over when another process listens where their owner did (a restart on the same address)', async () => {
    const relay = await member(60_000, 'moved:');
    const newcomer = await member(60_000, 'moved:');
    const real = await initialize(relay.running.url);
    const state = String(await admin.call('HGET', [`moved:s:{${real}}`, 'state']));
    // A session whose owner, "gone", had the address the newcomer now serves on.
    await admin.call('HSET', ['moved:s:{orphan}', 'owner', 'gone', 'epoch', 0, 'state', state]);
    await admin.call('SET', ['moved:p:gone', newcomer.running.url.href, 'PX', 60_000]);
    const answer = await post(relay.running.url, { jsonrpc: '2.0', id: 7, method: 'ping' }, 'orphan');
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(await admin.call('HGET', ['moved:s:{orphan}', 'owner'])).toBe(relay.cluster.processId);
    expect(newcomer.running.handler.sessions.has('orphan')).toBe(false);
  });
});

describe("an owner's writes after it gave a session up", () => {
  const keys = new ClusterKeys('given-up:');
  const state: PersistedSession = { lifecycle: null, declared: undefined, logLevel: 'info', subscriptions: [] };
  const registries = () => [
    new SessionRegistry(admin, keys, 60_000, 'process-a'),
    new SessionRegistry(admin, keys, 60_000, 'process-b'),
  ];
  const entries = async (sessionId: string) =>
    ((await admin.call('XRANGE', [keys.events(sessionId), '-', '+'])) as Array<[string, string[]]>).map(
      ([, fields]) => fields[fields.indexOf('d') + 1],
    );

  it('are all refused once another process took the session over, the writes queued after the first too', async () => {
    const [a, b] = registries();
    await a!.register('taken', '');
    expect(await a!.append('taken', ['s', 'taken~1', 'd', 'before'], 100)).toBeDefined();
    const replaced: string[] = [];
    a!.replaced$.subscribe((id) => replaced.push(id));
    expect(await b!.claim('taken', 'process-a', '', state)).toBe(1);
    // The first refused write tells the process; the ones queued behind it are refused as well,
    // not written as if the stream belonged to no session.
    expect(await a!.append('taken', ['s', 'taken~1', 'd', 'progress'], 100)).toBeUndefined();
    expect(await a!.append('taken', ['s', 'taken~1', 'd', 'result'], 100)).toBeUndefined();
    expect(replaced).toEqual(['taken']);
    expect(await entries('taken')).toEqual(['before']);
    // The new owner writes.
    expect(await b!.append('taken', ['s', 'taken~1', 'd', 'new owner'], 100)).toBeDefined();
    expect(await entries('taken')).toEqual(['before', 'new owner']);
  });

  it('are refused after it released the session, and written again once it claims the session back', async () => {
    const [a, b] = registries();
    await a!.register('released', '');
    await a!.release(['released']);
    expect(await a!.append('released', ['s', 'released~1', 'd', 'late'], 100)).toBeUndefined();
    expect(await b!.claim('released', '', '', state)).toBeGreaterThan(0);
    expect(await a!.claim('released', 'process-b', '', state)).toBeGreaterThan(0);
    expect(await a!.append('released', ['s', 'released~1', 'd', 'back'], 100)).toBeDefined();
    expect(await entries('released')).toEqual(['back']);
  });

  it('leave the streams of no session (a modern request) unfenced', async () => {
    const [a] = registries();
    expect(await a!.append('no-session', ['s', 'no-session~1', 'd', 'modern'], 100)).toBeDefined();
    expect(await entries('no-session')).toEqual(['modern']);
  });
});
