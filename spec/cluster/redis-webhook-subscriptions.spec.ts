import { createServer as createHttpServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, Subject } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { redisEventFeeds } from '../../lib/cluster/redis-event-feeds';
import type { RedisEventFeeds } from '../../lib/cluster/redis-event-feeds';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import { EVENTS_EXTENSION, EventErrorCode } from '../../lib/schema/events';
import type { EventSubscribeResult } from '../../lib/schema/events';
import { generateWebhookSecret, verifyWebhookSignature } from '../../lib/schema/webhook-signature';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import type { WebhookOptions } from '../../lib/server/events/events-extension';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import type { ServerContext } from '../../lib/server/server-context';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { AuthInfo } from '../../lib/transport/transport';
import { authenticated } from '../support/authenticated';
import { FeedResources } from '../support/feed-resources';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { eventually } from '../support/until';

// Webhook subscriptions shared through Redis: two servers on one Redis stand for two processes of
// a cluster, each with its own connection, store and source (a Subject the test drives). Leases
// last LEASE_MS, so each process renews and looks for free subscriptions every third of it. Real
// time: every step is a Redis round trip.

const LEASE_MS = 300;
const TICK_MS = LEASE_MS / 3;
const alice: AuthInfo = { subject: 'alice', scopes: [], claims: { iss: 'https://issuer.example' } };

let redis: RunningRedis;
const held = new FeedResources();
let receiver: Server;
let base: string;
let posts: Array<{ path: string; headers: IncomingHttpHeaders; raw: string; body: Record<string, unknown> }> = [];
let prefixes = 0;
/** While true, the receiver answers 500. */
let failing = false;

beforeAll(async () => {
  redis = await startRedis();
  receiver = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      posts.push({ path: request.url ?? '', headers: request.headers, raw, body: JSON.parse(raw) });
      response.writeHead(failing ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await held.release();
  posts = [];
  failing = false;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await redis?.stop();
});

interface Process {
  readonly server: McpServer;
  readonly store: RedisEventFeeds;
  readonly connection: RedisConnection;
  readonly upstream: Subject<EventEmission>;
  /** The contexts this process's source was followed with. */
  readonly follows: ServerContext[];
}

async function startProcess(prefix: string, webhooks: Partial<WebhookOptions> = {}): Promise<Process> {
  const connection = await connectRedis(redis.url);
  held.connections.push(connection);
  const store = redisEventFeeds(connection, { prefix, tailMs: 10, leaderTtlMs: LEASE_MS });
  held.stores.push(store);
  const upstream = new Subject<EventEmission>();
  const follows: ServerContext[] = [];
  const extension = events(
    [
      {
        name: 'build.finished',
        source: (_args, context) => {
          follows.push(context);
          return upstream;
        },
      },
    ],
    { store, webhooks: { allow: [base], allowAddresses: ['127.0.0.1'], ...webhooks } },
  );
  const server = createServer({ name: 'ci', version: '1.0.0', logging: false, extensions: [extension] });
  return { server, store, connection, upstream, follows };
}

async function client(server: McpServer): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(authenticated(serverSide, alice));
  const connected = await connect(clientSide, {
    name: 'agent',
    version: '1.0.0',
    protocolVersion: '2025-11-25',
    extensions: { [EVENTS_EXTENSION]: { delivery: ['webhook'] } },
  });
  held.clients.push(connected);
  return connected;
}

const hook = (path = '/hook') => ({ name: 'build.finished', arguments: {}, delivery: { url: `${base}${path}` } });

const subscribe = (on: McpClient, secret: string, more: Record<string, unknown> = {}) => {
  const params = hook();
  return firstValueFrom(
    on.request('events/subscribe', { ...params, cursor: null, delivery: { ...params.delivery, secret }, ...more }),
  ) as Promise<Record<string, unknown> & EventSubscribeResult>;
};

const unsubscribe = (on: McpClient) => firstValueFrom(on.request('events/unsubscribe', hook()));

const sleep = (ms: number) => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms));

