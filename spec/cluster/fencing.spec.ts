import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect } from '../../lib/client/client';
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

// Issue #42: fencing. An owner frozen (SIGSTOP) long enough for its heartbeat to expire is replaced;
// once it runs again (SIGCONT) its writes are refused, it stops serving the session, and the client
// goes on with the new owner. Two cluster processes built from the sources, on a real redis-server.
jest.setTimeout(30_000);

const PREFIX = 'fence:';
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

/** The progress notifications stored in a session's event stream. */
async function storedProgress(sessionId: string): Promise<number[]> {
  const entries = (await admin.call('XRANGE', [`${PREFIX}ev:{${sessionId}}`, '-', '+'])) as Array<[string, string[]]>;
  const values: number[] = [];
  for (const [, fields] of entries) {
    const data = fields[fields.indexOf('d') + 1];
    if (fields.includes('d') && data?.includes('notifications/progress'))
      values.push((JSON.parse(data) as { params: { progress: number } }).params.progress);
  }
  return values;
}

const textOf = (result: { content: unknown }): string => (result.content as Array<{ text: string }>)[0]!.text;

/** What the spec does with a client, the same for rxmcp's and the official SDK's. */
interface Driver {
  readonly sessionId: string;
  countdown(from: number, intervalMs: number, run: string, onProgress?: (value: number) => void): Promise<string>;
  whoami(): Promise<string>;
  ping(): Promise<void>;
}

async function ours(): Promise<Driver> {
  const transport = createStreamableHttpClientTransport({
    url: front.url,
    reconnect: { initialDelayMs: 20, maxRetries: 30 },
  });
  const client = await connect(transport, { name: 'fencing', version: '1', protocolVersion: '2025-11-25' });
  closing.push(client);
  return {
    sessionId: transport.sessionId!,
    countdown: async (from, intervalMs, run, onProgress) =>
      textOf(
        await client.promises.callTool(
          'countdown',
          { from, intervalMs, run },
          { timeoutMs: 20_000, onProgress: ({ progress }) => onProgress?.(progress) },
        ),
      ),
    whoami: async () => textOf(await client.promises.callTool('whoami', {})),
    ping: () => client.promises.ping(),
  };
}

async function official(): Promise<Driver> {
  const client = new Client({ name: 'fencing-sdk', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(front.url), {
    reconnectionOptions: {
      initialReconnectionDelay: 20,
      maxReconnectionDelay: 200,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 30,
    },
  });
  await client.connect(transport);
  closing.push(client);
  return {
    sessionId: transport.sessionId!,
    countdown: async (from, intervalMs, run, onProgress) =>
      textOf(
        (await client.callTool({ name: 'countdown', arguments: { from, intervalMs, run } }, undefined, {
          timeout: 20_000,
          onprogress: ({ progress }) => onProgress?.(progress),
        })) as { content: unknown },
      ),
    whoami: async () => textOf((await client.callTool({ name: 'whoami', arguments: {} })) as { content: unknown }),
    ping: async () => void (await client.ping()),
  };
}

describe.each([
  ['rxmcp', ours],
  ['the official SDK', official],
] as const)('a frozen owner replaced while it could not answer, with %s client', (name, open) => {
  it('has its writes refused once it runs again, stops serving, and the client goes on with the new owner', async () => {
    front.pin('initialize', 0);
    const client = await open();
    const { sessionId } = client;
    const record = `${PREFIX}s:{${sessionId}}`;
    expect(await admin.call('HMGET', [record, 'owner', 'epoch'])).toEqual([a.processId, '0']);

    const seen: number[] = [];
    let frozen = false;
    const call = client.countdown(60, 40, `fenced ${name}`, (progress) => {
      seen.push(progress);
      if (progress === 5 && !frozen) {
        frozen = true;
        a.freeze();
        // The balancer takes the frozen process out of its rotation.
        front.replace(0, b.url);
      }
    });
    const outcome = call.then(
      (result) => ({ result }),
      (error: unknown) => ({ error: error as Error }),
    );
    await Promise.race([
      eventually(() => frozen, 10_000),
      outcome.then((ended) => Promise.reject(new Error(JSON.stringify(ended)))),
    ]);
    // Its heartbeat expires (3 beats of 200 ms); then the session's next request takes it over.
    for (;;) {
      if (Number(await admin.call('EXISTS', [`${PREFIX}p:${a.processId}`])) === 0) break;
      await new Promise((done) => setTimeout(done, 50));
    }
    await client.ping();
    expect(await admin.call('HMGET', [record, 'owner', 'epoch'])).toEqual([b.processId, '1']);
    const storedBeforeThaw = await storedProgress(sessionId);

    a.thaw();
    front.replace(0, a.url);
    const ended = await outcome;
    // The call ends once, with an error that names the cause: its process stopped serving it.
    expect('error' in ended && ended.error.message).toMatch(/stopped/);
    // Nothing the old owner sent after it was replaced was stored, nor delivered.
    await new Promise((done) => setTimeout(done, 300));
    expect(await storedProgress(sessionId)).toEqual(storedBeforeThaw);
    expect(seen).toEqual(storedBeforeThaw);
    expect(await admin.call('HMGET', [record, 'owner', 'epoch'])).toEqual([b.processId, '1']);
    expect(await admin.call('HGET', [`${PREFIX}runs`, `fenced ${name}`])).toBe('1');

    // The client goes on with the new owner, whichever process its requests reach (A forwards to B).
    for (let i = 0; i < 4; i++) expect(await client.whoami()).toBe(b.processId);
    expect(await client.countdown(3, 10, `after ${name}`)).toBe(`counted down from 3 in ${b.processId}`);
    expect(await admin.call('HGET', [`${PREFIX}runs`, `after ${name}`])).toBe('1');
  });
});
