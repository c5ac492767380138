import { firstValueFrom, Subject, take, toArray, VirtualTimeScheduler } from 'rxjs';
import { connect } from '../../lib/client/client';
import { eventsClient } from '../../lib/client/events/events-client';
import { EVENTS_EXTENSION } from '../../lib/schema/events';
import type { EventOccurrence } from '../../lib/schema/events';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import type { EventsOptions } from '../../lib/server/events/events-extension';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { rawSession } from '../support/raw-peer';
import { until } from '../support/until';
import { advanceTo } from '../support/virtual-time';

// Events, push delivery (the triggers and events extension's design sketch, as merged on 2026-09-08,
// "Push-Based Delivery"): one long-lived events/stream request per subscription, its
// notifications/events/* carrying the request's id in _meta.
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

function incidents(options: EventsOptions = {}) {
  const upstream = new Subject<EventEmission>();
  const scheduler = new VirtualTimeScheduler();
  const extension = events(
    [
      { name: 'incident.created', source: () => upstream },
      { name: 'email.received', delivery: ['poll'], source: () => upstream },
    ],
    { scheduler, push: { heartbeatMs: 1000 }, ...options },
  );
  const server = createServer({ name: 'pager', version: '1.0.0', logging: false, extensions: [extension] });
  return { server, upstream, scheduler };
}

const stream = (id: number, params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'events/stream',
  params: { name: 'incident.created', arguments: {}, cursor: null, ...params },
});

