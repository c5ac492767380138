import { firstValueFrom, Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { eventsClient } from '../../lib/client/events/events-client';
import { META } from '../../lib/connection/modern';
import type { EventPollResult, EventType } from '../../lib/schema/events';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import type { EventDefinition } from '../../lib/server/events/events-extension';
import { onlyAdds } from '../../lib/server/events/type-changes';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ExtensionListChanges } from '../../lib/server/extension-lists';
import type { ListedSession } from '../../lib/server/extension-lists';
import { linkedPair } from '../support/linked-pair';
import { rawPeer, rawSession } from '../support/raw-peer';
import type { RawPeer } from '../support/raw-peer';

// Event types that change at runtime (the triggers and events extension's design sketch, as
// merged on 2026-09-08, "List changes and type removal"): the server sends notifications/events/list_changed;
// a removed type's subscriptions end with -32011 { kind: 'event' }, one whose schemas changed other
// than by additions with -32014 { feature, reason: 'schema_changed' }; additive changes end none.

const EVENTS = 'io.modelcontextprotocol/events';
const DECLARES_EVENTS = { extensions: { [EVENTS]: {} } };
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

const payload = { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' } }, required: ['id'] };

/** A server with `incident.created`; `sources` holds each subscription of its source, in order. */
function pager() {
  const sources: Array<Subject<EventEmission>> = [];
  const source = (): Observable<EventEmission> => {
    sources.push(new Subject<EventEmission>());
    return sources.at(-1)!;
  };
  const incident: EventDefinition = { name: 'incident.created', payloadSchema: payload, source };
  const extension = events([incident], { nextPollMs: 0, push: { heartbeatMs: 60_000 } });
  const server = createServer({ name: 'pager', version: '1.0.0', logging: false, extensions: [extension] });
  return { server, extension, incident, sources };
}

const stream = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'events/stream',
  params: { name: 'incident.created', arguments: {}, cursor: null },
});

async function connected(
  server: ReturnType<typeof pager>['server'],
  protocolVersion: '2025-11-25' | '2026-07-28',
): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  return connect(clientSide, { name: 'agent', version: '1.0.0', protocolVersion, extensions: { [EVENTS]: {} } });
}

const poll = (client: McpClient, cursor: string | null) =>
  firstValueFrom(client.request('events/poll', { name: 'incident.created', arguments: {}, cursor })) as Promise<
    Record<string, unknown> & EventPollResult
  >;

const names = (types: readonly EventType[]) => types.map((type) => type.name);

describe('notifications/events/list_changed', () => {
  it('declares listChanged, and tells each session whose client declared events, and no other', async () => {
    const { server, extension, incident } = pager();
    const told = await rawSession(server, DECLARES_EVENTS);
    const untold = await rawSession(server, {});
    const init = told.received.find((frame) => (frame as { id?: string }).id === 'init') as {
      result: { capabilities: { experimental: Record<string, { listChanged?: boolean }> } };
    };
    expect(init.result.capabilities.experimental[EVENTS]?.listChanged).toBe(true);
    extension.setTypes([incident, { name: 'incident.resolved', source: () => new Subject<EventEmission>() }]);
    expect(await told.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/events/list_changed' });
    expect(extension.types.map((type) => type.name)).toEqual(['incident.created', 'incident.resolved']);
    // A ping answered after the change proves the other session was not told.
    untold.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    expect(await untold.nextMatching((frame) => frame.id === 'after')).toMatchObject({ result: {} });
    expect(
      untold.received.some((frame) => (frame as { method?: string }).method?.startsWith('notifications/events')),
    ).toBe(false);
    server.close();
  });

  it('sends nothing when the new definitions list the same types', async () => {
    const { server, extension, incident } = pager();
    const peer = await rawSession(server, DECLARES_EVENTS);
    extension.setTypes([{ ...incident }]);
    extension.setTypes([incident, { name: 'added', source: () => new Subject<EventEmission>() }]);
    // The first frame after the change is the one notification of the second.
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/events/list_changed' });
    peer.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    expect(await peer.next()).toMatchObject({ id: 'after' });
    server.close();
  });

  it('refuses two types of one name with a TypeError, changing nothing', () => {
    const { extension, incident } = pager();
    expect(() => extension.setTypes([incident, { ...incident }])).toThrow(TypeError);
    expect(extension.types.map((type) => type.name)).toEqual(['incident.created']);
  });
});

describe('ExtensionListChanges', () => {
  it('holds the sessions of a server weakly: servers made per client around one extension are collected', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const changes = new ExtensionListChanges('notifications/x/list_changed', 'xListChanged');
    let held: WeakRef<object>;
    (() => {
      const sessions = new Set<ListedSession>();
      changes.attach('example.com/x', sessions);
      held = new WeakRef(sessions);
    })();
    for (let i = 0; i < 5 && held!.deref() !== undefined; i++) {
      await new Promise((done) => setImmediate(done));
      gc();
    }
    expect(held!.deref()).toBeUndefined();
    // A change after that finds nobody, and costs nothing.
    expect(() => changes.changed()).not.toThrow();
  });
});

