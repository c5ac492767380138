import { createServer as createHttpServer } from 'node:http';
import type { IncomingHttpHeaders, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, Subject, throwError, VirtualTimeScheduler } from 'rxjs';
import type { Observable } from 'rxjs';
import { connect } from '../../lib/client/client';
import { eventsClient } from '../../lib/client/events/events-client';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import type { EventPollResult, EventSubscribeResult } from '../../lib/schema/events';
import { generateWebhookSecret, verifyWebhookSignature } from '../../lib/schema/webhook-signature';
import { EventsTerminated } from '../../lib/server/events/event-feed';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import type { EventsOptions } from '../../lib/server/events/events-extension';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { rawSession } from '../support/raw-peer';
import { eventually, until } from '../support/until';
import { advanceTo } from '../support/virtual-time';

// Events, the server ending a subscription (the triggers and events extension's design sketch, as
// merged on 2026-09-08): a source that errors with EventsTerminated ends its subscriptions, by push with
// notifications/events/terminated, by poll with the next poll's error, by webhook with a signed
// `terminated` body; any other error is recoverable and the source is followed again.
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const revoked = () => new EventsTerminated(-32012, 'Forbidden', { reason: 'Access revoked' });
const FORBIDDEN = { code: -32012, message: 'Forbidden', data: { reason: 'Access revoked' } };

/** A server whose source is followed afresh at each subscribe: `attempts` holds each one; `refuse` ends each at once. */
function incidents(options: EventsOptions = {}) {
  const scheduler = new VirtualTimeScheduler();
  const attempts: Array<Subject<EventEmission>> = [];
  const state = { refuse: false };
  const source = (): Observable<EventEmission> => {
    if (state.refuse) return throwError(revoked);
    attempts.push(new Subject<EventEmission>());
    return attempts.at(-1)!;
  };
  const extension = events([{ name: 'incident.created', source }], {
    scheduler,
    retryMs: 100,
    nextPollMs: 0,
    push: { heartbeatMs: 1000 },
    ...options,
  });
  const server = createServer({ name: 'pager', version: '1.0.0', logging: false, extensions: [extension] });
  return { server, scheduler, attempts, state };
}

async function connected(server: ReturnType<typeof incidents>['server']) {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  return connect(clientSide, { name: 'agent', version: '1.0.0', protocolVersion: '2025-11-25' });
}

const stream = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'events/stream',
  params: { name: 'incident.created', arguments: {}, cursor: null },
});

type Client = Awaited<ReturnType<typeof connected>>;
const poll = (client: Client, cursor: string | null) =>
  firstValueFrom(client.request('events/poll', { name: 'incident.created', arguments: {}, cursor })) as Promise<
    Record<string, unknown> & EventPollResult
  >;