describe('events/stream on the wire (Push-Based Delivery)', () => {
  it('[Event Delivery] confirms with notifications/events/active, then sends each occurrence with its cursor and the request id', async () => {
    const { server, upstream } = incidents();
    const peer = await rawSession(server);
    peer.send(stream(1, { arguments: { severity: 'P1' } }));
    expect(await peer.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/events/active',
      params: { cursor: '0', truncated: false, _meta: { [SUBSCRIPTION_ID]: 1 } },
    });
    upstream.next({ eventId: 'evt_001', timestamp: '2026-02-19T15:30:00Z', data: { incidentId: 'INC-1' } });
    expect(await peer.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/events/event',
      params: {
        eventId: 'evt_001',
        name: 'incident.created',
        timestamp: '2026-02-19T15:30:00Z',
        data: { incidentId: 'INC-1' },
        cursor: '1',
        _meta: { [SUBSCRIPTION_ID]: 1 },
      },
    });
  });

  it('[Event Delivery] refuses at once, opening no stream: -32011 for an unknown event, -32014 for a type not pushed', async () => {
    const { server } = incidents();
    const peer = await rawSession(server);
    peer.send(stream(2, { name: 'nope' }));
    expect(await peer.next()).toMatchObject({ id: 2, error: { code: -32011, data: { kind: 'event' } } });
    peer.send(stream(3, { name: 'email.received' }));
    expect(await peer.next()).toMatchObject({
      id: 3,
      error: { code: -32014, data: { feature: 'deliveryMode', value: 'push' } },
    });
  });

  it('[Lifecycle → Heartbeat] sends notifications/events/heartbeat with the cursor checked up to, every interval', async () => {
    const { server, upstream, scheduler } = incidents();
    const peer = await rawSession(server);
    peer.send(stream(4, {}));
    await peer.next();
    upstream.next({ data: { n: 1 } });
    await peer.next();
    advanceTo(scheduler, 999);
    expect(peer.received.filter((frame) => (frame as { method?: string }).method?.endsWith('heartbeat'))).toEqual([]);
    advanceTo(scheduler, 1000);
    expect(await peer.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/events/heartbeat',
      params: { cursor: '1', _meta: { [SUBSCRIPTION_ID]: 4 } },
    });
    advanceTo(scheduler, 2000);
    expect(await peer.next()).toMatchObject({ method: 'notifications/events/heartbeat' });
  });

  it('[Lifecycle → Cancellation] stops delivering and releases the source on notifications/cancelled', async () => {
    const { server, upstream, scheduler } = incidents({ leaseMs: 500 });
    const peer = await rawSession(server);
    peer.send(stream(5, {}));
    await peer.next();
    expect(upstream.observed).toBe(true);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    await new Promise((resolve) => setImmediate(resolve));
    const before = peer.received.length;
    upstream.next({ data: { late: true } });
    // No heartbeat either: the stream's timer went with it.
    advanceTo(scheduler, 5000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(peer.received.length).toBe(before);
    // Nobody listens and no poll came for the lease: the source is unsubscribed.
    expect(upstream.observed).toBe(false);
  });

  it('[Cursor Lifecycle → Gaps] replays what came after a kept cursor, and says truncated for one older than the ring', async () => {
    const { server, upstream } = incidents({ capacity: 2 });
    const peer = await rawSession(server);
    peer.send(stream(6, {}));
    await peer.next();
    for (let n = 1; n <= 4; n++) upstream.next({ data: { n } });
    for (let n = 1; n <= 4; n++) await peer.next();
    peer.send(stream(7, { cursor: '3' }));
    expect(await peer.nextMatching((frame) => frame.method === 'notifications/events/active')).toMatchObject({
      params: { cursor: '3', truncated: false },
    });
    expect(await peer.next()).toMatchObject({ params: { data: { n: 4 }, cursor: '4' } });
    peer.send(stream(8, { cursor: '1' }));
    expect(await peer.nextMatching((frame) => frame.method === 'notifications/events/active')).toMatchObject({
      params: { cursor: '2', truncated: true, _meta: { [SUBSCRIPTION_ID]: 8 } },
    });
  });

  it('bounds a burst: past the pace and the buffer it drops what waits and skips ahead with truncated', async () => {
    const { server, upstream, scheduler } = incidents({
      push: { heartbeatMs: 60_000, maxEventsPerSecond: 2, bufferSize: 2 },
    });
    const peer = await rawSession(server);
    peer.send(stream(9, {}));
    await peer.next();
    for (let n = 1; n <= 5; n++) upstream.next({ data: { n } });
    // Two sent now, two wait, the fifth overflows: the waiting ones go, the stream skips to 5.
    const frames = [await peer.next(), await peer.next(), await peer.next()] as Array<Record<string, never>>;
    expect(frames.map((frame) => [frame.method, frame.params])).toEqual([
      ['notifications/events/event', expect.objectContaining({ data: { n: 1 } })],
      ['notifications/events/event', expect.objectContaining({ data: { n: 2 } })],
      ['notifications/events/active', { cursor: '5', truncated: true, _meta: { [SUBSCRIPTION_ID]: 9 } }],
    ]);
    upstream.next({ data: { n: 6 } });
    advanceTo(scheduler, 1000);
    expect(await peer.next()).toMatchObject({ params: { data: { n: 6 }, cursor: '6' } });
  });

  it('refuses a stream past maxStreams with -32013', async () => {
    const { server } = incidents({ push: { maxStreams: 1 } });
    const peer = await rawSession(server);
    peer.send(stream(10, {}));
    await peer.next();
    peer.send(stream(11, {}));
    expect(await peer.next()).toMatchObject({ id: 11, error: { code: -32013, data: { limit: 'streams', max: 1 } } });
  });

  it('[Event Delivery] sends notifications/events/error when the source fails, keeps the stream, and follows the source again', async () => {
    const scheduler = new VirtualTimeScheduler();
    const attempts: Array<Subject<EventEmission>> = [];
    const source = () => {
      attempts.push(new Subject<EventEmission>());
      return attempts.at(-1)!;
    };
    const extension = events([{ name: 'incident.created', source }], { scheduler, retryMs: 100 });
    const peer = await rawSession(
      createServer({ name: 's', version: '1.0.0', logging: false, extensions: [extension] }),
    );
    peer.send(stream(12, {}));
    await peer.next();
    attempts[0]!.error(new Error('Gmail API 503'));
    expect(await peer.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/events/error',
      params: { error: { code: -32603, message: 'UpstreamError' }, _meta: { [SUBSCRIPTION_ID]: 12 } },
    });
    advanceTo(scheduler, 100);
    expect(attempts).toHaveLength(2);
    attempts[1]!.next({ data: { back: true } });
    expect(await peer.next()).toMatchObject({ method: 'notifications/events/event', params: { data: { back: true } } });
  });
});

async function connected(server: ReturnType<typeof incidents>['server'], protocolVersion: string, push = true) {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  return connect(clientSide, {
    name: 'agent',
    version: '1.0.0',
    protocolVersion: protocolVersion as '2025-11-25',
    ...(push ? { extensions: { [EVENTS_EXTENSION]: { delivery: ['push', 'poll'] } } } : {}),
  });
}

