import pino from 'pino';
import { firstValueFrom, lastValueFrom, Subject, take, toArray } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import {
  ConnectionClosedError,
  JsonRpcError,
  ProtocolError,
  UnsupportedProtocolVersionError,
} from '../../lib/jsonrpc/errors';
import { PageLimitError } from '../../lib/operators/paginate';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { Transport } from '../../lib/transport/transport';
import { rawPeer } from '../support/raw-peer';
import { fakeServer, flush } from './fake-server';

const info = { name: 'client-spec', version: '1.0.0' };
// These specs cover the handshake era: the revision is pinned, so connect sends initialize first.
const legacy = { ...info, protocolVersion: '2025-11-25' } as const;
const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

/** Pages of `items` of size 2, with string cursors. */
function paged<T>(key: string, items: readonly T[]) {
  return (params: Record<string, unknown>) => {
    const start = params.cursor === undefined ? 0 : Number(params.cursor);
    const page: Record<string, unknown> = { [key]: items.slice(start, start + 2) };
    if (start + 2 < items.length) page.nextCursor = String(start + 2);
    return page;
  };
}

describe('connect', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('[lifecycle.client] resolves once operating, with revision, server info, capabilities and instructions', async () => {
    const server = fakeServer({ capabilities: { tools: {} }, instructions: 'be nice' });
    client = await connect(server.clientTransport, legacy);
    expect(client.state).toBe('operating');
    expect(client.revision).toBe('2025-11-25');
    expect(client.serverInfo).toEqual({ name: 'fake-server', version: '1.0.0' });
    expect(client.serverCapabilities).toEqual({ tools: {} });
    expect(client.instructions).toBe('be nice');
    expect(server.connection.peerInfo).toEqual(info);
  });

  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])(
    '[lifecycle.version-accept] accepts a server answering %s',
    async (version) => {
      const [a, b] = createInMemoryPair();
      const peer = rawPeer(b);
      const connecting = connect(a, legacy);
      const init = (await peer.next()) as { id: number; params: { protocolVersion: string } };
      expect(init.params.protocolVersion).toBe('2025-11-25');
      peer.send({
        jsonrpc: '2.0',
        id: init.id,
        result: { protocolVersion: version, capabilities: {}, serverInfo: { name: 's', version: '1' } },
      });
      client = await connecting;
      expect(client.revision).toBe(version);
      expect(await peer.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    },
  );

  it('[lifecycle.client-rejects-unsupported] rejects another revision with a clear error and shuts down', async () => {
    const [a, b] = createInMemoryPair();
    const peer = rawPeer(b);
    const connecting = connect(a, legacy);
    const init = (await peer.next()) as { id: number };
    peer.send({
      jsonrpc: '2.0',
      id: init.id,
      result: { protocolVersion: '2024-10-07', capabilities: {}, serverInfo: { name: 's', version: '1' } },
    });
    await expect(connecting).rejects.toBeInstanceOf(UnsupportedProtocolVersionError);
    await expect(connecting).rejects.toThrow(/2024-10-07/);
  });

  it('[lifecycle.client-initialize-error] rejects when the server answers initialize with an error', async () => {
    const [a, b] = createInMemoryPair();
    const peer = rawPeer(b);
    const connecting = connect(a, legacy);
    const init = (await peer.next()) as { id: number };
    peer.send({ jsonrpc: '2.0', id: init.id, error: { code: -32602, message: 'no thanks' } });
    await expect(connecting).rejects.toBeInstanceOf(JsonRpcError);
  });

  it('[lifecycle.capabilities] declares capabilities from the handlers given, merged with extra ones', async () => {
    const server = fakeServer();
    client = await connect(server.clientTransport, {
      ...legacy,
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }),
      elicitation: { handler: () => ({ action: 'cancel' }), url: true },
      roots: [],
      capabilities: { experimental: { demo: {} }, sampling: { tools: {} } },
    });
    expect(server.connection.peerCapabilities).toEqual({
      sampling: { tools: {} },
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
      experimental: { demo: {} },
    });
  });
});

