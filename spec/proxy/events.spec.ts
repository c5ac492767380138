import { firstValueFrom, Subject, take, toArray, VirtualTimeScheduler } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { eventsClient } from '../../lib/client/events/events-client';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { aggregate } from '../../lib/proxy/aggregate';
import { proxy } from '../../lib/proxy/proxy';
import { EVENTS_EXTENSION } from '../../lib/schema/events';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { Transport } from '../../lib/transport/transport';
import { until } from '../support/until';
import { advanceTo } from '../support/virtual-time';

// Events (the triggers and events extension's design sketch, as merged on 2026-09-08) through `proxy()` and
// `aggregate()`: polls are forwarded, a push stream is relayed under the caller's own
// subscription id, and cancelling downstream cancels upstream.
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const DECLARES_EVENTS = { extensions: { [EVENTS_EXTENSION]: { delivery: ['push', 'poll'] } } };

/** An upstream server with one event type, its source a Subject, timed on a virtual clock. */
function pager(name = 'pager') {
  const source = new Subject<EventEmission>();
  const scheduler = new VirtualTimeScheduler();
  const extension = events([{ name: 'incident.created', source: () => source }], {
    scheduler,
    nextPollMs: 10,
    push: { heartbeatMs: 1000 },
  });
  const server = createServer({ name, version: '1.0.0', logging: false, extensions: [extension] });
  return { server, source, scheduler, extension };
}

/** A second event type, for changes of the set. */
const resolved = { name: 'incident.resolved', source: () => new Subject<EventEmission>() };

/** A client of `target` in memory, declaring events (push and poll) unless told not to, recording what it receives. */
async function clientOf(
  target: { connect(transport: Transport): unknown },
  protocolVersion: '2025-11-25' | '2026-07-28',
  declares = true,
): Promise<{ client: McpClient; received: JsonRpcMessage[]; sent: JsonRpcMessage[] }> {
  const [clientSide, serverSide] = createInMemoryPair();
  target.connect(serverSide);
  const received: JsonRpcMessage[] = [];
  const sent: JsonRpcMessage[] = [];
  clientSide.incoming$.subscribe((frame) => received.push(frame as JsonRpcMessage));
  serverSide.incoming$.subscribe((frame) => sent.push(frame as JsonRpcMessage));
  const client = await connect(clientSide, {
    name: 'caller',
    version: '1.0.0',
    protocolVersion,
    ...(declares ? DECLARES_EVENTS : {}),
  });
  return { client, received, sent };
}

const framesOf = (received: readonly JsonRpcMessage[], method: string) =>
  received.filter(
    (message): message is JsonRpcMessage & { params: Record<string, unknown> } =>
      'method' in message && message.method === method,
  );

const clients: McpClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