describe.each(['2025-11-25', '2026-07-28'])('following by push (%s)', (protocolVersion) => {
  it('declares push and its heartbeat in the extension settings, and lists push per event type', async () => {
    const { server } = incidents();
    const client = await connected(server, protocolVersion);
    expect(client.serverCapabilities).toBeDefined();
    const types = await eventsClient(client).list();
    expect(types.map((type) => [type.name, type.delivery])).toEqual([
      ['incident.created', ['poll', 'push']],
      ['email.received', ['poll']],
    ]);
    client.close();
  });

  it('picks push when both sides declared it: occurrences arrive with no poll, and unsubscribing cancels the stream', async () => {
    const { server, upstream, scheduler } = incidents();
    const client = await connected(server, protocolVersion);
    const requests = jest.spyOn(client, 'request');
    const cursors: Array<string | null> = [];
    const followed = eventsClient(client).follow('incident.created', {}, { onCursor: (c) => cursors.push(c) });
    const received = firstValueFrom(followed.pipe(take(2), toArray()));
    await until(() => upstream.observed);
    upstream.next({ data: { n: 1 }, eventId: 'a' });
    upstream.next({ data: { n: 1 }, eventId: 'a' });
    upstream.next({ data: { n: 2 }, eventId: 'b' });
    const got: EventOccurrence[] = await received;
    expect(got.map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(got[0]).not.toHaveProperty('_meta');
    expect(requests.mock.calls.map(([method]) => method)).toEqual(['events/list', 'events/stream']);
    expect(cursors).toEqual(['0', '1', '2', '3']);
    // take(2) unsubscribed: the stream is cancelled, and with no reader left the lease releases the source.
    let clock = 0;
    await until(() => {
      advanceTo(scheduler, (clock += 400_000));
      return !upstream.observed;
    });
    client.close();
  });

  it('routes two concurrent streams by their subscription id', async () => {
    const { server, upstream } = incidents();
    const client = await connected(server, protocolVersion);
    const events$ = eventsClient(client);
    const a = firstValueFrom(events$.follow('incident.created', { severity: 'P1' }).pipe(take(1)));
    const b = firstValueFrom(events$.follow('incident.created', { severity: 'P2' }).pipe(take(2), toArray()));
    await until(() => upstream.observers.length === 2);
    upstream.next({ data: { n: 1 } });
    upstream.next({ data: { n: 2 } });
    expect((await a).data).toEqual({ n: 1 });
    expect((await b).map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
    client.close();
  });

  it('polls instead when the client did not declare push', async () => {
    const { server } = incidents();
    const client = await connected(server, protocolVersion, false);
    const requests = jest.spyOn(client, 'request');
    const subscription = eventsClient(client).follow('incident.created').subscribe();
    await until(() => requests.mock.calls.length > 0);
    expect(requests.mock.calls[0]![0]).toBe('events/poll');
    subscription.unsubscribe();
    client.close();
  });

  it('polls an event type the server does not push, and refuses delivery "push" for it', async () => {
    const { server } = incidents();
    const client = await connected(server, protocolVersion);
    const requests = jest.spyOn(client, 'request');
    const subscription = eventsClient(client).follow('email.received').subscribe();
    await until(() => requests.mock.calls.some(([method]) => method === 'events/poll'));
    expect(requests.mock.calls.map(([method]) => method)).not.toContain('events/stream');
    subscription.unsubscribe();
    await expect(
      firstValueFrom(eventsClient(client).follow('email.received', {}, { delivery: 'push' })),
    ).rejects.toThrow(/events\/stream/);
    client.close();
  });
});

describe('a push follower (Lifecycle → Heartbeat)', () => {
  it('opens the stream again from its cursor after twice the heartbeat interval of silence', async () => {
    const { server, upstream } = incidents({ push: { heartbeatMs: 1000 } });
    const client = await connected(server, '2025-11-25');
    const clientClock = new VirtualTimeScheduler();
    const requests = jest.spyOn(client, 'request');
    const subscription = eventsClient(client).follow('incident.created', {}, { scheduler: clientClock }).subscribe();
    await until(() => upstream.observed);
    upstream.next({ data: { n: 1 } });
    await new Promise((resolve) => setImmediate(resolve));
    // The server's clock stands still: no heartbeat comes, and after 2 s the client gives up on the stream.
    advanceTo(clientClock, 1999);
    expect(requests.mock.calls.filter(([method]) => method === 'events/stream')).toHaveLength(1);
    advanceTo(clientClock, 2000);
    await until(() => requests.mock.calls.filter(([method]) => method === 'events/stream').length === 2);
    expect(requests.mock.calls.at(-1)![1]).toEqual({ name: 'incident.created', arguments: {}, cursor: '1' });
    subscription.unsubscribe();
    client.close();
  });
});
