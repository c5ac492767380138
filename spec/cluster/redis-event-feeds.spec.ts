import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, Subject, VirtualTimeScheduler } from 'rxjs';
import type { SchedulerLike, Subscription } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { eventsClient } from '../../lib/client/events/events-client';
import { READ } from '../../lib/cluster/event-feed-scripts';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { redisEventFeeds } from '../../lib/cluster/redis-event-feeds';
import type { RedisEventFeeds, RedisEventFeedsOptions } from '../../lib/cluster/redis-event-feeds';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import { EVENTS_EXTENSION } from '../../lib/schema/events';
import { generateWebhookSecret } from '../../lib/schema/webhook-signature';
import type { EventOccurrence, EventPollResult } from '../../lib/schema/events';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import type { EventsOptions } from '../../lib/server/events/events-extension';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { AuthInfo } from '../../lib/transport/transport';
import { authenticated } from '../support/authenticated';
import { FeedResources } from '../support/feed-resources';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { eventually } from '../support/until';
import { advanceTo } from '../support/virtual-time';

// Event feeds shared through Redis: two servers on one Redis stand for two processes of a cluster,
// each with its own connection, store and source (a Subject the test drives as "the upstream").

let redis: RunningRedis;
const held = new FeedResources();
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await held.release();
});
afterAll(async () => {
  await redis?.stop();
});

/** One process: a server with the events extension on a store of its own, on a connection of its own. */
interface Process {
  readonly server: McpServer;
  readonly store: RedisEventFeeds;
  readonly upstream: Subject<EventEmission>;
  /** How often this process subscribed to its source. */
  follows: number;
  /** The READ scripts it ran (polls, listens, tails). */
  reads: number;
}

interface ProcessOptions {
  readonly url?: string;
  readonly prefix: string;
  readonly store?: RedisEventFeedsOptions;
  readonly events?: EventsOptions;
  readonly scheduler?: SchedulerLike;
}

async function startProcess(options: ProcessOptions): Promise<Process> {
  const connection = await connectRedis(options.url ?? redis.url);
  held.connections.push(connection);
  const counted: RedisConnection = Object.assign(Object.create(connection) as RedisConnection, {
    call(command: string, args: (string | number)[]) {
      if (command === 'EVAL' && args[0] === READ) node.reads++;
      return connection.call(command, args);
    },
  });
  const store = redisEventFeeds(counted, { prefix: options.prefix, tailMs: 10, ...options.store });
  held.stores.push(store);
  const upstream = new Subject<EventEmission>();
  const extension = events(
    [
      {
        name: 'build.finished',
        source: () => {
          node.follows++;
          return upstream;
        },
      },
    ],
    {
      nextPollMs: 0,
      store,
      ...(options.scheduler && { scheduler: options.scheduler }),
      ...options.events,
    },
  );
  const server = createServer({ name: 'ci', version: '1.0.0', logging: false, extensions: [extension] });
  const node: Process = { server, store, upstream, follows: 0, reads: 0 };
  return node;
}

const sleep = (ms: number) => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms));

const nextPrefix = () => `spec:ef${++prefixes}:`;

async function client(
  server: McpServer,
  protocolVersion: '2025-11-25' | '2026-07-28' = '2025-11-25',
  auth?: AuthInfo,
): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(auth ? authenticated(serverSide, auth) : serverSide);
  const connected = await connect(clientSide, {
    name: 'agent',
    version: '1.0.0',
    protocolVersion,
    extensions: { [EVENTS_EXTENSION]: { delivery: ['push', 'poll'] } },
  });
  held.clients.push(connected);
  return connected;
}

const poll = (on: McpClient, cursor: string | null, more: Record<string, unknown> = {}) =>
  firstValueFrom(on.request('events/poll', { name: 'build.finished', arguments: {}, cursor, ...more })) as Promise<
    Record<string, unknown> & EventPollResult
  >;

/** Polls until the occurrences after `cursor` number `count` (the leader's appends land a round trip later). */
async function pollFor(on: McpClient, cursor: string | null, count: number): Promise<EventPollResult> {
  let read = await poll(on, cursor);
  for (let tries = 0; read.events.length < count && tries < 200; tries++) {
    await sleep(10);
    read = await poll(on, cursor);
  }
  return read;
}

const dataOf = (read: { events: readonly EventOccurrence[] }) => read.events.map((event) => event.data);

