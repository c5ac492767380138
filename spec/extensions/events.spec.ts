import { firstValueFrom, Subject, take, toArray, VirtualTimeScheduler } from 'rxjs';
import { connect } from '../../lib/client/client';
import { eventsClient } from '../../lib/client/events/events-client';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import type { EventPollResult } from '../../lib/schema/events';
import { events } from '../../lib/server/events/events-extension';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';

// Events, poll delivery (the triggers and events extension's design sketch, as merged on 2026-09-08): a
// server declares event types with an Observable source; a client follows one as an Observable,
// the SDK running the poll loop.
function inbox() {
  const mail = new Subject<EventEmission>();
  const sources: Array<Record<string, unknown>> = [];
  const extension = events(
    [
      {
        name: 'email.received',
        description: 'A new email in the inbox',
        inputSchema: { type: 'object', properties: { from: { type: 'string' } } },
        source: (args) => {
          sources.push(args);
          return mail;
        },
      },
    ],
    { nextPollMs: 0, capacity: 3 },
  );
  const server = createServer({ name: 'inbox', version: '1.0.0', logging: false, extensions: [extension] });
  return { server, mail, sources };
}

async function connected(server: ReturnType<typeof inbox>['server'], protocolVersion: '2025-11-25' | '2026-07-28') {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  return connect(clientSide, { name: 'agent', version: '1.0.0', protocolVersion });
}

const poll = (client: Awaited<ReturnType<typeof connected>>, params: Record<string, unknown>) =>
  firstValueFrom(client.request('events/poll', { name: 'email.received', arguments: {}, ...params })) as Promise<
    Record<string, unknown> & EventPollResult
  >;

describe.each(['2025-11-25', '2026-07-28'] as const)('events by polling (%s)', (protocolVersion) => {
  it('lists the event types with their delivery modes and schemas', async () => {
    const { server } = inbox();
    const client = await connected(server, protocolVersion);
    const list = eventsClient(client);
    expect(list.supported).toBe(true);
    expect(await list.list()).toEqual([
      {
        name: 'email.received',
        description: 'A new email in the inbox',
        delivery: ['poll', 'push'],
        inputSchema: { type: 'object', properties: { from: { type: 'string' } } },
      },
    ]);
    client.close();
  });

  it('starts from now with a null cursor, then returns what came after each cursor, message by message', async () => {
    const { server, mail, sources } = inbox();
    const client = await connected(server, protocolVersion);
    const first = await poll(client, { cursor: null, arguments: { from: 'a' } });
    expect(first).toMatchObject({ events: [], truncated: false, hasMore: false, nextPollMs: 0 });
    mail.next({ data: { subject: 'one' }, eventId: 'm1', timestamp: new Date('2026-11-28T10:00:00Z') });
    mail.next({ data: { subject: 'two' } });
    const second = await poll(client, { cursor: first.cursor, arguments: { from: 'a' }, maxEvents: 1 });
    expect(second.events).toEqual([
      { eventId: 'm1', name: 'email.received', timestamp: '2026-11-28T10:00:00.000Z', data: { subject: 'one' } },
    ]);
    expect(second.hasMore).toBe(true);
    const third = await poll(client, { cursor: second.cursor, arguments: { from: 'a' } });
    expect(third.events.map((event) => event.data)).toEqual([{ subject: 'two' }]);
    expect(third.hasMore).toBe(false);
    // One source per set of arguments, however the keys are ordered.
    await poll(client, { cursor: null, arguments: { from: 'a' } });
    expect(sources).toEqual([{ from: 'a' }]);
    client.close();
  });

  it('says when occurrences were skipped because the cursor is older than what is kept', async () => {
    const { server, mail } = inbox();
    const client = await connected(server, protocolVersion);
    const start = await poll(client, { cursor: null });
    for (let i = 0; i < 5; i++) mail.next({ data: { i } });
    const read = await poll(client, { cursor: start.cursor });
    expect(read.truncated).toBe(true);
    expect(read.events.map((event) => event.data)).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }]);
    client.close();
  });

  it('refuses an unknown event type with -32011 and bad params with -32602', async () => {
    const { server } = inbox();
    const client = await connected(server, protocolVersion);
    await expect(poll(client, { name: 'nope', cursor: null })).rejects.toMatchObject({
      code: -32011,
      data: { kind: 'event' },
    });
    await expect(poll(client, { cursor: 7 })).rejects.toBeInstanceOf(JsonRpcError);
    await expect(poll(client, { cursor: null, arguments: [] })).rejects.toMatchObject({ code: -32602 });
    client.close();
  });

  it('refuses arguments its inputSchema refuses with -32602 naming the field, for polls and streams alike', async () => {
    const { server, sources } = inbox();
    const client = await connected(server, protocolVersion);
    const refused = { code: -32602, data: { issues: [expect.objectContaining({ path: 'arguments.from' })] } };
    await expect(poll(client, { cursor: null, arguments: { from: 42 } })).rejects.toMatchObject(refused);
    const stream = client.request('events/stream', { name: 'email.received', arguments: { from: 42 }, cursor: null });
    await expect(firstValueFrom(stream)).rejects.toMatchObject(refused);
    // No source was followed for them; arguments it accepts still are.
    expect(sources).toEqual([]);
    await poll(client, { cursor: null, arguments: { from: 'ada@example.com' } });
    expect(sources).toEqual([{ from: 'ada@example.com' }]);
    client.close();
  });

  it('follows an event type as an Observable: the SDK polls, drops repeats, and stops when unsubscribed', async () => {
    const { server, mail } = inbox();
    const client = await connected(server, protocolVersion);
    const cursors: Array<string | null> = [];
    const requests = jest.spyOn(client, 'request');
    const followed = eventsClient(client).follow(
      'email.received',
      {},
      { minPollMs: 5, onCursor: (cursor) => cursors.push(cursor) },
    );
    const received = firstValueFrom(followed.pipe(take(3), toArray()));
    await new Promise((resolve) => setTimeout(resolve, 20));
    mail.next({ data: { n: 1 }, eventId: 'same' });
    mail.next({ data: { n: 1 }, eventId: 'same' });
    mail.next({ data: { n: 2 } });
    mail.next({ data: { n: 3 } });
    expect((await received).map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(cursors.length).toBeGreaterThan(1);
    const polls = requests.mock.calls.length;
    expect(polls).toBeGreaterThan(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(requests.mock.calls.length).toBe(polls);
    client.close();
  });

  it('fails to follow on a server without the extension, saying so', async () => {
    const server = createServer({ name: 'plain', version: '1.0.0', logging: false });
    const client = await connected(server as ReturnType<typeof inbox>['server'], protocolVersion);
    const list = eventsClient(client);
    expect(list.supported).toBe(false);
    await expect(firstValueFrom(list.follow('email.received'))).rejects.toThrow(/io\.modelcontextprotocol\/events/);
    client.close();
  });
});

