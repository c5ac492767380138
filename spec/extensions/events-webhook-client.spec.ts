import { EventEmitter } from 'node:events';
import { createServer as createHttpServer, request } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, Subject, VirtualTimeScheduler } from 'rxjs';
import type { Subscription } from 'rxjs';
import { connect } from '../../lib/client/client';
import { eventsClient } from '../../lib/client/events/events-client';
import { createWebhookReceiver } from '../../lib/client/events/webhook-receiver';
import type { WebhookReceiver } from '../../lib/client/events/webhook-receiver';
import { CapabilityNotSupportedError, JsonRpcError } from '../../lib/jsonrpc/errors';
import type { EventOccurrence } from '../../lib/schema/events';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import type { WebhookOptions } from '../../lib/server/events/events-extension';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { Transport } from '../../lib/transport/transport';
import { proxy } from '../../lib/proxy/proxy';
import { EVENTS_EXTENSION } from '../../lib/schema/events';
import { until } from '../support/until';
import { advanceTo } from '../support/virtual-time';

// Events by webhook on the client (the triggers and events extension's design sketch, as merged on 2026-09-08,
// "Webhook-Based Delivery"): `follow` with `delivery: 'webhook'` subscribes, refreshes and
// unsubscribes, and a receiver on a real local HTTP server takes the server's signed posts.
let http: HttpServer;
let hookUrl: string;
let receiver: WebhookReceiver;
let scheduler: VirtualTimeScheduler;
/** What the receiver answered, in order. */
let statuses: number[];
/** The posts the receiver got, as they came: headers and raw body. */
let posts: Array<{ headers: Record<string, string>; body: string }>;