/** Follows by push on `on` from `cursor`, keeping each occurrence, each cursor the stream gives, and its gaps. */
function pushed(on: McpClient, cursor: string | null = null) {
  const got: EventOccurrence[] = [];
  const cursors: Array<string | null> = [];
  let truncated = 0;
  const subscription: Subscription = eventsClient(on)
    .follow(
      'build.finished',
      {},
      {
        delivery: 'push',
        cursor,
        onCursor: (cursor) => cursors.push(cursor),
        onTruncated: () => truncated++,
      },
    )
    // Closing the client in afterEach ends the stream with an error: not what these tests look at.
    .subscribe({ next: (event) => got.push(event), error: () => undefined });
  return {
    got,
    cursors,
    subscription,
    get truncated() {
      return truncated;
    },
  };
}

describe.each(['2025-11-25', '2026-07-28'] as const)('redisEventFeeds polled across processes (%s)', (revision) => {
  it('reads on B after a cursor given by A: the next occurrences, none repeated, none lost, one source followed', async () => {
    const prefix = nextPrefix();
    const a = await startProcess({ prefix });
    const b = await startProcess({ prefix });
    const onA = await client(a.server, revision);
    const onB = await client(b.server, revision);
    const start = await poll(onA, null);
    expect(start).toMatchObject({ events: [], cursor: '0', truncated: false, hasMore: false });
    for (let n = 1; n <= 3; n++) a.upstream.next({ data: { n }, eventId: `b${n}` });
    const first = await pollFor(onA, start.cursor, 3);
    const onAFirst = await poll(onA, start.cursor, { maxEvents: 2 });
    expect(dataOf(onAFirst)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(onAFirst.hasMore).toBe(true);
    expect(first.events).toHaveLength(3);
    // A's cursor, read on B: what follows it, and no more.
    const onBRest = await poll(onB, onAFirst.cursor);
    expect(onBRest).toMatchObject({ truncated: false, hasMore: false, cursor: '3' });
    expect(onBRest.events).toEqual([
      { eventId: 'b3', name: 'build.finished', timestamp: expect.any(String), data: { n: 3 } },
    ]);
    a.upstream.next({ data: { n: 4 } });
    const onBNext = await pollFor(onB, onBRest.cursor, 1);
    expect(onBNext.events).toEqual([
      { eventId: 'build.finished-4', name: 'build.finished', timestamp: expect.any(String), data: { n: 4 } },
    ]);
    // B polled too, but A follows the source: B never subscribed to its own.
    expect(a.follows).toBe(1);
    expect(b.follows).toBe(0);
    expect(b.upstream.observed).toBe(false);
  });
});

describe('redisEventFeeds', () => {
  it('pushes on B what A follows, each once and in order, read by one timer only while B listens', async () => {
    const prefix = nextPrefix();
    const clock = new VirtualTimeScheduler();
    const a = await startProcess({ prefix });
    const b = await startProcess({ prefix, scheduler: clock });
    await poll(await client(a.server), null);
    const onB = await client(b.server);
    const first = pushed(onB);
    const second = pushed(await client(b.server));
    await eventually(() => first.cursors.length > 0 && second.cursors.length > 0);
    const readsOpening = b.reads;
    for (let n = 1; n <= 5; n++) a.upstream.next({ data: { n }, eventId: `e${n}` });
    await poll(await client(a.server), null); // a round trip on A's connection: its appends are in
    // One tick of B's clock: one read for both streams.
    advanceTo(clock, 10);
    await eventually(() => first.got.length === 5 && second.got.length === 5);
    expect(b.reads - readsOpening).toBe(1);
    expect(first.got.map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }]);
    expect(second.got.map((event) => event.eventId)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    // Each occurrence came once: its cursor once, after the stream's opening one.
    expect(first.cursors).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(b.follows).toBe(0);
    first.subscription.unsubscribe();
    second.subscription.unsubscribe();
    await sleep(50); // the cancellations reach B
    const readsAfter = b.reads;
    advanceTo(clock, 10_000);
    await sleep(50);
    expect(b.reads).toBe(readsAfter);
  });

  it('hands the leader’s own occurrences to its streams at once, with no read of the stream', async () => {
    const prefix = nextPrefix();
    const clock = new VirtualTimeScheduler();
    const a = await startProcess({ prefix, scheduler: clock });
    const onA = await client(a.server);
    await poll(onA, null);
    const stream = pushed(onA);
    await eventually(() => stream.cursors.length > 0);
    const reads = a.reads;
    a.upstream.next({ data: { n: 1 } });
    a.upstream.next({ data: { n: 2 } });
    // A's clock stands still: no tail could run, yet the stream hears both.
    await eventually(() => stream.got.length === 2);
    expect(stream.got.map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(stream.cursors).toEqual(['0', '1', '2']);
    expect(a.reads).toBe(reads);
  });

  it('keeps a feed in four keys of one hash tag, each with an expiry', async () => {
    const prefix = nextPrefix();
    const a = await startProcess({ prefix, events: { leaseMs: 60_000 } });
    const onA = await client(a.server);
    await poll(onA, null);
    a.upstream.next({ data: { n: 1 } });
    await pollFor(onA, '0', 1);
    const keys = ((await held.connections[0]!.call('KEYS', [`${prefix}*`])) as string[]).sort();
    const tag = /^spec:ef\d+:(\{[A-Za-z0-9_-]{43}\}):[lnsw]$/;
    expect(keys.map((key) => key.slice(-1))).toEqual(['l', 'n', 's', 'w']);
    expect(new Set(keys.map((key) => tag.exec(key)?.[1])).size).toBe(1);
    for (const key of keys) {
      const ttl = Number(await held.connections[0]!.call('PTTL', [key]));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    expect(await held.connections[0]!.call('XRANGE', [keys[2]!, '-', '+'])).toEqual([
      ['1-0', ['o', expect.any(String)]],
    ]);
  });

  it('hands the feed to B when A goes: B follows its own source, occurrences go on, and the change reads truncated', async () => {
    const prefix = nextPrefix();
    const a = await startProcess({ prefix });
    const b = await startProcess({ prefix });
    const onA = await client(a.server);
    await poll(onA, null);
    const stream = pushed(await client(b.server));
    await eventually(() => stream.cursors.length > 0);
    a.upstream.next({ data: { n: 1 } });
    await eventually(() => stream.got.length === 1);
    a.server.close();
    await a.store.close();
    expect(a.upstream.observed).toBe(false);
    await eventually(() => b.follows === 1 && b.upstream.observed);
    b.upstream.next({ data: { n: 2 } });
    await eventually(() => stream.got.length === 2);
    expect(stream.got.map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
    // What A's source did between A letting go and B following is unknown: the stream says so.
    expect(stream.truncated).toBe(1);
    const across = await poll(await client(b.server), '1');
    expect(across).toMatchObject({ truncated: true, cursor: '3' });
    expect(dataOf(across)).toEqual([{ n: 2 }]);
  });

  it('posts to a webhook subscribed on B what A follows, in order', async () => {
    const posts: Array<{ path: string; body: Record<string, unknown> }> = [];
    const receiver = createHttpServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        posts.push({ path: request.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      const webhooks = { allow: [base], allowAddresses: ['127.0.0.1'], principal: () => 'tenant-a' };
      const prefix = nextPrefix();
      const a = await startProcess({ prefix, events: { webhooks } });
      const b = await startProcess({ prefix, events: { webhooks } });
      const hook = (path: string) => ({ name: 'build.finished', arguments: {}, delivery: { url: `${base}${path}` } });
      const subscribe = (on: McpClient, path: string) => {
        const params = hook(path);
        const delivery = { ...params.delivery, mode: 'webhook', secret: generateWebhookSecret() };
        return firstValueFrom(on.request('events/subscribe', { ...params, cursor: null, delivery }));
      };
      const onA = await client(a.server);
      const onB = await client(b.server);
      await subscribe(onA, '/a');
      await subscribe(onB, '/b');
      expect([a.follows, b.follows]).toEqual([1, 0]);
      for (let n = 1; n <= 3; n++) a.upstream.next({ data: { n } });
      await eventually(() => posts.filter((post) => post.path === '/b').length === 3);
      expect(posts.filter((post) => post.path === '/b').map((post) => [post.body.cursor, post.body.data])).toEqual([
        ['1', { n: 1 }],
        ['2', { n: 2 }],
        ['3', { n: 3 }],
      ]);
      // Unsubscribed, the subscriptions leave no timer behind.
      await firstValueFrom(onA.request('events/unsubscribe', hook('/a')));
      await firstValueFrom(onB.request('events/unsubscribe', hook('/b')));
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('lets a process that polls take the feed over when its leader stops renewing, after leaderTtlMs', async () => {
    const prefix = nextPrefix();
    const store = { leaderTtlMs: 300 };
    const a = await startProcess({ prefix, store });
    const b = await startProcess({ prefix, store });
    await poll(await client(a.server), null);
    const onB = await client(b.server);
    await poll(onB, null);
    expect(b.follows).toBe(0);
    // A is cut off from Redis: it cannot renew, and gives up following once its lease may have lapsed.
    await held.connections[0]!.quit();
    await eventually(() => !a.upstream.observed, 5000);
    for (let tries = 0; b.follows === 0 && tries < 200; tries++) {
      await poll(onB, null);
      await sleep(20);
    }
    expect(b.follows).toBe(1);
    const from = await poll(onB, null);
    b.upstream.next({ data: { n: 1 } });
    expect(dataOf(await pollFor(onB, from.cursor, 1))).toEqual([{ n: 1 }]);
  });

  it('stops following when no process has polled for leaseMs and none listens, and not while B polls', async () => {
    const prefix = nextPrefix();
    const options = { prefix, store: { leaderTtlMs: 150 }, events: { leaseMs: 300 } };
    const a = await startProcess(options);
    const b = await startProcess(options);
    await poll(await client(a.server), null);
    const onB = await client(b.server);
    for (let i = 0; i < 8; i++) {
      await poll(onB, null);
      await sleep(100);
    }
    // B's polls kept the feed wanted for 800 ms, three leases: A still follows it.
    expect(a.upstream.observed).toBe(true);
    expect(b.follows).toBe(0);
    await eventually(() => !a.upstream.observed, 3000);
  });

  it('reads truncated on a cursor older than the oldest occurrence kept (the stream is trimmed to capacity)', async () => {
    const prefix = nextPrefix();
    const options = { prefix, events: { capacity: 3 } };
    const a = await startProcess(options);
    const b = await startProcess(options);
    const start = await poll(await client(a.server), null);
    for (let n = 1; n <= 6; n++) a.upstream.next({ data: { n } });
    const read = await pollFor(await client(b.server), start.cursor, 3);
    expect(read).toMatchObject({ truncated: true, hasMore: false, cursor: '6' });
    expect(dataOf(read)).toEqual([{ n: 4 }, { n: 5 }, { n: 6 }]);
    // A stream resuming there on B hears the same: the gap, then what is kept.
    const resumed = pushed(await client(b.server), start.cursor);
    await eventually(() => resumed.got.length === 3);
    expect(resumed.truncated).toBe(1);
    expect(resumed.got.map((event) => event.data)).toEqual([{ n: 4 }, { n: 5 }, { n: 6 }]);
  });

  it('keeps each principal’s feeds apart across processes', async () => {
    const prefix = nextPrefix();
    const a = await startProcess({ prefix });
    const b = await startProcess({ prefix });
    const user = (sub: string): AuthInfo => ({ subject: sub, scopes: [], claims: { iss: 'https://issuer.example' } });
    const aliceOnA = await client(a.server, '2025-11-25', user('alice'));
    const bobOnB = await client(b.server, '2025-11-25', user('bob'));
    const alice = await poll(aliceOnA, null);
    const bob = await poll(bobOnB, null);
    // Each caller's feed has a leader of its own: bob's poll on B found no leader for his.
    expect([a.follows, b.follows]).toEqual([1, 1]);
    a.upstream.next({ data: { for: 'alice' } });
    expect(dataOf(await pollFor(aliceOnA, alice.cursor, 1))).toEqual([{ for: 'alice' }]);
    expect((await poll(bobOnB, bob.cursor)).events).toEqual([]);
  });

  it('answers a poll and a stream with -32603 naming the events store while Redis is down, and serves again when it is back', async () => {
    const own = await startRedis();
    const port = Number(new URL(own.url).port);
    let back: RunningRedis | undefined;
    const unhandled: unknown[] = [];
    const hear = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', hear);
    try {
      const a = await startProcess({ url: own.url, prefix: nextPrefix() });
      const onA = await client(a.server);
      await poll(onA, null);
      await own.stop();
      const failure = await poll(onA, '0').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ code: ErrorCode.InternalError, message: expect.stringMatching(/events store/) });
      const stream = firstValueFrom(
        onA.request('events/stream', { name: 'build.finished', arguments: {}, cursor: '0' }),
      );
      await expect(stream).rejects.toMatchObject({ code: ErrorCode.InternalError });
      // The leader's append fails too: the occurrence is lost, and nothing else breaks.
      a.upstream.next({ data: { lost: true } });
      expect(await eventsClient(onA).list()).toHaveLength(1);
      back = await startRedis(port);
      let read: EventPollResult | undefined;
      for (let tries = 0; read === undefined && tries < 200; tries++)
        read = await poll(onA, null).catch(() => sleep(20));
      expect(read).toMatchObject({ events: [], truncated: false });
      expect(unhandled).toEqual([]);
      // Quit while Redis is up: a client cut off would try to reconnect forever.
      await a.store.close();
      await held.connections.pop()!.quit();
    } finally {
      process.off('unhandledRejection', hear);
      await own.stop();
      await back?.stop();
    }
  });
});