describe.each(['2025-11-25', '2026-07-28'] as const)('events/list pages (%s)', (protocolVersion) => {
  const types = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, source: () => new Subject<EventEmission>() }));

  it('answers pageSize types a page with nextCursor, and the client reads every page', async () => {
    const server = createServer({
      name: 'many',
      version: '1.0.0',
      logging: false,
      extensions: [events(types, { pageSize: 2 })],
    });
    const client = await connected(server, protocolVersion);
    const first = await firstValueFrom(client.request('events/list', {}));
    expect((first.events as Array<{ name: string }>).map((type) => type.name)).toEqual(['a', 'b']);
    expect(typeof first.nextCursor).toBe('string');
    const second = await firstValueFrom(client.request('events/list', { cursor: first.nextCursor }));
    expect((second.events as Array<{ name: string }>).map((type) => type.name)).toEqual(['c', 'd']);
    expect((await eventsClient(client).list()).map((type) => type.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    await expect(firstValueFrom(client.request('events/list', { cursor: 'not ours' }))).rejects.toMatchObject({
      code: -32602,
    });
    client.close();
  });

  it('refuses a pageSize that is not a positive integer', () => {
    expect(() => events(types, { pageSize: 0 })).toThrow(RangeError);
  });
});

describe('an event source followed for polls', () => {
  it('is released when no poll has read it for the lease, and followed again by the next poll', async () => {
    const mail = new Subject<EventEmission>();
    const scheduler = new VirtualTimeScheduler();
    const extension = events([{ name: 'tick', source: () => mail }], { leaseMs: 1000, scheduler });
    const server = createServer({ name: 's', version: '1.0.0', logging: false, extensions: [extension] });
    const client = await connected(server, '2025-11-25');
    const tick = (cursor: string | null) =>
      firstValueFrom(client.request('events/poll', { name: 'tick', arguments: {}, cursor }));
    await tick(null);
    expect(mail.observed).toBe(true);
    scheduler.maxFrames = 999;
    scheduler.flush();
    expect(mail.observed).toBe(true);
    scheduler.maxFrames = 1001;
    scheduler.flush();
    expect(mail.observed).toBe(false);
    await tick(null);
    expect(mail.observed).toBe(true);
    client.close();
  });
});