beforeEach(async () => {
  scheduler = new VirtualTimeScheduler();
  receiver = createWebhookReceiver({ now: () => scheduler.now() });
  statuses = [];
  posts = [];
  http = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
      posts.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
    });
    res.on('finish', () => statuses.push(res.statusCode));
    receiver.handle(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hooks`;
});
afterEach(() => new Promise<void>((resolve) => http.close(() => resolve())));

type Revision = '2025-11-25' | '2026-07-28';
/** The client declares the events extension, as a proxy's client of an events server must. */
const DECLARES_EVENTS = { extensions: { [EVENTS_EXTENSION]: { delivery: ['push', 'poll', 'webhook'] } } };

/** A client of `target`, in memory. */
async function clientOf(
  target: { connect(transport: Transport): unknown },
  protocolVersion: Revision,
  sent: Array<Record<string, unknown>> = [],
) {
  const [clientSide, serverSide] = createInMemoryPair();
  serverSide.incoming$.subscribe((message) => sent.push(message as Record<string, unknown>));
  target.connect(serverSide);
  return connect(clientSide, { name: 'agent', version: '1.0.0', protocolVersion, ...DECLARES_EVENTS });
}

/**
 * The pager server and a client of it: directly, or through `proxy()` (whose client of the pager
 * speaks `via`), the caller speaking `protocolVersion`.
 */
async function incidents(
  webhooks: Partial<WebhookOptions> | false = {},
  protocolVersion: Revision = '2025-11-25',
  via?: Revision,
) {
  const upstream = new Subject<EventEmission>();
  const extension = events([{ name: 'incident.created', source: () => upstream }], {
    scheduler,
    ...(webhooks === false
      ? {}
      : {
          webhooks: {
            allow: ['http://127.0.0.1:'],
            allowAddresses: ['127.0.0.1'],
            principal: () => 'tenant-a',
            ...webhooks,
          },
        }),
  });
  const server = createServer({ name: 'pager', version: '1.0.0', logging: false, extensions: [extension] });
  const sent: Array<Record<string, unknown>> = [];
  if (via === undefined) return { client: await clientOf(server, protocolVersion, sent), upstream, extension, sent };
  const front = proxy(await clientOf(server, via));
  return { client: await clientOf(front, protocolVersion, sent), upstream, extension, sent };
}

/** A POST to the receiver, as a stranger would make it. */
function post(headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(hookUrl, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.each([
  ['2025-11-25', undefined],
  ['2026-07-28', undefined],
  ['2025-11-25', '2026-07-28'],
  ['2026-07-28', '2025-11-25'],
] as const)("eventsClient's follow by webhook, the caller on %s, through proxy() on %s", (protocolVersion, via) => {
  it('subscribes with a fresh secret and emits each verified post once, in order, keeping the cursor', async () => {
    const { client, upstream } = await incidents({}, protocolVersion, via);
    expect(client.connection.revision).toBe(protocolVersion);
    const seen: EventOccurrence[] = [];
    const cursors: Array<string | null> = [];
    const following = eventsClient(client)
      .follow(
        'incident.created',
        { severity: 'P1' },
        {
          delivery: 'webhook',
          webhook: { receiver, url: hookUrl },
          scheduler,
          onCursor: (cursor) => cursors.push(cursor),
        },
      )
      .subscribe((occurrence) => seen.push(occurrence));
    await until(() => client.connection.state === 'operating');
    await new Promise((resolve) => setTimeout(resolve, 20));
    upstream.next({ eventId: 'evt_1', timestamp: '2026-02-19T16:00:00Z', data: { incidentId: 'INC-1' } });
    upstream.next({ eventId: 'evt_2', timestamp: '2026-02-19T16:01:00Z', data: { incidentId: 'INC-2' } });
    await until(() => seen.length === 2);
    expect(seen.map((occurrence) => [occurrence.eventId, occurrence.data])).toEqual([
      ['evt_1', { incidentId: 'INC-1' }],
      ['evt_2', { incidentId: 'INC-2' }],
    ]);
    expect(cursors).toEqual(['1', '2']);
    expect(statuses).toEqual([204, 204]);
    following.unsubscribe();
    client.close();
  });
});

describe("eventsClient's follow by webhook", () => {
  it('answers 401 to a post no subscription signed, and 405 to anything but a POST, emitting nothing', async () => {
    const { client } = await incidents();
    const seen: EventOccurrence[] = [];
    const following = eventsClient(client)
      .follow('incident.created', {}, { delivery: 'webhook', webhook: { receiver, url: hookUrl }, scheduler })
      .subscribe((occurrence) => seen.push(occurrence));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const forged = {
      'content-type': 'application/json',
      'webhook-id': 'evt_x',
      'webhook-timestamp': '0',
      'webhook-signature': 'v1,AAAA',
    };
    const body = JSON.stringify({ eventId: 'evt_x', name: 'incident.created', timestamp: 't', data: {} });
    expect(await post(forged, body)).toBe(401);
    expect(await post({}, body)).toBe(401);
    const got = await new Promise<number>((resolve) =>
      request(hookUrl, { method: 'GET' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).end(),
    );
    expect(got).toBe(405);
    expect(seen).toEqual([]);
    following.unsubscribe();
    client.close();
  });

  it('sends maxAgeMs with the subscribe that resumes only, and errors with the server’s error on a terminated body', async () => {
    const { client, extension, sent } = await incidents();
    const subscribes = () =>
      sent
        .filter((message) => message.method === 'events/subscribe')
        .map((message) => message.params as Record<string, unknown>);
    let failure: unknown;
    eventsClient(client)
      .follow(
        'incident.created',
        {},
        {
          delivery: 'webhook',
          webhook: { receiver, url: hookUrl, ttlMs: 60_000 },
          cursor: '0',
          maxAgeMs: 5000,
          scheduler,
        },
      )
      .subscribe({ error: (error: unknown) => (failure = error) });
    await until(() => subscribes().length === 1);
    // The refresh, at half the TTL, carries no maxAgeMs.
    advanceTo(scheduler, 30_000);
    await until(() => subscribes().length === 2);
    expect(subscribes().map((params) => params.maxAgeMs)).toEqual([5000, undefined]);
    extension.setTypes([]);
    await until(() => failure !== undefined);
    expect(failure).toBeInstanceOf(JsonRpcError);
    expect(failure).toMatchObject({ code: -32011, data: { kind: 'event' } });
    client.close();
  });

  it('emits a post sent again (a retry, or a replay within the five minutes) only once', async () => {
    const { client, upstream } = await incidents();
    const seen: EventOccurrence[] = [];
    const following = eventsClient(client)
      .follow('incident.created', {}, { delivery: 'webhook', webhook: { receiver, url: hookUrl }, scheduler })
      .subscribe((occurrence) => seen.push(occurrence));
    await new Promise((resolve) => setTimeout(resolve, 20));
    upstream.next({ eventId: 'evt_once', data: { n: 1 } });
    await until(() => seen.length === 1);
    const [first] = posts;
    expect(await post(first!.headers, first!.body)).toBe(204);
    expect(statuses).toEqual([204, 204]);
    expect(seen.map((occurrence) => occurrence.eventId)).toEqual(['evt_once']);
    following.unsubscribe();
    client.close();
  });

  it('answers 413 to a body past maxBodyBytes as soon as it passes, keeping none of the rest', () => {
    const small = createWebhookReceiver({ maxBodyBytes: 16 });
    const req = Object.assign(new EventEmitter(), { method: 'POST', headers: {} });
    const answered: number[] = [];
    small.handle(req, {
      writeHead: (status) => (answered.push(status), { end: () => undefined }),
      destroy: () => undefined,
    });
    req.emit('data', new Uint8Array(10));
    expect(answered).toEqual([]);
    req.emit('data', new Uint8Array(10));
    req.emit('data', new Uint8Array(10));
    req.emit('end');
    expect(answered).toEqual([413]);
  });

  it('refreshes at half of each granted TTL, so the subscription outlives it', async () => {
    const { client, upstream } = await incidents({ minTtlMs: 1000, maxTtlMs: 10_000 });
    const seen: EventOccurrence[] = [];
    const following = eventsClient(client)
      .follow(
        'incident.created',
        {},
        { delivery: 'webhook', webhook: { receiver, url: hookUrl, ttlMs: 10_000 }, scheduler },
      )
      .subscribe((occurrence) => seen.push(occurrence));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Refreshed at 5 s and at 10 s (each granting 10 s more); unrefreshed, it would lapse at 10 s.
    for (const ms of [5_000, 10_000, 12_000]) {
      advanceTo(scheduler, ms);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    upstream.next({ eventId: 'late', data: { at: 12_000 } });
    await until(() => seen.length === 1);
    expect(seen[0]!.eventId).toBe('late');
    following.unsubscribe();
    client.close();
  });

  it('unsubscribes on the server when the caller stops following', async () => {
    const { client } = await incidents();
    const following: Subscription = eventsClient(client)
      .follow(
        'incident.created',
        { severity: 'P2' },
        { delivery: 'webhook', webhook: { receiver, url: hookUrl }, scheduler },
      )
      .subscribe();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const unsubscribe = () =>
      firstValueFrom(
        client.request('events/unsubscribe', {
          name: 'incident.created',
          arguments: { severity: 'P2' },
          delivery: { url: hookUrl },
        }),
      );
    following.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The follower's own events/unsubscribe ended it: there is none left to end.
    await expect(unsubscribe()).rejects.toMatchObject({ code: -32011 });
    client.close();
  });

  it('fails with CapabilityNotSupportedError where the server delivers no webhooks', async () => {
    const { client } = await incidents(false);
    const followed = firstValueFrom(
      eventsClient(client).follow(
        'incident.created',
        {},
        { delivery: 'webhook', webhook: { receiver, url: hookUrl }, scheduler },
      ),
    );
    await expect(followed).rejects.toBeInstanceOf(CapabilityNotSupportedError);
    client.close();
  });
});
