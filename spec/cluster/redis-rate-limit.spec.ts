import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { redisRateLimitStore } from '../../lib/cluster/redis-rate-limit-store';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import { rateLimit } from '../../lib/server/middleware-kit';
import type { McpServer } from '../../lib/server/server';
import type { AuthInfo } from '../../lib/transport/transport';
import { authenticated } from '../support/authenticated';
import { linkedPair } from '../support/linked-pair';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { demoServer, textOf } from '../middleware/harness';

let redis: RunningRedis;
let connections: RedisConnection[] = [];
let clients: McpClient[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const client of clients) client.close();
  clients = [];
  for (const connection of connections) await connection.quit();
  connections = [];
});
afterAll(async () => {
  await redis?.stop();
});

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const user = (sub: string): AuthInfo => ({ subject: sub, scopes: [], claims: { iss: 'https://issuer.example' } });

/** A server of its own, as one process of a cluster would have, counting on its own Redis connection. */
async function serverOnRedis(prefix: string, limit: number, windowMs: number) {
  const connection = await connectRedis(redis.url);
  connections.push(connection);
  const store = redisRateLimitStore(connection, { prefix });
  return demoServer({
    middleware: [rateLimit({ limit, windowMs, store, when: (request) => request.method === 'tools/call' })],
  });
}

async function sessionAs(server: McpServer, auth: AuthInfo): Promise<McpClient> {
  const { client, server: serverSide } = linkedPair();
  server.connect(authenticated(serverSide, auth));
  const session = await connect(client, { name: 'redis-rate', version: '1.0.0', protocolVersion: '2025-11-25' });
  clients.push(session);
  return session;
}

describe('redisRateLimitStore', () => {
  it('counts a principal’s calls on two servers together, and another principal’s apart', async () => {
    const a = await serverOnRedis('spec:rl1:', 3, 60_000);
    const b = await serverOnRedis('spec:rl1:', 3, 60_000);
    const aliceOnA = await sessionAs(a.server, user('alice'));
    const aliceOnB = await sessionAs(b.server, user('alice'));
    await aliceOnA.promises.callTool('echo', { text: '1' });
    await aliceOnB.promises.callTool('echo', { text: '2' });
    await aliceOnA.promises.callTool('echo', { text: '3' });
    const refused = await failureOf(aliceOnB.promises.callTool('echo', { text: '4' }));
    expect(refused).toMatchObject({
      code: ErrorCode.RateLimited,
      data: { name: 'requests', limit: 3, windowMs: 60_000 },
    });
    const { retryAfterMs } = (refused as { data: { retryAfterMs: number } }).data;
    expect(retryAfterMs).toBeGreaterThan(50_000);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(a.seen.handlerRuns + b.seen.handlerRuns).toBe(3);
    const bobOnB = await sessionAs(b.server, user('bob'));
    expect(textOf(await bobOnB.promises.callTool('echo', { text: 'bob' }))).toBe('bob');
  });

  it('keeps each count in one key with a hash tag and an expiry of the window', async () => {
    const a = await serverOnRedis('spec:rl2:', 5, 10_000);
    await (await sessionAs(a.server, user('carol'))).promises.callTool('echo', { text: '1' });
    const keys = (await connections[0]!.call('KEYS', ['spec:rl2:*'])) as string[];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^spec:rl2:\{[A-Za-z0-9_-]{43}\}:10000:requests$/);
    const ttl = Number(await connections[0]!.call('PTTL', [keys[0]!]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10_000);
  });

  it('starts a new count when the window ends', async () => {
    const a = await serverOnRedis('spec:rl3:', 1, 100);
    const dave = await sessionAs(a.server, user('dave'));
    await dave.promises.callTool('echo', { text: '1' });
    expect(await failureOf(dave.promises.callTool('echo', { text: '2' }))).toMatchObject({ code: -32029 });
    await new Promise((done) => setTimeout(done, 150));
    expect(textOf(await dave.promises.callTool('echo', { text: '3' }))).toBe('3');
  });

  it('lets calls through when Redis fails, or refuses them with onStoreError: refuse', async () => {
    const closed = await connectRedis(redis.url);
    await closed.quit();
    const store = redisRateLimitStore(closed);
    const calls = (request: { method: string }) => request.method === 'tools/call';
    const open = demoServer({ middleware: [rateLimit({ limit: 1, windowMs: 1000, store, when: calls })] });
    const erin = await sessionAs(open.server, user('erin'));
    await erin.promises.callTool('echo', { text: '1' });
    await erin.promises.callTool('echo', { text: '2' });
    expect(open.seen.handlerRuns).toBe(2);
    const shut = demoServer({
      middleware: [rateLimit({ limit: 1, windowMs: 1000, store, when: calls, onStoreError: 'refuse' })],
    });
    const frank = await sessionAs(shut.server, user('frank'));
    expect(await failureOf(frank.promises.callTool('echo', { text: '1' }))).toMatchObject({ code: -32029 });
    expect(shut.seen.handlerRuns).toBe(0);
  });
});