describe('McpClient lists', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('[lists.pagination] pages through every cursor for tools, resources, templates and prompts', async () => {
    const server = fakeServer({
      capabilities: { tools: {}, resources: {}, prompts: {} },
      handlers: {
        'tools/list': paged('tools', ['a', 'b', 'c', 'd', 'e'].map(tool)),
        'resources/list': paged(
          'resources',
          [1, 2, 3].map((i) => ({ uri: `test://${i}`, name: `r${i}` })),
        ),
        'resources/templates/list': paged('resourceTemplates', [{ uriTemplate: 'test://{id}', name: 't' }]),
        'prompts/list': paged('prompts', [{ name: 'p1' }, { name: 'p2' }, { name: 'p3' }]),
      },
    });
    client = await connect(server.clientTransport, legacy);
    expect((await client.promises.listTools()).map((t) => t.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(server.received.filter((m) => m === 'tools/list')).toHaveLength(3);
    expect((await client.promises.listResources()).map((r) => r.uri)).toEqual(['test://1', 'test://2', 'test://3']);
    expect(await client.promises.listResourceTemplates()).toEqual([{ uriTemplate: 'test://{id}', name: 't' }]);
    expect((await firstValueFrom(client.prompts$)).map((p) => p.name)).toEqual(['p1', 'p2', 'p3']);
  });

  it('[lists.page-limit] fails a listing that needs more than maxListPages pages', async () => {
    const server = fakeServer({
      capabilities: { tools: {} },
      handlers: { 'tools/list': paged('tools', ['a', 'b', 'c'].map(tool)) },
    });
    client = await connect(server.clientTransport, { ...legacy, maxListPages: 1 });
    await expect(client.promises.listTools()).rejects.toBeInstanceOf(PageLimitError);
  });

  it('[lists.no-capability] gives an empty list, without a request, when the server lacks the capability', async () => {
    const server = fakeServer({ handlers: { 'tools/list': () => ({ tools: [tool('x')] }) } });
    client = await connect(server.clientTransport, legacy);
    expect(await firstValueFrom(client.tools$)).toEqual([]);
    expect(await client.promises.listPrompts()).toEqual([]);
    expect(server.received).toEqual([]);
  });

  it('[lists.cached] fetches once for many subscribers and refreshes on list_changed', async () => {
    let tools = [tool('one')];
    const server = fakeServer({
      capabilities: { tools: { listChanged: true } },
      handlers: { 'tools/list': () => ({ tools }) },
    });
    client = await connect(server.clientTransport, legacy);
    const seen: string[][] = [];
    const subscription = client.tools$.subscribe((list) => seen.push(list.map((t) => t.name)));
    await flush();
    expect(await firstValueFrom(client.tools$)).toHaveLength(1);
    expect(server.received).toEqual(['tools/list']);
    tools = [tool('one'), tool('two')];
    server.connection.notify('notifications/tools/list_changed');
    await flush();
    expect(seen).toEqual([['one'], ['one', 'two']]);
    subscription.unsubscribe();
    tools = [tool('three')];
    server.connection.notify('notifications/tools/list_changed');
    await flush();
    expect((await firstValueFrom(client.tools$)).map((t) => t.name)).toEqual(['three']);
    expect(server.received).toEqual(['tools/list', 'tools/list', 'tools/list']);
  });

  it('[lists.list-changed] refreshes resources and templates on resources/list_changed, prompts on prompts/list_changed', async () => {
    let version = 1;
    const server = fakeServer({
      capabilities: { resources: { listChanged: true }, prompts: { listChanged: true } },
      handlers: {
        'resources/list': () => ({ resources: [{ uri: `test://v${version}`, name: 'r' }] }),
        'resources/templates/list': () => ({
          resourceTemplates: [{ uriTemplate: `test://v${version}/{x}`, name: 't' }],
        }),
        'prompts/list': () => ({ prompts: [{ name: `p${version}` }] }),
      },
    });
    client = await connect(server.clientTransport, legacy);
    const resources = lastValueFrom(client.resources$.pipe(take(2), toArray()));
    const templates = lastValueFrom(client.resourceTemplates$.pipe(take(2), toArray()));
    const prompts = lastValueFrom(client.prompts$.pipe(take(2), toArray()));
    await flush();
    version = 2;
    server.connection.notify('notifications/resources/list_changed');
    server.connection.notify('notifications/prompts/list_changed');
    expect((await resources).map((list) => list[0]!.uri)).toEqual(['test://v1', 'test://v2']);
    expect((await templates).map((list) => list[0]!.uriTemplate)).toEqual(['test://v1/{x}', 'test://v2/{x}']);
    expect((await prompts).map((list) => list[0]!.name)).toEqual(['p1', 'p2']);
  });

  it('completes the cached lists when the connection closes, still replaying the last list', async () => {
    const server = fakeServer({
      capabilities: { tools: {} },
      handlers: { 'tools/list': () => ({ tools: [tool('x')] }) },
    });
    client = await connect(server.clientTransport, legacy);
    const all = lastValueFrom(client.tools$.pipe(toArray()));
    await flush();
    client.close();
    expect(await all).toEqual([[tool('x')]]);
    expect(await lastValueFrom(client.tools$)).toEqual([tool('x')]);
  });
});

describe('McpClient calls', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('[prompts.get] gets a prompt with arguments', async () => {
    const server = fakeServer({
      capabilities: { prompts: {} },
      handlers: {
        'prompts/get': (params) => ({
          messages: [
            { role: 'user', content: { type: 'text', text: `hi ${(params.arguments as { who: string }).who}` } },
          ],
        }),
      },
    });
    client = await connect(server.clientTransport, legacy);
    const result = await client.promises.getPrompt('greet', { who: 'ada' });
    expect(result.messages[0]!.content).toEqual({ type: 'text', text: 'hi ada' });
  });

  it('[completion.complete] asks for completions', async () => {
    const server = fakeServer({
      capabilities: { completions: {} },
      handlers: {
        'completion/complete': (params) => ({
          completion: { values: [`${(params.argument as { value: string }).value}-1`], hasMore: false },
        }),
      },
    });
    client = await connect(server.clientTransport, legacy);
    const result = await client.promises.complete({
      ref: { type: 'ref/prompt', name: 'p' },
      argument: { name: 'a', value: 'x' },
    });
    expect(result.completion.values).toEqual(['x-1']);
  });

  it('[logging.client] sets the logging level and streams the log messages', async () => {
    const levels: unknown[] = [];
    const server = fakeServer({
      capabilities: { logging: {} },
      handlers: {
        'logging/setLevel': (params) => {
          levels.push(params.level);
          return {};
        },
      },
    });
    client = await connect(server.clientTransport, legacy);
    const logs = lastValueFrom(client.logMessages$.pipe(take(2), toArray()));
    await expect(client.promises.setLoggingLevel('warning')).resolves.toBeUndefined();
    expect(levels).toEqual(['warning']);
    server.connection.notify('notifications/message', { level: 'warning', data: 'careful', logger: 'db' });
    server.connection.notify('notifications/message', { level: 'error', data: { code: 7 } });
    expect(await logs).toEqual([
      { level: 'warning', data: 'careful', logger: 'db' },
      { level: 'error', data: { code: 7 } },
    ]);
  });

  it('[errors.typed] a JSON-RPC error fails only its call, as a JsonRpcError with the code', async () => {
    const server = fakeServer({
      capabilities: { resources: {} },
      handlers: {
        'resources/read': (params) => {
          if (params.uri === 'test://missing') throw new JsonRpcError(-32002, 'Resource not found');
          return { contents: [{ uri: String(params.uri), text: 'ok' }] };
        },
      },
    });
    client = await connect(server.clientTransport, legacy);
    const missing = client.promises.readResource('test://missing');
    const present = client.promises.readResource('test://present');
    await expect(missing).rejects.toMatchObject({ name: 'JsonRpcError', code: -32002 });
    await expect(present).resolves.toEqual({ contents: [{ uri: 'test://present', text: 'ok' }] });
  });

  it('[errors.invalid-result] a schema-invalid answer fails only its call, naming the problem', async () => {
    const [a, b] = createInMemoryPair();
    const peer = rawPeer(b);
    const connecting = connect(a, legacy);
    const init = (await peer.next()) as { id: number };
    peer.send({
      jsonrpc: '2.0',
      id: init.id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {}, resources: {} },
        serverInfo: { name: 's', version: '1' },
      },
    });
    client = await connecting;
    await peer.next(); // notifications/initialized
    const bad = client.promises.callTool('x');
    const good = client.promises.readResource('test://a');
    const badRequest = (await peer.next()) as { id: number };
    const goodRequest = (await peer.next()) as { id: number };
    peer.send({ jsonrpc: '2.0', id: badRequest.id, result: { content: [{ type: 'text' }] } });
    peer.send({ jsonrpc: '2.0', id: goodRequest.id, result: { contents: [] } });
    await expect(bad).rejects.toBeInstanceOf(ProtocolError);
    await expect(bad).rejects.toThrow(/tools\/call.*content/);
    await expect(good).resolves.toEqual({ contents: [] });
    expect(client.state).toBe('operating');
  });

  it.each([
    ['a result that is not an object', { result: 'fine' }, /result must be an object/],
    ['an error without a code', { error: { message: 'broken' } }, /error must have a numeric code/],
  ])(
    '[errors.malformed-response] %s fails only the call it answers, naming the problem',
    async (_what, body, problem) => {
      const [a, b] = createInMemoryPair();
      const peer = rawPeer(b);
      const connecting = connect(a, legacy);
      const init = (await peer.next()) as { id: number };
      peer.send({
        jsonrpc: '2.0',
        id: init.id,
        result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
      });
      client = await connecting;
      await peer.next(); // notifications/initialized
      const bad = client.promises.callTool('x');
      const good = client.promises.callTool('y');
      const badRequest = (await peer.next()) as { id: number };
      const goodRequest = (await peer.next()) as { id: number };
      peer.send({ jsonrpc: '2.0', id: badRequest.id, ...body });
      peer.send({ jsonrpc: '2.0', id: goodRequest.id, result: { content: [] } });
      await expect(bad).rejects.toBeInstanceOf(ProtocolError);
      await expect(bad).rejects.toThrow(problem);
      await expect(bad).rejects.toThrow(/Malformed response to tools\/call from the server/);
      await expect(good).resolves.toEqual({ content: [] });
      await flush();
      expect(peer.received.slice(4)).toEqual([]); // a response is never answered
      expect(client.state).toBe('operating');
    },
  );

  it('[shutdown.peer] a server that goes away fails every pending call at once and the state ends in shutdown', async () => {
    const never = new Subject<Record<string, unknown>>();
    const server = fakeServer({
      capabilities: { tools: {}, prompts: {} },
      handlers: { 'tools/call': () => never, 'prompts/get': () => never },
    });
    client = await connect(server.clientTransport, legacy);
    const states: string[] = [];
    client.state$.subscribe((state) => states.push(state));
    const calls = [client.promises.callTool('a'), client.promises.callTool('b'), client.promises.getPrompt('c')];
    await flush();
    expect(client.connection.pendingRequests).toBe(3);
    server.connection.close('server crashed');
    const outcomes = await Promise.allSettled(calls);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(ConnectionClosedError);
    }
    expect(client.state).toBe('shutdown');
    expect(states).toEqual(['operating', 'shutdown']);
    await expect(client.promises.callTool('late')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('[cancellation.abort] an AbortSignal cancels the call and tells the server', async () => {
    const cancelled: unknown[] = [];
    const server = fakeServer({ capabilities: { tools: {} }, handlers: { 'tools/call': () => new Subject() } });
    server.connection.notifications$.subscribe(
      (n) => n.method === 'notifications/cancelled' && cancelled.push(n.params),
    );
    client = await connect(server.clientTransport, legacy);
    const controller = new AbortController();
    const call = client.promises.callTool('slow', {}, { signal: controller.signal });
    await flush();
    controller.abort(new Error('user gave up'));
    await expect(call).rejects.toThrow('user gave up');
    await flush();
    expect(cancelled).toEqual([{ requestId: expect.any(Number), reason: 'user gave up' }]);
  });

  it('[cancellation.none-after-answer] taking the first value of a call does not cancel the answered request', async () => {
    const server = fakeServer({ capabilities: { tools: {} }, handlers: { 'tools/list': () => ({ tools: [] }) } });
    const methods: string[] = [];
    server.connection.notifications$.subscribe((n) => methods.push(n.method));
    client = await connect(server.clientTransport, legacy);
    await firstValueFrom(client.request('tools/list'));
    await client.promises.ping();
    await flush();
    expect(methods).toEqual(['notifications/initialized']);
  });

  /** A fake server's client transport that also records the methods of the requests the client sends. */
  function recordingTransport(server: ReturnType<typeof fakeServer>): { transport: Transport; sent: string[] } {
    const inner = server.clientTransport;
    const sent: string[] = [];
    const transport: Transport = {
      incoming$: inner.incoming$,
      closed$: inner.closed$,
      close: (reason) => inner.close(reason),
      send: (message, options) => {
        for (const m of Array.isArray(message) ? message : [message]) if ('method' in m) sent.push(m.method);
        inner.send(message, options);
      },
    };
    return { transport, sent };
  }

  it('[ping.client] pings the server', async () => {
    const { transport, sent } = recordingTransport(fakeServer());
    client = await connect(transport, legacy);
    await expect(client.promises.ping()).resolves.toBeUndefined();
    await expect(client.promises.ping()).resolves.toBeUndefined();
    expect(sent.filter((m) => m === 'ping')).toHaveLength(2);
  });

  it('[ping.client] ping is a cold Observable like every call: sent on subscription, once per subscriber', async () => {
    const { transport, sent } = recordingTransport(fakeServer());
    client = await connect(transport, legacy);
    const ping$ = client.ping();
    await flush();
    expect(sent).not.toContain('ping');
    await expect(firstValueFrom(ping$.pipe(toArray()))).resolves.toEqual([undefined]);
    await firstValueFrom(ping$);
    expect(sent.filter((m) => m === 'ping')).toHaveLength(2);
  });
});

