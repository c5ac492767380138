import Redis from 'ioredis';
import pino from 'pino';
import { ClusterKeys } from '../../lib/cluster/cluster-keys';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { createRedisEventStore } from '../../lib/cluster/redis-event-store';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';

let redis: RunningRedis;
let connection: RedisConnection;
const keys = new ClusterKeys('spec:');

beforeAll(async () => {
  redis = await startRedis();
  connection = await connectRedis(redis.url);
});

it('takes an ioredis client as it is (the cluster declares the part of it that it uses)', async () => {
  const client: RedisConnection = new Redis(redis.url);
  const events = createRedisEventStore({
    redis: client,
    keys,
    maxEventsPerSession: 10,
    ttlMs: 1000,
    logger: pino({ level: 'silent' }),
  });
  expect(await events.storeEvent('z~1', null)).toMatch(/^z~1#/);
  await client.quit();
});

afterAll(async () => {
  await connection?.quit();
  await redis?.stop();
});

const store = (maxEventsPerSession = 100, ttlMs = 60_000) =>
  createRedisEventStore({ redis: connection, keys, maxEventsPerSession, ttlMs, logger: pino({ level: 'silent' }) });

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

async function replay(events: ReturnType<typeof store>, after: string) {
  const sent: Array<{ eventId: string; payload: unknown }> = [];
  const streamId = await events.replayAfter(after, (eventId, payload) => sent.push({ eventId, payload }));
  return { streamId, sent };
}

describe('createRedisEventStore', () => {
  it('replays the events of one stream after an id, in order, without priming events or other streams', async () => {
    const events = store();
    const primed = await events.storeEvent('a~1', null);
    const first = await events.storeEvent('a~1', note(1));
    await events.storeEvent('a~2', note(99));
    const second = await events.storeEvent('a~1', note(2));
    expect(primed).toMatch(/^a~1#\d+-\d+$/);
    const { streamId, sent } = await replay(events, primed);
    expect(streamId).toBe('a~1');
    expect(sent).toEqual([
      { eventId: first, payload: note(1) },
      { eventId: second, payload: note(2) },
    ]);
    expect((await replay(events, second)).sent).toEqual([]);
  });

  it('keeps at most maxEventsPerSession events of a session; an id trimmed away is unknown', async () => {
    const events = store(3);
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) ids.push(await events.storeEvent('b~1', note(n)));
    expect(await connection.call('XLEN', [keys.events('b')])).toBe(3);
    expect((await replay(events, ids[0]!)).streamId).toBeUndefined();
    expect((await replay(events, ids[2]!)).sent.map((e) => e.payload)).toEqual([note(3), note(4)]);
  });

  it('lets a session’s events expire after ttlMs', async () => {
    const events = store(100, 5_000);
    await events.storeEvent('c~1', note(1));
    const ttl = Number(await connection.call('PTTL', [keys.events('c')]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it('answers undefined for ids it never issued', async () => {
    const events = store();
    expect((await replay(events, 'nope')).streamId).toBeUndefined();
    expect((await replay(events, 'd~1#not-an-id')).streamId).toBeUndefined();
    expect((await replay(events, 'd~1#1-0')).streamId).toBeUndefined();
  });

  it('forgets a session’s events when it ends, unless its process is leaving', async () => {
    const events = store();
    const kept = await events.storeEvent('e~1', note(1));
    events.keepOnClose = true;
    await events.forgetSession!('e~');
    expect((await replay(events, kept)).streamId).toBe('e~1');
    events.keepOnClose = false;
    await events.forgetSession!('e~');
    expect((await replay(events, kept)).streamId).toBeUndefined();
  });

  it('records the requests a stream carries, the latest record counting, and never replays the record', async () => {
    const events = store();
    const primed = await events.storeEvent('f~1', null);
    await events.storeRequests!('f~1', [7, 'eight']);
    expect(await events.requestsOf!('f~1')).toEqual([7, 'eight']);
    expect(await events.requestsOf!('f~2')).toBeUndefined();
    await events.storeRequests!('f~1', []);
    expect(await events.requestsOf!('f~1')).toEqual([]);
    const later = await events.storeEvent('f~1', note(1));
    expect((await replay(events, primed)).sent).toEqual([{ eventId: later, payload: note(1) }]);
  });
});
