import { createServer as createHttpServer } from 'node:http';
import type { IncomingHttpHeaders, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, Subject, VirtualTimeScheduler } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { EventSubscribeResult } from '../../lib/schema/events';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import type { WebhookOptions } from '../../lib/server/events/events-extension';
import { generateWebhookSecret, verifyWebhookSignature } from '../../lib/schema/webhook-signature';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { until } from '../support/until';
import { advanceTo } from '../support/virtual-time';

// Events, webhook delivery (the triggers and events extension's design sketch, as merged on 2026-09-08,
// "Webhook-Based Delivery"), both ends: the server posts to a real local HTTP receiver.
interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let receiver: HttpServer;
let hookUrl: string;
const deliveries: Delivery[] = [];
let statuses: number[] = [];

beforeEach(async () => {
  deliveries.length = 0;
  statuses = [];
  receiver = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/client123`;
});
afterEach(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

function incidents(webhooks: Partial<WebhookOptions> = {}) {
  const upstream = new Subject<EventEmission>();
  const scheduler = new VirtualTimeScheduler();
  const extension = events([{ name: 'incident.created', source: () => upstream }], {
    scheduler,
    webhooks: {
      allow: ['http://127.0.0.1:'],
      allowAddresses: ['127.0.0.1'],
      principal: () => 'tenant-a',
      retryDelaysMs: [1000, 5000],
      ...webhooks,
    },
  });
  const server = createServer({ name: 'pager', version: '1.0.0', logging: false, extensions: [extension] });
  return { server, upstream, scheduler };
}

async function connected(server: ReturnType<typeof incidents>['server']) {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  return connect(clientSide, { name: 'agent', version: '1.0.0', protocolVersion: '2025-11-25' });
}

type Client = Awaited<ReturnType<typeof connected>>;
const subscribe = (client: Client, params: Record<string, unknown>) =>
  firstValueFrom(
    client.request('events/subscribe', {
      name: 'incident.created',
      arguments: { severity: 'P1' },
      cursor: null,
      ...params,
    }),
  ) as Promise<Record<string, unknown> & EventSubscribeResult>;

describe('events/subscribe (Webhook-Based Delivery)', () => {
  it('[Webhook Event Delivery] posts each occurrence signed per Standard Webhooks, which the receiver verifies', async () => {
    const { server, upstream, scheduler } = incidents();
    const client = await connected(server);
    const secret = generateWebhookSecret();
    const result = await subscribe(client, { delivery: { mode: 'webhook', url: hookUrl, secret }, ttlMs: 600_000 });
    expect(result).toMatchObject({ cursor: '0', truncated: false, refreshBefore: new Date(600_000).toISOString() });
    expect(result.id).toMatch(/^sub_[0-9a-f]{16}$/);
    upstream.next({ eventId: 'evt_789', timestamp: '2026-02-19T16:00:00Z', data: { incidentId: 'INC-1234' } });
    await until(() => deliveries.length === 1);
    const [delivery] = deliveries;
    expect(delivery!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'evt_789',
      'webhook-timestamp': '0',
      'x-mcp-subscription-id': result.id,
    });
    expect(delivery!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(delivery!.body)).toEqual({
      eventId: 'evt_789',
      name: 'incident.created',
      timestamp: '2026-02-19T16:00:00Z',
      data: { incidentId: 'INC-1234' },
      cursor: '1',
    });
    const check = { headers: delivery!.headers, body: delivery!.body, nowMs: scheduler.now() };
    expect(verifyWebhookSignature({ secret, ...check })).toEqual({ valid: true, id: 'evt_789', timestampS: 0 });
    expect(verifyWebhookSignature({ secret: generateWebhookSecret(), ...check })).toMatchObject({ valid: false });
    expect(verifyWebhookSignature({ secret, ...check, body: delivery!.body.replace('1234', '9999') })).toEqual({
      valid: false,
      reason: 'bad_signature',
    });
    // A replay later than the five minutes is refused.
    expect(verifyWebhookSignature({ secret, ...check, nowMs: 301_000 })).toEqual({
      valid: false,
      reason: 'stale_timestamp',
    });
    client.close();
  });

  it('[Subscription Identity → Authentication required] refuses a caller without a principal with -32012', async () => {
    const { server } = incidents({ principal: () => undefined });
    const client = await connected(server);
    await expect(
      subscribe(client, { delivery: { url: hookUrl, secret: generateWebhookSecret() } }),
    ).rejects.toMatchObject({ code: -32012 });
    client.close();
  });

  it('[Error Codes, Webhook Security] refuses with -32602 a URL off the allow-list, a bad secret, and a private address not allowed', async () => {
    const client = await connected(incidents().server);
    const secret = generateWebhookSecret();
    await expect(
      subscribe(client, { delivery: { url: 'https://elsewhere.example/hook', secret } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/allow-list/) });
    await expect(subscribe(client, { delivery: { url: hookUrl, secret: 'whsec_c2hvcnQ=' } })).rejects.toMatchObject({
      code: -32602,
    });
    client.close();
    // On the allow-list, but 127.0.0.1 is loopback: refused after resolution unless named in allowAddresses.
    const guarded = await connected(
      incidents({ allow: ['http://127.0.0.1:', 'https://localhost/'], allowAddresses: [] }).server,
    );
    await expect(subscribe(guarded, { delivery: { url: hookUrl, secret } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/address/),
    });
    await expect(subscribe(guarded, { delivery: { url: 'https://localhost/hook', secret } })).rejects.toMatchObject({
      code: -32602,
    });
    guarded.close();
  });

  it('[Webhook Event Delivery → Delivery model] retries a failed post with backoff and a fresh signature, in order', async () => {
    const { server, upstream, scheduler } = incidents();
    const client = await connected(server);
    const secret = generateWebhookSecret();
    await subscribe(client, { delivery: { url: hookUrl, secret } });
    statuses = [500, 503];
    upstream.next({ eventId: 'e1', data: { n: 1 } });
    upstream.next({ eventId: 'e2', data: { n: 2 } });
    await until(() => deliveries.length === 1);
    // The first answer (500) was heard: the retry waits 1 s.
    await until(() => scheduler.actions.some((action) => action.delay === 1000));
    advanceTo(scheduler, 999);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deliveries).toHaveLength(1);
    advanceTo(scheduler, 1000);
    await until(() => deliveries.length === 2);
    // The second answer (503) was heard: the next retry waits 5 s.
    await until(() => scheduler.actions.some((action) => action.delay === 6000));
    advanceTo(scheduler, 6000);
    await until(() => deliveries.length === 4);
    expect(
      deliveries.map((delivery) => [delivery.headers['webhook-id'], delivery.headers['webhook-timestamp']]),
    ).toEqual([
      ['e1', '0'],
      ['e1', '1'],
      ['e1', '6'],
      ['e2', '6'],
    ]);
    for (const delivery of deliveries)
      expect(
        verifyWebhookSignature({ secret, headers: delivery.headers, body: delivery.body, nowMs: 6000 }).valid,
      ).toBe(true);
    // The refresh answers how deliveries went, and the watermark once e2's answer was heard.
    let refresh = await subscribe(client, { delivery: { url: hookUrl, secret } });
    for (let tries = 0; refresh.cursor !== '2' && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      refresh = await subscribe(client, { delivery: { url: hookUrl, secret } });
    }
    expect(refresh.cursor).toBe('2');
    expect(refresh.deliveryStatus).toMatchObject({
      active: true,
      lastError: null,
      lastDeliveryAt: new Date(6000).toISOString(),
    });
    client.close();
  });

  it.each([410, 413])(
    '[Delivery profile] never retries a post answered %i, and goes on to the next',
    async (status) => {
      const { server, upstream, scheduler } = incidents();
      const client = await connected(server);
      await subscribe(client, { delivery: { url: hookUrl, secret: generateWebhookSecret() } });
      statuses = [status];
      upstream.next({ eventId: 'e1', data: { n: 1 } });
      upstream.next({ eventId: 'e2', data: { n: 2 } });
      await until(() => deliveries.length === 2);
      advanceTo(scheduler, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(deliveries.map((delivery) => delivery.headers['webhook-id'])).toEqual(['e1', 'e2']);
      expect(scheduler.actions.some((action) => action.delay === 1000)).toBe(false);
      client.close();
    },
  );

  it('[maxAgeMs] a subscribe resuming from a cursor posts none older than maxAgeMs, and answers truncated', async () => {
    const { server, upstream } = incidents();
    const client = await connected(server);
    const delivery = { url: hookUrl, secret: generateWebhookSecret() };
    const first = await subscribe(client, { delivery });
    await firstValueFrom(
      client.request('events/unsubscribe', { name: 'incident.created', arguments: { severity: 'P1' }, delivery }),
    );
    // While nobody is subscribed, the followed source keeps what comes for the next cursor.
    upstream.next({ eventId: 'old', data: { n: 1 }, timestamp: new Date(Date.now() - 7_200_000) });
    upstream.next({ eventId: 'recent', data: { n: 2 } });
    const resumed = await subscribe(client, { delivery, cursor: first.cursor, maxAgeMs: 3_600_000 });
    expect(resumed.truncated).toBe(true);
    await until(() => deliveries.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deliveries.map((posted) => posted.headers['webhook-id'])).toEqual(['recent']);
    client.close();
  });

  it('[Webhook Security → Secret rotation] signs with the old and new secrets for the grace window, then the new only', async () => {
    const { server, upstream, scheduler } = incidents({ rotationGraceMs: 60_000 });
    const client = await connected(server);
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const first = await subscribe(client, { delivery: { url: hookUrl, secret: oldSecret } });
    const second = await subscribe(client, { delivery: { url: hookUrl, secret: newSecret } });
    expect(second.id).toBe(first.id);
    upstream.next({ data: { n: 1 } });
    await until(() => deliveries.length === 1);
    expect(String(deliveries[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [oldSecret, newSecret])
      expect(
        verifyWebhookSignature({ secret, headers: deliveries[0]!.headers, body: deliveries[0]!.body, nowMs: 0 }).valid,
      ).toBe(true);
    advanceTo(scheduler, 60_000);
    upstream.next({ data: { n: 2 } });
    await until(() => deliveries.length === 2);
    const later = { headers: deliveries[1]!.headers, body: deliveries[1]!.body, nowMs: 60_000 };
    expect(verifyWebhookSignature({ secret: oldSecret, ...later }).valid).toBe(false);
    expect(verifyWebhookSignature({ secret: [oldSecret, newSecret], ...later }).valid).toBe(true);
    client.close();
  });

  it('[Subscription TTL] grants at most maxTtlMs, lapses unrefreshed, and events/unsubscribe ends one at once', async () => {
    const { server, upstream, scheduler } = incidents({ maxTtlMs: 10_000, minTtlMs: 1000 });
    const client = await connected(server);
    const secret = generateWebhookSecret();
    const granted = await subscribe(client, { delivery: { url: hookUrl, secret }, ttlMs: null });
    expect(granted.refreshBefore).toBe(new Date(10_000).toISOString());
    advanceTo(scheduler, 10_000);
    upstream.next({ data: { late: true } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deliveries).toHaveLength(0);
    const unsubscribe = (args: Record<string, unknown>) =>
      firstValueFrom(
        client.request('events/unsubscribe', { name: 'incident.created', arguments: args, delivery: { url: hookUrl } }),
      );
    await expect(unsubscribe({ severity: 'P1' })).rejects.toMatchObject({
      code: -32011,
      data: { kind: 'subscription' },
    });
    await subscribe(client, { delivery: { url: hookUrl, secret } });
    await expect(unsubscribe({ severity: 'P1' })).resolves.toEqual({});
    upstream.next({ data: { after: true } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deliveries).toHaveLength(0);
    client.close();
  });

  it('[Non-event webhook bodies] bounds the queue: past queueSize what waits is dropped for a gap body', async () => {
    const { server, upstream } = incidents({ queueSize: 2 });
    const client = await connected(server);
    const secret = generateWebhookSecret();
    await subscribe(client, { delivery: { url: hookUrl, secret } });
    for (let n = 1; n <= 4; n++) upstream.next({ eventId: `e${n}`, data: { n } });
    await until(() => deliveries.length === 2);
    expect(deliveries.map((delivery) => JSON.parse(delivery.body) as unknown)).toEqual([
      expect.objectContaining({ eventId: 'e1' }),
      { type: 'gap', cursor: '4' },
    ]);
    expect(deliveries[1]!.headers['webhook-id']).toMatch(/^msg_gap_[0-9a-f]{16}$/);
    client.close();
  });
});