describe('a source ending its subscriptions (EventsTerminated)', () => {
  it('[Push] sends notifications/events/terminated with the subscription id, then the final frame (StreamEventsResult)', async () => {
    const { server, attempts, state } = incidents();
    const peer = await rawSession(server);
    peer.send(stream(7));
    expect(await peer.next()).toMatchObject({ method: 'notifications/events/active' });
    attempts[0]!.error(revoked());
    expect(await peer.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/events/terminated',
      params: { error: FORBIDDEN, _meta: { [SUBSCRIPTION_ID]: 7 } },
    });
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 7, result: { _meta: {} } });
    // The feed was dropped: a later stream follows the source anew, and is refused while the cause applies.
    peer.send(stream(8));
    expect(await peer.next()).toMatchObject({ method: 'notifications/events/active' });
    expect(attempts).toHaveLength(2);
    attempts[1]!.error(revoked());
    await peer.next();
    await peer.next();
    state.refuse = true;
    peer.send(stream(9));
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 9, error: FORBIDDEN });
  });

  it('[Poll] answers the next poll with a cursor with the error; a poll with a null cursor follows the source anew', async () => {
    const { server, attempts, state } = incidents();
    const client = await connected(server);
    const first = await poll(client, null);
    attempts[0]!.next({ data: { n: 1 } });
    attempts[0]!.error(revoked());
    await expect(poll(client, first.cursor)).rejects.toMatchObject(FORBIDDEN);
    await expect(poll(client, '0')).rejects.toBeInstanceOf(JsonRpcError);
    expect(attempts).toHaveLength(1);
    await poll(client, null);
    expect(attempts).toHaveLength(2);
    attempts[1]!.error(revoked());
    state.refuse = true;
    await expect(poll(client, null)).rejects.toMatchObject(FORBIDDEN);
    client.close();
  });

  it('[Poll] the feed of an ended subscription is released after the lease', async () => {
    const { server, attempts, scheduler } = incidents({ leaseMs: 1000 });
    const client = await connected(server);
    const first = await poll(client, null);
    attempts[0]!.error(revoked());
    advanceTo(scheduler, 1000);
    // A new feed: the old cursor reads from a feed that never ended.
    expect(await poll(client, first.cursor)).toMatchObject({ events: [] });
    expect(attempts).toHaveLength(2);
    client.close();
  });

  it('keeps any other error recoverable: notifications/events/error, and the source followed again after retryMs', async () => {
    const { server, attempts, scheduler } = incidents();
    const peer = await rawSession(server);
    peer.send(stream(3));
    await peer.next();
    attempts[0]!.error(new JsonRpcError(-32012, 'Forbidden'));
    expect(await peer.next()).toMatchObject({ method: 'notifications/events/error' });
    advanceTo(scheduler, 100);
    expect(attempts).toHaveLength(2);
    attempts[1]!.next({ data: { back: true } });
    expect(await peer.next()).toMatchObject({ method: 'notifications/events/event', params: { data: { back: true } } });
  });

  it.each(['push', 'poll'] as const)(
    '[client, %s] errors the followed Observable with the JsonRpcError and stops following',
    async (delivery) => {
      const { server, attempts } = incidents();
      const client = await connected(server);
      const requests = jest.spyOn(client, 'request');
      const followed = firstValueFrom(eventsClient(client).follow('incident.created', {}, { delivery, minPollMs: 5 }));
      // The second poll waits on minPollMs of real time: a loaded machine may take a while.
      await eventually(() => attempts.length === 1 && requests.mock.calls.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 10));
      attempts[0]!.error(revoked());
      const error: unknown = await followed.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error).toMatchObject(FORBIDDEN);
      const sent = requests.mock.calls.length;
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(requests.mock.calls.length).toBe(sent);
      client.close();
    },
  );
});

describe('a webhook subscription whose source ends it', () => {
  interface Delivery {
    readonly headers: IncomingHttpHeaders;
    readonly body: string;
  }
  let receiver: HttpServer;
  let hookUrl: string;
  const deliveries: Delivery[] = [];

  beforeEach(async () => {
    deliveries.length = 0;
    receiver = createHttpServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        deliveries.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/client123`;
  });
  afterEach(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('[Webhook] posts the signed terminated body after what waits, removes the subscription, and refuses a refresh while the cause applies', async () => {
    const { server, attempts, state, scheduler } = incidents({
      webhooks: { allow: ['http://127.0.0.1:'], allowAddresses: ['127.0.0.1'], principal: () => 'tenant-a' },
    });
    const client = await connected(server);
    const secret = generateWebhookSecret();
    const params = { name: 'incident.created', arguments: {}, cursor: null, ttlMs: 600_000 };
    const subscribe = () =>
      firstValueFrom(
        client.request('events/subscribe', { ...params, delivery: { mode: 'webhook', url: hookUrl, secret } }),
      ) as Promise<Record<string, unknown> & EventSubscribeResult>;
    const result = await subscribe();
    attempts[0]!.next({ eventId: 'evt_1', data: { n: 1 } });
    attempts[0]!.error(revoked());
    await until(() => deliveries.length === 2);
    expect(JSON.parse(deliveries[0]!.body)).toMatchObject({ eventId: 'evt_1' });
    const terminated = deliveries[1]!;
    expect(JSON.parse(terminated.body)).toEqual({ type: 'terminated', error: FORBIDDEN });
    expect(terminated.headers['x-mcp-subscription-id']).toBe(result.id);
    const check = { headers: terminated.headers, body: terminated.body, nowMs: scheduler.now() };
    expect(verifyWebhookSignature({ secret, ...check })).toMatchObject({ valid: true });
    // The subscription is gone: unsubscribing finds none, and a refresh is a fresh subscribe.
    await expect(
      firstValueFrom(client.request('events/unsubscribe', { ...params, delivery: { mode: 'webhook', url: hookUrl } })),
    ).rejects.toMatchObject({ code: -32011 });
    state.refuse = true;
    await expect(subscribe()).rejects.toMatchObject(FORBIDDEN);
    state.refuse = false;
    expect(await subscribe()).not.toHaveProperty('deliveryStatus');
    expect(attempts).toHaveLength(2);
    client.close();
  });
});
