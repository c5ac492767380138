import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startClusterChild } from '../support/cluster-processes';
import type { ClusterChild } from '../support/cluster-processes';
import { startRedis } from '../support/redis-server';
import { post } from '../transport/streamable-http/http-kit';
import type { RunningRedis } from '../support/redis-server';

// A session whose owner died, asked for by many requests at once on one process: the process takes
// it over once. A second claim of its own would move the session's epoch on under the first, and
// the writes the session had made by then (a notification, a response) would be refused and lost.
// Two cluster processes built from the sources, on a real redis-server.
jest.setTimeout(30_000);

const PREFIX = 'once:';
let redis: RunningRedis;
let admin: RedisConnection;
let a: ClusterChild;
let b: ClusterChild;

beforeAll(async () => {
  redis = await startRedis();
  admin = await connectRedis(redis.url);
  a = await startClusterChild({ redisUrl: redis.url, prefix: PREFIX });
  b = await startClusterChild({ redisUrl: redis.url, prefix: PREFIX });
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await admin?.quit();
  await redis?.stop();
});

/** One JSON-RPC request of the session, posted to `url`: its HTTP status and the body read whole. */
async function call(url: string, sessionId: string, body: object): Promise<{ status: number; text: string }> {
  const response = await post(url, body, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
  return { status: response.status, text: await response.text() };
}

describe('a session whose owner died, asked for by many requests at once', () => {
  it('is taken over once by the process they reach, which answers them all and keeps writing its events', async () => {
    const transport = createStreamableHttpClientTransport({ url: a.url, reconnect: { maxRetries: 0 } });
    const client = await connect(transport, { name: 'once', version: '1', protocolVersion: '2025-11-25' });
    const sessionId = transport.sessionId!;
    await firstValueFrom(client.request('resources/subscribe', { uri: 'test://watched' }));
    client.close();
    const record = `${PREFIX}s:{${sessionId}}`;
    expect(await admin.call('HMGET', [record, 'owner', 'epoch'])).toEqual([a.processId, '0']);
    await a.stop('SIGKILL');

    // Requests a little apart, so that some read the record before the claim and some after it.
    const answers: Array<Promise<{ status: number; text: string }>> = [];
    for (let id = 1; id <= 12; id++) {
      answers.push(call(b.url, sessionId, { jsonrpc: '2.0', id, method: 'ping' }));
      await new Promise((resolve) => setTimeout(resolve, id % 3));
    }
    const answered = await Promise.all(answers);
    answered.forEach(({ status, text }, index) => {
      expect(status).toBe(200);
      expect(text).toContain(`"id":${index + 1},"result":{}`);
    });
    expect(await admin.call('HMGET', [record, 'owner', 'epoch'])).toEqual([b.processId, '1']);

    // The session's owner writes its events under the epoch it claimed: none is refused.
    const touched = await call(b.url, sessionId, {
      jsonrpc: '2.0',
      id: 99,
      method: 'tools/call',
      params: { name: 'touch', arguments: {} },
    });
    expect(touched.text).toContain('touched');
    const storedUpdates = async (): Promise<number> => {
      const entries = (await admin.call('XRANGE', [`${PREFIX}ev:{${sessionId}}`, '-', '+'])) as Array<
        [string, string[]]
      >;
      return entries.filter(([, fields]) => fields.some((field) => field.includes('notifications/resources/updated')))
        .length;
    };
    let stored = 0;
    for (let wait = 0; wait < 100 && stored === 0; wait++) {
      stored = await storedUpdates();
      if (stored === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(stored).toBe(1);
  });
});