describe.each([
  ['2025-11-25', '2025-11-25'],
  ['2025-11-25', '2026-07-28'],
  ['2026-07-28', '2025-11-25'],
  ['2026-07-28', '2026-07-28'],
] as const)('events through proxy(): upstream %s, caller %s', (upstreamRevision, callerRevision) => {
  async function through(upstreamDeclares = true) {
    const upstreamServer = pager();
    const upstream = await clientOf(upstreamServer.server, upstreamRevision, upstreamDeclares);
    const front = proxy(upstream.client);
    const caller = await clientOf(front, callerRevision);
    clients.push(upstream.client, caller.client);
    return { ...upstreamServer, upstream, caller, front };
  }

  it('declares the upstream’s events settings where the caller’s revision keeps extensions', async () => {
    const { caller } = await through();
    const capabilities = caller.client.serverCapabilities as Record<string, unknown>;
    const place = callerRevision === '2026-07-28' ? 'extensions' : 'experimental';
    expect(capabilities[place]).toEqual({
      [EVENTS_EXTENSION]: { delivery: ['poll', 'push'], heartbeatMs: 1000, listChanged: true },
    });
    expect(await eventsClient(caller.client).list()).toEqual([
      expect.objectContaining({ name: 'incident.created', delivery: ['poll', 'push'] }),
    ]);
  });

  it('tells the callers that declared events when the upstream’s event types change, and no other', async () => {
    const { caller, extension, front } = await through();
    const silent = await clientOf(front, callerRevision, false);
    clients.push(silent.client);
    const seen: string[][] = [];
    const subscription = eventsClient(caller.client).types$.subscribe((types) => seen.push(types.map((t) => t.name)));
    await until(() => seen.length === 1);
    extension.setTypes([{ name: 'incident.created', source: () => new Subject<EventEmission>() }, resolved]);
    await until(() => seen.at(-1)?.length === 2);
    expect(seen.at(-1)).toEqual(['incident.created', 'incident.resolved']);
    // The caller heard it in its own revision's way: on its listen stream when modern.
    const told = framesOf(caller.received, 'notifications/events/list_changed');
    expect(told.length).toBeGreaterThan(0);
    if (callerRevision === '2026-07-28') expect(idOf(told[0]!)).toBeDefined();
    else expect(told[0]!.params).toBeUndefined();
    expect(framesOf(silent.received, 'notifications/events/list_changed')).toEqual([]);
    subscription.unsubscribe();
  });

  it('passes on the termination of a push stream whose event type the upstream removed (-32011)', async () => {
    const { caller, extension, source } = await through();
    const failure = firstValueFrom(
      eventsClient(caller.client).follow('incident.created', {}, { delivery: 'push' }),
    ).catch((error: unknown) => error);
    await until(() => source.observed);
    extension.setTypes([resolved]);
    expect(await failure).toMatchObject({ code: -32011, data: { kind: 'event' } });
    expect(framesOf(caller.received, 'notifications/events/terminated')).toHaveLength(1);
  });

  it('declares no events when the proxy’s upstream client did not declare them', async () => {
    const { caller } = await through(false);
    expect(eventsClient(caller.client).supported).toBe(false);
  });

  it('forwards polls: the caller follows by poll through the proxy', async () => {
    const { caller, source, upstream } = await through();
    const followed = eventsClient(caller.client).follow('incident.created', {}, { delivery: 'poll', minPollMs: 0 });
    const received = firstValueFrom(followed.pipe(take(2), toArray()));
    await until(() => source.observed);
    source.next({ data: { n: 1 } });
    source.next({ data: { n: 2 } });
    expect((await received).map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
    const methods = upstream.sent.flatMap((frame) => ('method' in frame ? [frame.method] : []));
    expect(methods).toContain('events/poll');
    expect(methods).not.toContain('events/stream');
  });

  it('relays a push stream under the caller’s subscription id, heartbeats included', async () => {
    const { caller, upstream, source, scheduler } = await through();
    const cursors: Array<string | null> = [];
    const followed = eventsClient(caller.client).follow('incident.created', {}, { onCursor: (c) => cursors.push(c) });
    const received = firstValueFrom(followed.pipe(take(2), toArray()));
    await until(() => source.observed);
    source.next({ data: { n: 1 }, eventId: 'a' });
    source.next({ data: { n: 2 }, eventId: 'b' });
    expect((await received).map((event) => [event.eventId, event.data])).toEqual([
      ['a', { n: 1 }],
      ['b', { n: 2 }],
    ]);
    expect(cursors.slice(0, 3)).toEqual(['0', '1', '2']);
    // Each hop has its own subscription id: the upstream stream's, and the caller's request id.
    const upstreamIds = new Set(framesOf(upstream.received, 'notifications/events/event').map(idOf));
    const callerIds = new Set(framesOf(caller.received, 'notifications/events/event').map(idOf));
    expect(upstreamIds.size).toBe(1);
    expect(callerIds.size).toBe(1);
    const callerStream = caller.sent.find((frame) => 'method' in frame && frame.method === 'events/stream');
    expect([...callerIds]).toEqual([(callerStream as { id: unknown }).id]);
    // A heartbeat of the upstream reaches the caller under the caller's id.
    const open = eventsClient(caller.client).follow('incident.created').subscribe();
    await until(
      () => source.observers.length === 1 && framesOf(caller.received, 'notifications/events/active').length === 2,
    );
    advanceTo(scheduler, 1000);
    await until(() => framesOf(caller.received, 'notifications/events/heartbeat').length > 0);
    const beat = framesOf(caller.received, 'notifications/events/heartbeat')[0]!;
    const active = framesOf(caller.received, 'notifications/events/active')[1]!;
    expect(idOf(beat)).toBe(idOf(active));
    open.unsubscribe();
  });

  it('cancels the upstream stream when the caller cancels', async () => {
    const { caller, upstream, source } = await through();
    const subscription = eventsClient(caller.client).follow('incident.created').subscribe();
    await until(() => framesOf(caller.received, 'notifications/events/active').length === 1);
    const streams = upstream.sent.filter((frame) => 'method' in frame && frame.method === 'events/stream');
    expect(streams).toHaveLength(1);
    const upstreamId = (streams[0] as { id: number | string }).id;
    subscription.unsubscribe();
    await until(() => framesOf(caller.sent, 'notifications/cancelled').length === 1);
    await until(() =>
      framesOf(upstream.sent, 'notifications/cancelled').some((frame) => frame.params.requestId === upstreamId),
    );
    // The upstream stopped the stream: an occurrence after the cancel reaches neither hop.
    source.next({ data: { late: true } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(framesOf(upstream.received, 'notifications/events/event')).toEqual([]);
    expect(framesOf(caller.received, 'notifications/events/event')).toEqual([]);
  });
});

const idOf = (frame: { params: Record<string, unknown> }) =>
  (frame.params._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID];

describe.each(['2025-11-25', '2026-07-28'] as const)('events through aggregate(): caller %s', (callerRevision) => {
  async function two() {
    const ops = pager('ops');
    const dev = pager('dev');
    const opsUpstream = await clientOf(ops.server, '2025-11-25');
    const devUpstream = await clientOf(dev.server, '2026-07-28');
    const front = aggregate({ ops: opsUpstream.client, dev: devUpstream.client });
    const caller = await clientOf(front, callerRevision);
    clients.push(opsUpstream.client, devUpstream.client, caller.client);
    return { ops, dev, opsUpstream, devUpstream, caller, front };
  }

  it('lists each upstream’s event types namespaced like tools, and declares what they serve', async () => {
    const { caller } = await two();
    const events$ = eventsClient(caller.client);
    expect(events$.supported).toBe(true);
    expect((await events$.list()).map((type) => [type.name, type.delivery])).toEqual([
      ['ops_incident.created', ['poll', 'push']],
      ['dev_incident.created', ['poll', 'push']],
    ]);
  });

  it('routes a poll to the upstream owning the type, and names its occurrences as listed', async () => {
    const { caller, dev, ops, devUpstream } = await two();
    const followed = eventsClient(caller.client).follow('dev_incident.created', {}, { delivery: 'poll', minPollMs: 0 });
    const received = firstValueFrom(followed.pipe(take(1)));
    await until(() => dev.source.observed);
    expect(ops.source.observed).toBe(false);
    dev.source.next({ data: { from: 'dev' } });
    expect(await received).toMatchObject({ name: 'dev_incident.created', data: { from: 'dev' } });
    const polls = framesOf(devUpstream.sent, 'events/poll');
    expect(polls[0]!.params).toMatchObject({ name: 'incident.created' });
  });

  it('relays a push stream from the owning upstream, renamed, and cancels it upstream', async () => {
    const { caller, ops, opsUpstream } = await two();
    const received = firstValueFrom(eventsClient(caller.client).follow('ops_incident.created').pipe(take(1)));
    await until(() => ops.source.observed);
    ops.source.next({ data: { from: 'ops' } });
    expect(await received).toMatchObject({ name: 'ops_incident.created', data: { from: 'ops' } });
    const stream = opsUpstream.sent.find((frame) => 'method' in frame && frame.method === 'events/stream') as {
      id: number;
      params: Record<string, unknown>;
    };
    expect(stream.params).toMatchObject({ name: 'incident.created' });
    // take(1) unsubscribed: the caller cancelled, and the aggregate cancels the upstream stream.
    await until(() =>
      framesOf(opsUpstream.sent, 'notifications/cancelled').some((frame) => frame.params.requestId === stream.id),
    );
  });

  it('tells the caller when an upstream’s event types change, and when an upstream leaves', async () => {
    const { caller, dev, front, opsUpstream } = await two();
    const seen: string[][] = [];
    eventsClient(caller.client).types$.subscribe((types) => seen.push(types.map((t) => t.name)));
    await until(() => seen.length === 1);
    dev.extension.setTypes([{ name: 'incident.created', source: () => dev.source }, resolved]);
    await until(() => seen.at(-1)?.length === 3);
    expect(seen.at(-1)).toEqual(['ops_incident.created', 'dev_incident.created', 'dev_incident.resolved']);
    const streamed = firstValueFrom(
      eventsClient(caller.client).follow('dev_incident.created', {}, { delivery: 'push', minPollMs: 10 }),
    ).catch((error: unknown) => error);
    await until(() => dev.source.observed);
    front.reconfigure({ ops: opsUpstream.client });
    await until(() => seen.at(-1)?.length === 1);
    expect(seen.at(-1)).toEqual(['ops_incident.created']);
    // The stream of a type that left with its upstream ends as a removed type's does (terminated, -32011).
    expect(await streamed).toMatchObject({ code: -32011, data: { kind: 'event' } });
  });

  it('reads every page of an upstream’s event types', async () => {
    const many = ['a', 'b', 'c'].map((name) => ({ name, source: () => new Subject<EventEmission>() }));
    const paged = createServer({
      name: 'paged',
      version: '1.0.0',
      logging: false,
      extensions: [events(many, { pageSize: 1 })],
    });
    const upstream = await clientOf(paged, '2025-11-25');
    const caller = await clientOf(aggregate({ paged: upstream.client }), callerRevision);
    clients.push(upstream.client, caller.client);
    expect((await eventsClient(caller.client).list()).map((type) => type.name)).toEqual([
      'paged_a',
      'paged_b',
      'paged_c',
    ]);
  });

  it('answers -32011 for an event type no upstream serves', async () => {
    const { caller } = await two();
    await expect(
      firstValueFrom(eventsClient(caller.client).follow('nope_incident.created', {}, { delivery: 'poll' })),
    ).rejects.toMatchObject({ code: -32011 });
  });
});