/** The `data` of the occurrences posted (gap bodies left out), in the order they came. */
const posted = () => posts.filter((post) => 'data' in post.body).map((post) => post.body.data);

const nextPrefix = () => `spec:wh${++prefixes}:`;

/** The keys of the subscription records under `prefix`. */
const recordKeys = (prefix: string) =>
  held.connections[0]!.call('KEYS', [`${prefix}{webhooks}:r:*`]) as Promise<string[]>;

describe('redisEventFeeds: webhook subscriptions shared across processes', () => {
  it('refreshes on B the subscription made on A: one record, one stream of posts, deliveryStatus answered', async () => {
    const prefix = nextPrefix();
    const a = await startProcess(prefix);
    const b = await startProcess(prefix);
    const [onA, onB] = [await client(a.server), await client(b.server)];
    const secret = generateWebhookSecret();
    const made = await subscribe(onA, secret);
    expect(made).not.toHaveProperty('deliveryStatus');
    a.upstream.next({ data: { n: 1 } });
    await eventually(() => posted().length === 1);
    // The status the deliverer stored reaches B's answer.
    await sleep(TICK_MS);
    const refreshed = await subscribe(onB, secret);
    expect(refreshed.id).toBe(made.id);
    expect(refreshed.deliveryStatus).toEqual({
      active: true,
      lastDeliveryAt: expect.stringMatching(/^\d{4}-/),
      lastError: null,
    });
    expect(await recordKeys(prefix)).toHaveLength(1);
    for (let n = 2; n <= 3; n++) a.upstream.next({ data: { n } });
    await eventually(() => posted().length === 3);
    // Several renewals and scans later, B has taken nothing over: no post twice.
    await sleep(4 * TICK_MS);
    expect(posted()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(b.follows).toHaveLength(0);
  });

  it('posts none older than maxAgeMs to a subscription resuming from a cursor, and answers truncated', async () => {
    const prefix = nextPrefix();
    const a = await startProcess(prefix);
    const onA = await client(a.server);
    const secret = generateWebhookSecret();
    const made = await subscribe(onA, secret);
    await unsubscribe(onA);
    // The shared feed is still followed: what comes waits in its stream for the next cursor.
    a.upstream.next({ eventId: 'old', data: { n: 1 }, timestamp: new Date(Date.now() - 7_200_000) });
    a.upstream.next({ eventId: 'recent', data: { n: 2 } });
    await sleep(TICK_MS);
    const resumed = await subscribe(onA, secret, { cursor: made.cursor, maxAgeMs: 3_600_000 });
    expect(resumed.truncated).toBe(true);
    await eventually(() => posted().length === 1);
    await sleep(TICK_MS);
    expect(posted()).toEqual([{ n: 2 }]);
  });

  it('resumes on A, at a refresh on B, deliveries A suspended, and answers the status A stored', async () => {
    const prefix = nextPrefix();
    const limits = { retryDelaysMs: [], suspendAfter: 1 };
    const a = await startProcess(prefix, limits);
    const b = await startProcess(prefix, limits);
    const [onA, onB] = [await client(a.server), await client(b.server)];
    const secret = generateWebhookSecret();
    await subscribe(onA, secret);
    failing = true;
    a.upstream.next({ data: { n: 1 } });
    await eventually(() => posts.length === 1);
    failing = false;
    a.upstream.next({ data: { n: 2 } });
    await sleep(2 * TICK_MS);
    // Suspended after one abandoned post: n = 2 waits.
    expect(posts).toHaveLength(1);
    const refreshed = await subscribe(onB, secret);
    expect(refreshed.deliveryStatus).toEqual({
      active: true,
      lastDeliveryAt: null,
      lastError: 'http_5xx',
      failedSince: expect.stringMatching(/^\d{4}-/),
    });
    await eventually(() => posted().length === 2);
    expect(posted()).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('stops the deliveries A runs when B unsubscribes, and answers -32011 after', async () => {
    const prefix = nextPrefix();
    const a = await startProcess(prefix);
    const b = await startProcess(prefix);
    const [onA, onB] = [await client(a.server), await client(b.server)];
    await subscribe(onA, generateWebhookSecret());
    a.upstream.next({ data: { n: 1 } });
    await eventually(() => posted().length === 1);
    await expect(unsubscribe(onB)).resolves.toEqual({});
    // A learns it at its next renewal.
    await sleep(4 * TICK_MS);
    a.upstream.next({ data: { n: 2 } });
    await sleep(4 * TICK_MS);
    expect(posted()).toEqual([{ n: 1 }]);
    await expect(unsubscribe(onA)).rejects.toMatchObject({ code: EventErrorCode.NotFound });
    expect(await recordKeys(prefix)).toHaveLength(0);
  });

  it('signs with both secrets during the grace after B rotates it, then with the new one only', async () => {
    const prefix = nextPrefix();
    const a = await startProcess(prefix, { rotationGraceMs: 10 * TICK_MS });
    const b = await startProcess(prefix, { rotationGraceMs: 10 * TICK_MS });
    const [onA, onB] = [await client(a.server), await client(b.server)];
    const [first, second] = [generateWebhookSecret(), generateWebhookSecret()];
    await subscribe(onA, first);
    await subscribe(onB, second);
    // A re-reads the record at its next renewal.
    await sleep(3 * TICK_MS);
    a.upstream.next({ data: { n: 1 } });
    await eventually(() => posted().length === 1);
    const check = (secret: string, at: number) =>
      verifyWebhookSignature({ secret, headers: posts[at]!.headers, body: posts[at]!.raw }).valid;
    expect([check(first, 0), check(second, 0)]).toEqual([true, true]);
    await sleep(10 * TICK_MS);
    a.upstream.next({ data: { n: 2 } });
    await eventually(() => posted().length === 2);
    expect([check(first, 1), check(second, 1)]).toEqual([false, true]);
  });

  it('has B take the deliveries over when A closes, from the stored watermark: nothing lost, nothing repeated', async () => {
    const prefix = nextPrefix();
    const a = await startProcess(prefix);
    const b = await startProcess(prefix);
    const [onA, onB] = [await client(a.server), await client(b.server)];
    // B follows the caller's source (it polled first); A delivers the subscription made on it.
    await firstValueFrom(onB.request('events/poll', { name: 'build.finished', arguments: {}, cursor: null }));
    await subscribe(onA, generateWebhookSecret());
    for (let n = 1; n <= 2; n++) b.upstream.next({ data: { n } });
    await eventually(() => posted().length === 2);
    // A stores the watermark after each post: with both stored, B repeats none.
    await sleep(TICK_MS);
    const closedAt = Date.now();
    await a.store.close();
    // Comes while nobody delivers: B posts it from the watermark.
    b.upstream.next({ data: { n: 3 } });
    await eventually(() => posted().length === 3, 20 * LEASE_MS);
    // Taken at B's next scan: well within the lease.
    expect(Date.now() - closedAt).toBeLessThan(2 * LEASE_MS);
    b.upstream.next({ data: { n: 4 } });
    await eventually(() => posted().length === 4);
    await sleep(2 * TICK_MS);
    expect(posted()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(posts.map((post) => post.body.cursor)).toEqual(['1', '2', '3', '4']);
  });

  it('has B take the deliveries over within the lease when A stops renewing it', async () => {
    const prefix = nextPrefix();
    const a = await startProcess(prefix);
    const b = await startProcess(prefix);
    const onA = await client(a.server);
    await subscribe(onA, generateWebhookSecret());
    a.upstream.next({ data: { n: 1 } });
    await eventually(() => posted().length === 1);
    await sleep(TICK_MS);
    // A's Redis connection goes: it renews nothing, stores nothing, reads nothing.
    const lostAt = Date.now();
    await a.connection.quit();
    await eventually(() => b.follows.length === 1, 20 * LEASE_MS);
    expect(Date.now() - lostAt).toBeLessThan(2 * LEASE_MS + 10 * TICK_MS);
    // B never saw the request: its source gets the caller's identity as the record keeps it.
    expect(b.follows[0]!.auth).toMatchObject({ subject: 'alice', claims: { iss: 'https://issuer.example' } });
    b.upstream.next({ data: { n: 2 } });
    await eventually(() => posted().length === 2);
    expect(posted()).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('posts nothing from a process that takes over a subscription whose URL its allow-list does not name', async () => {
    const prefix = nextPrefix();
    const a = await startProcess(prefix);
    const b = await startProcess(prefix, { allow: ['https://hooks.example/'], retryDelaysMs: [] });
    const onA = await client(a.server);
    await subscribe(onA, generateWebhookSecret());
    a.upstream.next({ data: { n: 1 } });
    await eventually(() => posted().length === 1);
    await sleep(TICK_MS);
    await a.store.close();
    await eventually(() => b.follows.length === 1, 20 * LEASE_MS);
    b.upstream.next({ data: { n: 2 } });
    await sleep(4 * TICK_MS);
    expect(posted()).toEqual([{ n: 1 }]);
    // The refused post is abandoned, and the stored status says so.
    const onB = await client(b.server);
    await expect(unsubscribe(onB)).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    const stored = await recordKeys(prefix);
    const status = JSON.parse(String(await held.connections[0]!.call('HGET', [stored[0]!, 'st'])));
    expect(status).toMatchObject({ lastError: 'connection_refused' });
  });

  it('lets the record expire with its TTL: no more posts, and unsubscribe answers -32011', async () => {
    const prefix = nextPrefix();
    const ttl = { minTtlMs: 1, maxTtlMs: 10_000 };
    const a = await startProcess(prefix, ttl);
    const b = await startProcess(prefix, ttl);
    const [onA, onB] = [await client(a.server), await client(b.server)];
    await subscribe(onA, generateWebhookSecret(), { ttlMs: 4 * TICK_MS });
    const [key] = await recordKeys(prefix);
    const pttl = Number(await held.connections[0]!.call('PTTL', [key!]));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(4 * TICK_MS);
    a.upstream.next({ data: { n: 1 } });
    await eventually(() => posted().length === 1);
    await sleep(7 * TICK_MS);
    a.upstream.next({ data: { n: 2 } });
    await sleep(3 * TICK_MS);
    expect(posted()).toEqual([{ n: 1 }]);
    expect(await recordKeys(prefix)).toHaveLength(0);
    await expect(unsubscribe(onB)).rejects.toMatchObject({ code: EventErrorCode.NotFound });
  });

  it('answers -32603 naming the events store when Redis fails, and leaves no rejection unheard', async () => {
    const unhandled: unknown[] = [];
    const hear = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', hear);
    try {
      const a = await startProcess(nextPrefix());
      const onA = await client(a.server);
      await a.connection.quit();
      const failure = { code: ErrorCode.InternalError, message: expect.stringMatching(/events store/) };
      await expect(subscribe(onA, generateWebhookSecret())).rejects.toMatchObject(failure);
      await expect(unsubscribe(onA)).rejects.toMatchObject(failure);
      await sleep(3 * TICK_MS);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', hear);
    }
  });

  it('still refuses a caller without a principal, and a URL off the allow-list, before asking the store', async () => {
    const prefix = nextPrefix();
    const a = await startProcess(prefix);
    const [clientSide, serverSide] = createInMemoryPair();
    a.server.connect(serverSide);
    const anonymous = await connect(clientSide, {
      name: 'agent',
      version: '1.0.0',
      protocolVersion: '2025-11-25',
      extensions: { [EVENTS_EXTENSION]: { delivery: ['webhook'] } },
    });
    held.clients.push(anonymous);
    await expect(subscribe(anonymous, generateWebhookSecret())).rejects.toMatchObject({
      code: EventErrorCode.Forbidden,
    });
    const onA = await client(a.server);
    const elsewhere = {
      ...hook(),
      delivery: { url: 'https://elsewhere.example/hook', secret: generateWebhookSecret() },
    };
    await expect(firstValueFrom(onA.request('events/subscribe', elsewhere))).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    expect(await recordKeys(prefix)).toEqual([]);
  });
});