describe('subscriptions/listen with eventsListChanged (2026-07-28)', () => {
  let peer: RawPeer;
  let id = 0;
  const listen = (capabilities: Record<string, unknown>) => {
    const requestId = ++id;
    const meta = {
      [META.protocolVersion]: '2026-07-28',
      [META.clientCapabilities]: capabilities,
      [META.clientInfo]: { name: 'spec', version: '1.0.0' },
    };
    peer.send({
      jsonrpc: '2.0',
      id: requestId,
      method: 'subscriptions/listen',
      params: { notifications: { eventsListChanged: true, toolsListChanged: true }, _meta: meta },
    });
    return requestId;
  };

  it('is acknowledged for a client that declared events, and carries each change with the subscription id', async () => {
    const { server, extension, incident } = pager();
    const { client, server: end } = linkedPair();
    server.connect(end);
    peer = rawPeer(client);
    const requestId = listen(DECLARES_EVENTS);
    const ack = await peer.nextMatching((frame) => frame.method === 'notifications/subscriptions/acknowledged');
    // The server has no tools: only the events key is agreed.
    expect(ack.params).toEqual({ notifications: { eventsListChanged: true }, _meta: { [SUBSCRIPTION_ID]: requestId } });
    extension.setTypes([incident, { name: 'incident.resolved', source: () => new Subject<EventEmission>() }]);
    const changed = await peer.nextMatching((frame) => frame.method === 'notifications/events/list_changed');
    expect(changed.params).toEqual({ _meta: { [SUBSCRIPTION_ID]: requestId } });
    server.close();
  });

  it('is left out of the acknowledgement for a client that did not declare events', async () => {
    const { server } = pager();
    const { client, server: end } = linkedPair();
    server.connect(end);
    peer = rawPeer(client);
    listen({});
    const ack = await peer.nextMatching((frame) => frame.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params).toMatchObject({ notifications: {} });
    server.close();
  });
});

describe.each(['2025-11-25', '2026-07-28'] as const)('EventsClient.types$ (%s)', (protocolVersion) => {
  it('fetches the types, and again each time the server says they changed', async () => {
    const { server, extension, incident } = pager();
    const client = await connected(server, protocolVersion);
    const seen: string[][] = [];
    const subscription = eventsClient(client).types$.subscribe((types) => seen.push(names(types)));
    await until(() => seen.length >= 1);
    extension.setTypes([incident, { name: 'incident.resolved', source: () => new Subject<EventEmission>() }]);
    await until(() => seen.at(-1)?.length === 2);
    extension.setTypes([{ name: 'incident.resolved', source: () => new Subject<EventEmission>() }]);
    await until(() => seen.at(-1)?.length === 1);
    expect(seen.at(-1)).toEqual(['incident.resolved']);
    expect(seen[0]).toEqual(['incident.created']);
    subscription.unsubscribe();
    client.close();
    server.close();
  });
});