describe('McpClient keepalive', () => {
  afterEach(() => jest.useRealTimers());

  async function handshake(peer: ReturnType<typeof rawPeer>) {
    const init = (await peer.next()) as { id: number };
    peer.send({
      jsonrpc: '2.0',
      id: init.id,
      result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
    });
    await peer.next(); // notifications/initialized
  }

  it('[keepalive.dead] closes the connection after maxMissed unanswered pings', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const [a, b] = createInMemoryPair();
    const peer = rawPeer(b);
    const connecting = connect(a, { ...legacy, keepalive: { intervalMs: 1000, timeoutMs: 500, maxMissed: 2 } });
    await handshake(peer);
    const client = await connecting;
    await jest.advanceTimersByTimeAsync(1000);
    expect(await peer.next()).toMatchObject({ method: 'ping' });
    await jest.advanceTimersByTimeAsync(1000);
    expect(client.state).toBe('operating');
    expect(await peer.nextMatching((frame) => frame.method !== 'notifications/cancelled')).toMatchObject({
      method: 'ping',
    });
    await jest.advanceTimersByTimeAsync(500);
    expect(client.state).toBe('shutdown');
    await expect(firstValueFrom(client.closed$)).resolves.toMatchObject({
      reason: expect.stringMatching(/2 ping\(s\) in a row went unanswered/),
    });
  });

  it('[keepalive.alive] keeps the connection while the server answers', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const [a, b] = createInMemoryPair();
    const peer = rawPeer(b);
    const connecting = connect(a, { ...legacy, keepalive: { intervalMs: 1000, maxMissed: 1 } });
    await handshake(peer);
    const client = await connecting;
    for (let i = 0; i < 3; i++) {
      await jest.advanceTimersByTimeAsync(1000);
      const ping = (await peer.next()) as { id: number; method: string };
      expect(ping.method).toBe('ping');
      peer.send({ jsonrpc: '2.0', id: ping.id, result: {} });
    }
    await jest.advanceTimersByTimeAsync(900);
    expect(client.state).toBe('operating');
    // Answered pings are not cancelled afterwards, though the keepalive stops listening at the answer.
    expect(
      peer.received.filter((frame) => (frame as { method?: string }).method === 'notifications/cancelled'),
    ).toEqual([]);
    client.close();
  });

  it('[keepalive.close] closing with a ping in flight is not a missed ping', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const warnings: string[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => warnings.push((JSON.parse(line) as { msg: string }).msg) },
    );
    const [a, b] = createInMemoryPair();
    const peer = rawPeer(b);
    const connecting = connect(a, { ...legacy, logger, keepalive: { intervalMs: 1000, maxMissed: 1 } });
    await handshake(peer);
    const client = await connecting;
    await jest.advanceTimersByTimeAsync(1000);
    expect(await peer.next()).toMatchObject({ method: 'ping' });
    client.close();
    await jest.advanceTimersByTimeAsync(3000);
    expect(warnings).toEqual([]);
    await expect(firstValueFrom(client.closed$)).resolves.toMatchObject({ reason: 'closed locally' });
  });
});
