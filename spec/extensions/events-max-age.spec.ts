import { firstValueFrom, Subject, VirtualTimeScheduler } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { eventsClient } from '../../lib/client/events/events-client';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import type { EventPollResult } from '../../lib/schema/events';
import { events } from '../../lib/server/events/events-extension';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';

// `maxAgeMs` (the triggers and events design sketch, `events/poll` and `events/stream`): "do not
// replay events older than this many milliseconds". A subscription resuming from a cursor gets
// only the occurrences kept that are young enough; its cursor still passes the others.

const HOUR = 3_600_000;

/** Lets the in-memory messages through (they hop by microtask and immediate). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((done) => setImmediate(done));
}

function builds() {
  const finished = new Subject<EventEmission>();
  const extension = events([{ name: 'build.finished', source: () => finished }], { nextPollMs: 0 });
  const server = createServer({ name: 'ci', version: '1.0.0', logging: false, extensions: [extension] });
  return { server, finished };
}

async function connected(
  server: ReturnType<typeof builds>['server'],
  protocolVersion: '2025-11-25' | '2026-07-28',
  sent: JsonRpcMessage[] = [],
  declaresEvents = false,
  received: JsonRpcMessage[] = [],
): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  serverSide.incoming$.subscribe((message) => sent.push(message as JsonRpcMessage));
  clientSide.incoming$.subscribe((message) => received.push(message as JsonRpcMessage));
  server.connect(serverSide);
  return connect(clientSide, {
    name: 'agent',
    version: '1.0.0',
    protocolVersion,
    ...(declaresEvents && { extensions: { 'io.modelcontextprotocol/events': { delivery: ['push', 'poll'] } } }),
  });
}

const poll = (client: McpClient, params: Record<string, unknown>) =>
  firstValueFrom(client.request('events/poll', { name: 'build.finished', arguments: {}, ...params })) as Promise<
    Record<string, unknown> & EventPollResult
  >;

/** An old build, a recent one, and one with no readable time. */
function emitMixed(finished: Subject<EventEmission>): void {
  finished.next({ data: { build: 1 }, eventId: 'old', timestamp: new Date(Date.now() - 2 * HOUR) });
  finished.next({ data: { build: 2 }, eventId: 'recent', timestamp: new Date(Date.now() - 1000) });
  finished.next({ data: { build: 3 }, eventId: 'untimed', timestamp: 'not a date' });
}

describe.each(['2025-11-25', '2026-07-28'] as const)('maxAgeMs (%s)', (protocolVersion) => {
  it('leaves out of a poll the occurrences older than maxAgeMs, and its cursor passes them', async () => {
    const { server, finished } = builds();
    const client = await connected(server, protocolVersion);
    const start = await poll(client, { cursor: null });
    emitMixed(finished);
    const young = await poll(client, { cursor: start.cursor, maxAgeMs: HOUR });
    expect(young.events.map((event) => event.eventId)).toEqual(['recent', 'untimed']);
    // Without maxAgeMs everything kept is replayed; the cursors of both reads agree.
    const all = await poll(client, { cursor: start.cursor });
    expect(all.events.map((event) => event.eventId)).toEqual(['old', 'recent', 'untimed']);
    expect(young.cursor).toBe(all.cursor);
    // The floor passed the cursor: the skip is said as a gap; nothing skipped, no gap.
    expect(young.truncated).toBe(true);
    expect(all.truncated).toBe(false);
    expect((await poll(client, { cursor: start.cursor, maxAgeMs: 3 * HOUR })).truncated).toBe(false);
    client.close();
  });

  it('refuses a maxAgeMs that is not a non-negative number with -32602', async () => {
    const { server } = builds();
    const client = await connected(server, protocolVersion);
    for (const maxAgeMs of [-1, '60000', Number.POSITIVE_INFINITY, null])
      await expect(poll(client, { cursor: null, maxAgeMs })).rejects.toMatchObject({ code: -32602 });
    client.close();
  });

  it('does not replay old occurrences on a stream resumed with maxAgeMs, and says so with truncated', async () => {
    const { server, finished } = builds();
    const received: JsonRpcMessage[] = [];
    const client = await connected(server, protocolVersion, [], true, received);
    const start = await poll(client, { cursor: null });
    emitMixed(finished);
    const seen: string[] = [];
    const following = eventsClient(client)
      .follow('build.finished', {}, { delivery: 'push', cursor: start.cursor, maxAgeMs: HOUR })
      .subscribe((occurrence) => seen.push(occurrence.eventId));
    await settle();
    // Live occurrences are not replays: an old one still arrives.
    finished.next({ data: { build: 4 }, eventId: 'late', timestamp: new Date(Date.now() - 3 * HOUR) });
    await settle();
    expect(seen).toEqual(['recent', 'untimed', 'late']);
    const active = received.find((message) => 'method' in message && message.method === 'notifications/events/active');
    expect(active).toMatchObject({ params: { truncated: true } });
    following.unsubscribe();
    client.close();
  });
});

describe('a client following with maxAgeMs', () => {
  it('sends it with the poll that resumes only, not with those that follow', async () => {
    const { server, finished } = builds();
    const sent: JsonRpcMessage[] = [];
    const client = await connected(server, '2025-11-25', sent);
    const start = await poll(client, { cursor: null });
    emitMixed(finished);
    const seen: string[] = [];
    // The poll loop waits on a virtual clock: each round, its timers run, then its messages hop.
    const scheduler = new VirtualTimeScheduler();
    const rounds = async (count: number) => {
      for (let i = 0; i < count; i++) {
        scheduler.flush();
        await settle();
      }
    };
    const following = eventsClient(client)
      .follow('build.finished', {}, { delivery: 'poll', cursor: start.cursor, maxAgeMs: HOUR, scheduler })
      .subscribe((occurrence) => seen.push(occurrence.eventId));
    await rounds(2);
    finished.next({ data: { build: 4 }, eventId: 'late', timestamp: new Date(Date.now() - 3 * HOUR) });
    await rounds(3);
    following.unsubscribe();
    expect(seen).toEqual(['recent', 'untimed', 'late']);
    const polls = sent.filter((message) => 'method' in message && message.method === 'events/poll').slice(1);
    const ages = polls.map((message) => {
      const params: unknown = 'params' in message ? message.params : undefined;
      return typeof params === 'object' && params !== null && 'maxAgeMs' in params ? params.maxAgeMs : undefined;
    });
    expect(ages[0]).toBe(HOUR);
    expect(ages.slice(1).every((age) => age === undefined)).toBe(true);
    expect(ages.length).toBeGreaterThan(1);
    client.close();
  });
});