describe.each(['2025-11-25', '2026-07-28'] as const)('subscriptions of a type that changed (%s)', (protocolVersion) => {
  it('[Push] a removed type ends its streams with -32011 { kind: event }, then the final frame; polls of it get -32011', async () => {
    const { server, extension, sources } = pager();
    const peer = await rawSession(server, DECLARES_EVENTS);
    peer.send(stream(7));
    expect(await peer.next()).toMatchObject({ method: 'notifications/events/active' });
    extension.setTypes([]);
    await peer.nextMatching((frame) => frame.id === 7);
    const methods = peer.received.map((frame) => (frame as { method?: string }).method);
    expect(methods).toContain('notifications/events/list_changed');
    const terminated = peer.received.find(
      (frame) => (frame as { method?: string }).method === 'notifications/events/terminated',
    ) as { params: { error: Record<string, unknown> } };
    expect(terminated.params.error).toMatchObject({ code: -32011, data: { kind: 'event' } });
    // The terminated notification, then the request's final frame.
    const final = peer.received.findIndex((frame) => (frame as { id?: number }).id === 7);
    expect(peer.received[final]).toEqual({ jsonrpc: '2.0', id: 7, result: { _meta: {} } });
    expect(peer.received.indexOf(terminated)).toBeLessThan(final);
    expect(sources[0]!.observed).toBe(false);
    const client = await connected(server, protocolVersion);
    await expect(poll(client, null)).rejects.toMatchObject({ code: -32011, data: { kind: 'event' } });
    client.close();
    server.close();
  });

  it('[Push] a payloadSchema that lost a field ends the streams with -32014 schema_changed; an old cursor gets it too, a fresh poll follows the new source', async () => {
    const { server, extension, incident, sources } = pager();
    const client = await connected(server, protocolVersion);
    const first = await poll(client, null);
    const peer = await rawSession(server, DECLARES_EVENTS);
    peer.send(stream(3));
    expect(await peer.next()).toMatchObject({ method: 'notifications/events/active' });
    const narrower = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    extension.setTypes([{ ...incident, payloadSchema: narrower }]);
    const terminated = (await peer.nextMatching((frame) => frame.method === 'notifications/events/terminated')) as {
      params: { error: Record<string, unknown>; _meta: unknown };
    };
    expect(terminated.params).toMatchObject({
      error: { code: -32014, data: { feature: 'payloadSchema', reason: 'schema_changed' } },
      _meta: { [SUBSCRIPTION_ID]: 3 },
    });
    await expect(poll(client, first.cursor)).rejects.toMatchObject({ code: -32014 });
    const fresh = await poll(client, null);
    sources.at(-1)!.next({ data: { id: 'i-9' } });
    expect((await poll(client, fresh.cursor)).events.map((event) => event.data)).toEqual([{ id: 'i-9' }]);
    expect(sources).toHaveLength(2);
    client.close();
    server.close();
  });

  it('[Push] an additive change (an optional argument, a wider enum, a description) is told but ends no stream', async () => {
    const { server, extension, incident, sources } = pager();
    const peer = await rawSession(server, DECLARES_EVENTS);
    peer.send(stream(4));
    expect(await peer.next()).toMatchObject({ method: 'notifications/events/active' });
    extension.setTypes([
      {
        ...incident,
        description: 'now described',
        inputSchema: { type: 'object', properties: { severity: { type: 'string', enum: ['P1', 'P2'] } } },
        payloadSchema: { ...payload, properties: { ...payload.properties, url: { type: 'string' } } },
      },
    ]);
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/events/list_changed' });
    sources[0]!.next({ data: { id: 'i-1' } });
    expect(await peer.next()).toMatchObject({
      method: 'notifications/events/event',
      params: { data: { id: 'i-1' }, _meta: { [SUBSCRIPTION_ID]: 4 } },
    });
    server.close();
  });
});

describe('what counts as an additive change (onlyAdds)', () => {
  const base = {
    type: 'object',
    properties: { a: { type: 'string', enum: ['x', 'y'] }, b: { type: 'number' } },
    required: ['a'],
  };
  it.each([
    ['a new optional property', { ...base, properties: { ...base.properties, c: { type: 'string' } } }, 'input', true],
    [
      'a wider enum',
      { ...base, properties: { ...base.properties, a: { type: 'string', enum: ['x', 'y', 'z'] } } },
      'input',
      true,
    ],
    ['a new description', { ...base, description: 'now described' }, 'input', true],
    [
      'a narrower enum',
      { ...base, properties: { ...base.properties, a: { type: 'string', enum: ['x'] } } },
      'input',
      false,
    ],
    ['a removed property', { ...base, properties: { a: base.properties.a } }, 'payload', false],
    ['a retyped property', { ...base, properties: { ...base.properties, b: { type: 'string' } } }, 'input', false],
    ['an argument newly required', { ...base, required: ['a', 'b'] }, 'input', false],
    ['a payload field newly required', { ...base, required: ['a', 'b'] }, 'payload', true],
    ['a payload field no longer required', { ...base, required: [] }, 'payload', false],
    ['an argument no longer required', { ...base, required: [] }, 'input', true],
    ['additionalProperties closed', { ...base, additionalProperties: false }, 'input', false],
  ] as const)('%s', (_what, after, side, additive) => {
    expect(onlyAdds(base, after, side)).toBe(additive);
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((done) => setImmediate(done));
  if (!check()) throw new Error('condition not reached');
}
