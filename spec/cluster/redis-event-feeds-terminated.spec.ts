import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, Subject } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { eventsClient } from '../../lib/client/events/events-client';
import { connectRedis } from '../../lib/cluster/redis-connection';
import { redisEventFeeds } from '../../lib/cluster/redis-event-feeds';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { EVENTS_EXTENSION } from '../../lib/schema/events';
import type { EventPollResult } from '../../lib/schema/events';
import { EventsTerminated } from '../../lib/server/events/event-feed';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import type { WebhookOptions } from '../../lib/server/events/events-extension';
import { generateWebhookSecret } from '../../lib/schema/webhook-signature';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { FeedResources } from '../support/feed-resources';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { eventually } from '../support/until';

// A source ending its subscriptions (EventsTerminated) on a feed shared through Redis: the leader
// appends a termination entry to the feed's stream, which every process's tails and polls find.
const FORBIDDEN = { code: -32012, message: 'Forbidden', data: { reason: 'Access revoked' } };

let redis: RunningRedis;
const held = new FeedResources();

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await held.release();
});
afterAll(async () => {
  await redis?.stop();
});

/** One process: its source makes a Subject per follow, kept in `attempts`. */
async function startProcess(prefix: string, webhooks?: WebhookOptions) {
  const connection = await connectRedis(redis.url);
  held.connections.push(connection);
  const store = redisEventFeeds(connection, { prefix, tailMs: 10 });
  held.stores.push(store);
  const attempts: Array<Subject<EventEmission>> = [];
  const source = () => {
    attempts.push(new Subject<EventEmission>());
    return attempts.at(-1)!;
  };
  const extension = events([{ name: 'build.finished', source }], {
    nextPollMs: 0,
    store,
    retryMs: 50,
    ...(webhooks && { webhooks }),
  });
  const server = createServer({ name: 'ci', version: '1.0.0', logging: false, extensions: [extension] });
  return { server, attempts, extension };
}

async function client(server: McpServer): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  const connected = await connect(clientSide, {
    name: 'agent',
    version: '1.0.0',
    protocolVersion: '2025-11-25',
    extensions: { [EVENTS_EXTENSION]: { delivery: ['push', 'poll'] } },
  });
  held.clients.push(connected);
  return connected;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const poll = (on: McpClient, cursor: string | null) =>
  firstValueFrom(on.request('events/poll', { name: 'build.finished', arguments: {}, cursor })) as Promise<
    Record<string, unknown> & EventPollResult
  >;

/**
 * Processes A and B on one prefix: A follows the source (its poll came first), and B's client
 * follows by push until its stream has heard an occurrence; `streamError` is how that stream ended.
 */
async function streamingOnB(prefix: string) {
  const a = await startProcess(prefix);
  const b = await startProcess(prefix);
  const onA = await client(a.server);
  const onB = await client(b.server);
  const start = await poll(onA, null);
  expect(a.attempts).toHaveLength(1);
  let received = 0;
  let error: unknown;
  eventsClient(onB)
    .follow('build.finished', {}, { delivery: 'push' })
    .subscribe({ next: () => received++, error: (caught: unknown) => (error = caught) });
  // Until B's stream hears one (it opens a round trip or more later).
  for (let tries = 0; received === 0 && tries < 300; tries++) {
    a.attempts[0]!.next({ data: { n: tries } });
    await sleep(20);
  }
  expect(received).toBeGreaterThan(0);
  return { a, b, onA, onB, start, streamError: () => error };
}

describe('a shared feed whose source ends its subscriptions', () => {
  it('ends push streams and polls on every process, and a fresh poll follows the source anew', async () => {
    const { a, b, onA, onB, start, streamError } = await streamingOnB('spec:eft1:');
    const before = await poll(onB, null);
    a.attempts[0]!.error(new EventsTerminated(-32012, 'Forbidden', { reason: 'Access revoked' }));
    await eventually(() => streamError() !== undefined);
    expect(streamError()).toBeInstanceOf(JsonRpcError);
    expect(streamError()).toMatchObject(FORBIDDEN);
    await expect(poll(onB, before.cursor)).rejects.toMatchObject(FORBIDDEN);
    await expect(poll(onA, start.cursor)).rejects.toMatchObject(FORBIDDEN);
    // A fresh subscription: the lead was given up, and a poll with a null cursor follows the source anew.
    const fresh = await poll(onB, null);
    expect(a.attempts.length + b.attempts.length).toBeGreaterThan(1);
    expect((await poll(onB, fresh.cursor)).events).toEqual([]);
  });

  it('ends the streams of a type every process stops serving with -32011, from the process that follows it', async () => {
    const { a, b, onB, streamError } = await streamingOnB('spec:eft4:');
    // B follows no source: serving the change there ends nothing by itself, and refuses new polls.
    b.extension.setTypes([]);
    await expect(poll(onB, null)).rejects.toMatchObject({ code: -32011 });
    a.extension.setTypes([]);
    await eventually(() => streamError() !== undefined);
    expect(streamError()).toMatchObject({ code: -32011, data: { kind: 'event' } });
    expect(a.attempts[0]!.observed).toBe(false);
  });

  it('keeps any other error recoverable: the leader follows the source again', async () => {
    const prefix = 'spec:eft2:';
    const a = await startProcess(prefix);
    const onA = await client(a.server);
    const start = await poll(onA, null);
    const stream = eventsClient(onA).follow('build.finished', {}, { delivery: 'push' }).subscribe();
    a.attempts[0]!.error(new Error('upstream 503'));
    await eventually(() => a.attempts.length === 2);
    expect((await poll(onA, start.cursor)).events).toEqual([]);
    stream.unsubscribe();
  });
});

describe('a shared webhook subscription whose source ends it', () => {
  let receiver: HttpServer;
  const bodies: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    receiver = createHttpServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('posts the terminated body, then removes the subscription from the store', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const a = await startProcess('spec:eft3:', {
      allow: [url],
      allowAddresses: ['127.0.0.1'],
      principal: () => 'tenant-a',
    });
    const onA = await client(a.server);
    const params = { name: 'build.finished', arguments: {}, delivery: { mode: 'webhook', url } };
    const secret = generateWebhookSecret();
    await firstValueFrom(
      onA.request('events/subscribe', { ...params, cursor: null, delivery: { ...params.delivery, secret } }),
    );
    for (let tries = 0; bodies.length === 0 && tries < 300; tries++) {
      a.attempts.at(-1)?.next({ data: { n: tries } });
      await sleep(20);
    }
    const records = () => held.connections[0]!.call('KEYS', ['spec:eft3:{webhooks}:r:*']) as Promise<string[]>;
    expect(bodies.length).toBeGreaterThan(0);
    expect(await records()).toHaveLength(1);
    a.attempts.at(-1)!.error(new EventsTerminated(-32012, 'Forbidden', { reason: 'Access revoked' }));
    await eventually(() => bodies.some((body) => body.type === 'terminated'));
    expect(bodies.find((body) => body.type === 'terminated')).toEqual({ type: 'terminated', error: FORBIDDEN });
    // The record is gone from the store (not unsubscribed: removed by the termination).
    let left = await records();
    for (let tries = 0; left.length > 0 && tries < 100; tries++) {
      await sleep(20);
      left = await records();
    }
    expect(left).toEqual([]);
    await expect(firstValueFrom(onA.request('events/unsubscribe', params))).rejects.toMatchObject({ code: -32011 });
  });
});
