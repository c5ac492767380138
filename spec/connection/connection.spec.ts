import {
  firstValueFrom,
  interval,
  lastValueFrom,
  map,
  NEVER,
  Observable,
  ReplaySubject,
  Subject,
  toArray,
  VirtualTimeScheduler,
} from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import { createConnection } from '../../lib/connection/create-connection';
import type { Connection } from '../../lib/connection/connection';
import { log, progress } from '../../lib/connection/handler-events';
import {
  CapabilityNotSupportedError,
  ConnectionClosedError,
  JsonRpcError,
  NotInitializedError,
  RequestTimeoutError,
  TransportError,
  UnsupportedProtocolVersionError,
} from '../../lib/jsonrpc/errors';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { MalformedFrame } from '../../lib/transport/transport';
import type { Transport, TransportClose } from '../../lib/transport/transport';
import { rawPeer } from '../support/raw-peer';
import type { RawPeer } from '../support/raw-peer';

const flush = () => new Promise((resolve) => setImmediate(resolve));

function demoServer(): { server: McpServer; torn: string[]; release: Subject<void> } {
  const torn: string[] = [];
  const release = new Subject<void>();
  const server = createServer({ name: 'demo', version: '1.0.0' });
  server.tool({
    name: 'echo',
    description: 'echo',
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
  });
  server.tool({
    name: 'slow',
    description: 'answers when released',
    handler: () =>
      new Observable((subscriber) => {
        subscriber.next(progress(1, 2, 'half way'));
        subscriber.next(log('info', { step: 'started' }));
        const s = release.subscribe(() => {
          subscriber.next({ content: [{ type: 'text', text: 'done' }] });
          subscriber.complete();
        });
        return () => {
          torn.push('slow');
          s.unsubscribe();
        };
      }),
  });
  return { server, torn, release };
}

async function servedPeer(
  protocolVersion?: string,
): Promise<{ peer: RawPeer; torn: string[]; release: Subject<void>; server: McpServer }> {
  const { server, torn, release } = demoServer();
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  const peer = rawPeer(clientSide);
  if (protocolVersion) await peer.initialize(protocolVersion);
  return { peer, torn, release, server };
}

const byId = (id: unknown) => (frame: Record<string, unknown>) => frame.id === id;

describe('createConnection (server role, on the wire)', () => {
  it('[lifecycle.version-echo] answers initialize with the client version, capabilities and serverInfo', async () => {
    const { peer } = await servedPeer();
    const result = await peer.initialize('2025-06-18');
    expect(result).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: true }, logging: {} },
      serverInfo: { name: 'demo', version: '1.0.0' },
    });
  });

  it('[lifecycle.version-fallback] answers an unknown client version with its latest', async () => {
    const { peer } = await servedPeer();
    expect((await peer.initialize('2099-01-01')).protocolVersion).toBe('2025-11-25');
  });

  it('[errors.parse] answers a frame that is not JSON with -32700 and keeps serving', async () => {
    const { peer } = await servedPeer('2025-11-25');
    peer.send(new MalformedFrame('{oops', 'Unexpected token o'));
    expect(await peer.next()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    peer.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await peer.nextMatching(byId(2))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it.each([
    ['a string', 'hello', null],
    ['a number', 42, null],
    ['a wrong version', { jsonrpc: '1.0', id: 3, method: 'ping' }, 3],
    ['a non-string method', { jsonrpc: '2.0', id: 4, method: 7 }, 4],
    ['array params', { jsonrpc: '2.0', id: 5, method: 'ping', params: [1] }, 5],
    ['no method, result or error', { jsonrpc: '2.0', id: 6 }, 6],
  ])('[errors.invalid-request] answers %s with -32600 carrying the id when readable', async (_, frame, id) => {
    const { peer } = await servedPeer('2025-11-25');
    peer.send(frame);
    const answer = (await peer.next()) as Record<string, unknown>;
    expect(answer).toMatchObject({ id, error: { code: -32600 } });
  });

  it('[errors.method-not-found] answers an unknown method with -32601 naming it', async () => {
    const { peer } = await servedPeer('2025-11-25');
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/frobnicate' });
    expect(await peer.next()).toMatchObject({
      id: 1,
      error: { code: -32601, message: expect.stringContaining('tools/frobnicate') },
    });
  });

  it('[errors.capability] answers a method whose capability the server did not declare with -32601', async () => {
    const { peer } = await servedPeer('2025-11-25');
    peer.send({ jsonrpc: '2.0', id: 1, method: 'prompts/list' });
    expect(await peer.next()).toMatchObject({ id: 1, error: { code: -32601 } });
  });

  it('[errors.invalid-params] answers invalid params with -32602 naming the field', async () => {
    const { peer } = await servedPeer('2025-11-25');
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 42 } });
    const answer = (await peer.next()) as {
      error: { code: number; message: string; data: { issues: { path: string }[] } };
    };
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toContain('name');
    expect(answer.error.data.issues[0]!.path).toBe('name');
  });

  it('[errors.invalid-params] names the argument a tool rejects', async () => {
    // Up to 2025-06-18 invalid tool arguments are a protocol error; 2025-11-25 makes them an isError result.
    const { peer } = await servedPeer('2025-06-18');
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 5 } } });
    expect(await peer.next()).toMatchObject({
      id: 1,
      error: { code: -32602, message: expect.stringContaining('arguments.text') },
    });
  });

  it('[lifecycle.before-initialize] refuses a request before initialize with a clear error, then initializes', async () => {
    const { peer } = await servedPeer();
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(await peer.next()).toMatchObject({
      id: 1,
      error: { code: -32600, message: expect.stringContaining('before initialization') },
    });
    peer.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await peer.nextMatching(byId(2))).toMatchObject({ result: {} });
    expect((await peer.initialize()).protocolVersion).toBe('2025-11-25');
  });

  it('refuses a second initialize', async () => {
    const { peer } = await servedPeer('2025-11-25');
    peer.send({
      jsonrpc: '2.0',
      id: 9,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    expect(await peer.nextMatching(byId(9))).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('already initialized') },
    });
  });

  it('keeps serving a request in flight while bad input arrives', async () => {
    const { peer, release } = await servedPeer('2025-11-25');
    peer.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow' } });
    peer.send(new MalformedFrame('nope', 'bad'));
    peer.send({ jsonrpc: '2.0', id: 'x', method: 'nope' });
    peer.send({ jsonrpc: '2.0', id: 'y', method: 'tools/call', params: {} });
    peer.send([1, 2]);
    await peer.nextMatching(byId('y'));
    release.next();
    expect(await peer.nextMatching(byId('slow'))).toMatchObject({
      result: { content: [{ type: 'text', text: 'done' }] },
    });
  });

  it('[batch.2025-03-26] answers a batch with an array of responses under 2025-03-26', async () => {
    const { peer } = await servedPeer('2025-03-26');
    peer.send([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { jsonrpc: '2.0', id: 3, method: 'nope' },
    ]);
    const answer = (await peer.next()) as Array<Record<string, unknown>>;
    expect(Array.isArray(answer)).toBe(true);
    expect(answer.map((r) => r.id).sort()).toEqual([1, 2, 3]);
    expect(answer.find((r) => r.id === 3)).toMatchObject({ error: { code: -32601 } });
  });

  it.each(['2024-11-05', '2025-06-18', '2025-11-25'])(
    '[batch.refused] refuses a batch under %s with -32600',
    async (revision) => {
      const { peer } = await servedPeer(revision);
      peer.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
      expect(await peer.next()).toMatchObject({
        id: null,
        error: { code: -32600, message: expect.stringContaining('batch') },
      });
    },
  );

  it('[cancellation] stops a cancelled handler, runs its teardown and sends no response', async () => {
    const { peer, torn, release } = await servedPeer('2025-11-25');
    peer.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow' } });
    await peer.nextMatching((f) => f.method === 'notifications/message');
    peer.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'changed my mind' },
    });
    peer.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
    await peer.nextMatching(byId(8));
    expect(torn).toEqual(['slow']);
    release.next();
    await flush();
    expect(peer.received.some((f) => (f as { id?: unknown }).id === 7)).toBe(false);
  });

  it.each([
    ['string', 'tok-1'],
    ['number', 17],
  ])('[progress.token-type] echoes a %s progress token unchanged', async (_, token) => {
    const { peer, release } = await servedPeer('2025-11-25');
    peer.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'slow', _meta: { progressToken: token } },
    });
    const note = await peer.nextMatching((f) => f.method === 'notifications/progress');
    expect(note.params).toEqual({ progressToken: token, progress: 1, total: 2, message: 'half way' });
    release.next();
    await peer.nextMatching(byId(1));
  });

  it('[progress.no-token] sends no progress when the request carried no token', async () => {
    const { peer, release } = await servedPeer('2025-11-25');
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } });
    await peer.nextMatching((f) => f.method === 'notifications/message');
    release.next();
    await peer.nextMatching(byId(1));
    expect(peer.received.some((f) => (f as { method?: string }).method === 'notifications/progress')).toBe(false);
  });

  it('answers a duplicate id in flight with -32600 and keeps the first request', async () => {
    const { peer, release } = await servedPeer('2025-11-25');
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ error: { code: -32600 } });
    release.next();
    expect(await peer.nextMatching(byId(1))).toMatchObject({ result: { content: [{ text: 'done' }] } });
  });
});

describe('createConnection (both roles over an in-memory pair)', () => {
  let server: McpServer;
  beforeEach(() => {
    server = demoServer().server;
  });
  afterEach(() => server.close());

  it('[lifecycle] connects, negotiates and calls a tool', async () => {
    const [a, b] = createInMemoryPair();
    server.connect(b);
    const client = await connect(a, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
    expect(client.revision).toBe('2025-11-25');
    expect(client.serverInfo).toEqual({ name: 'demo', version: '1.0.0' });
    expect(client.connection.state).toBe('operating');
    const result = await client.promises.callTool('echo', { text: 'hello' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    client.close();
  });

  it('[ping.both-ways] pings in both directions', async () => {
    const [a, b] = createInMemoryPair();
    const session = server.connect(b);
    const client = await connect(a, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
    await client.promises.ping();
    await flush();
    await expect(firstValueFrom(session.connection.request('ping'))).resolves.toEqual({});
    client.close();
  });

  it('[lifecycle.client-rejects-unsupported] rejects a server answering an unsupported revision, and closes', async () => {
    const [a, b] = createInMemoryPair();
    const peer = rawPeer(b);
    const connecting = connect(a, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
    const init = (await peer.next()) as { id: number };
    peer.send({
      jsonrpc: '2.0',
      id: init.id,
      result: { protocolVersion: '2030-01-01', capabilities: {}, serverInfo: { name: 's', version: '1' } },
    });
    await expect(connecting).rejects.toBeInstanceOf(UnsupportedProtocolVersionError);
    await expect(connecting).rejects.toThrow(/2030-01-01/);
  });

  it('[lifecycle.client-gating] refuses to send requests before the handshake', async () => {
    const [a] = createInMemoryPair();
    const connection = createConnection({ transport: a, role: 'client', info: { name: 'c', version: '1' } });
    await expect(firstValueFrom(connection.request('tools/list'))).rejects.toBeInstanceOf(NotInitializedError);
    connection.close();
  });

  it('[shutdown] fails every pending request with ConnectionClosedError when the connection closes', async () => {
    const [a, b] = createInMemoryPair();
    server.connect(b);
    const client = await connect(a, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
    const calls = [1, 2, 3].map(() => client.promises.callTool('slow'));
    await flush();
    expect(client.connection.pendingRequests).toBe(3);
    client.close();
    for (const call of calls) await expect(call).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(client.connection.pendingRequests).toBe(0);
    expect(client.connection.state).toBe('shutdown');
  });

  it('[shutdown.transport-error] reports the transport error when incoming$ completes just before closed$', async () => {
    const incoming$ = new Subject<unknown>();
    const closed$ = new ReplaySubject<TransportClose>(1);
    const failure = new TransportError('failed to start (ENOENT)');
    const transport: Transport = {
      incoming$,
      closed$,
      send: () => undefined,
      close: () => undefined,
    };
    const connection = createConnection({ transport, role: 'client', info: { name: 'c', version: '1' } });
    const initializing = firstValueFrom(connection.initialize());
    incoming$.complete();
    closed$.next({ reason: 'failed to start (ENOENT)', error: failure });
    await expect(initializing).rejects.toMatchObject({ name: 'ConnectionClosedError', cause: failure });
    await expect(firstValueFrom(connection.closed$)).resolves.toEqual({
      reason: 'failed to start (ENOENT)',
      error: failure,
    });
  });

  it('[shutdown.peer] fails pending requests and cancels the server handlers when the peer goes away', async () => {
    const demo = demoServer();
    const [a, b] = createInMemoryPair();
    const session = demo.server.connect(b);
    const client = await connect(a, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
    const call = client.promises.callTool('slow');
    await flush();
    expect(session.connection.inFlightRequests).toBe(1);
    session.close('server going away');
    await expect(call).rejects.toThrow(ConnectionClosedError);
    expect(demo.torn).toEqual(['slow']);
    expect(session.connection.inFlightRequests).toBe(0);
  });

  it('[cancellation.client] sends notifications/cancelled when the caller unsubscribes', async () => {
    const demo = demoServer();
    const [a, b] = createInMemoryPair();
    const session = demo.server.connect(b);
    const client = await connect(a, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
    const seen: string[] = [];
    session.connection.notifications$.subscribe((n) => seen.push(n.method));
    const subscription = client.callTool('slow').subscribe();
    await flush();
    subscription.unsubscribe();
    await flush();
    expect(seen).toContain('notifications/cancelled');
    expect(demo.torn).toEqual(['slow']);
    expect(client.connection.pendingRequests).toBe(0);
  });

  it('[progress.client] receives progress through onProgress', async () => {
    const demo = demoServer();
    const [a, b] = createInMemoryPair();
    demo.server.connect(b);
    const client = await connect(a, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
    const updates: unknown[] = [];
    const call = client.promises.callTool('slow', {}, { onProgress: (p) => updates.push(p) });
    await flush();
    demo.release.next();
    await call;
    expect(updates).toEqual([{ progressToken: expect.any(Number), progress: 1, total: 2, message: 'half way' }]);
  });

  it('[errors.typed] surfaces a JSON-RPC error as a JsonRpcError with its code', async () => {
    const [a, b] = createInMemoryPair();
    server.connect(b);
    const client = await connect(a, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
    const failure = client.promises.callTool('missing');
    await expect(failure).rejects.toBeInstanceOf(JsonRpcError);
    await expect(failure).rejects.toMatchObject({ code: -32602 });
  });

  it('[capabilities.enforced] refuses locally a server request the client has no capability for', async () => {
    const [a, b] = createInMemoryPair();
    const session = server.connect(b);
    const client = await connect(a, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
    await flush();
    await expect(
      firstValueFrom(session.connection.request('sampling/createMessage', { messages: [], maxTokens: 1 })),
    ).rejects.toBeInstanceOf(CapabilityNotSupportedError);
    client.close();
  });
});

describe('createConnection timeouts', () => {
  afterEach(() => jest.useRealTimers());

  it('[timeout.idle] fails with RequestTimeoutError and sends notifications/cancelled with the reason', async () => {
    jest.useFakeTimers();
    const [a, b] = createInMemoryPair();
    const serverConnection: Connection = createConnection({
      transport: b,
      role: 'server',
      info: { name: 's', version: '1' },
      capabilities: () => ({ tools: {} }),
      handlers: { 'tools/list': () => NEVER },
    });
    const seen: Array<Record<string, unknown> | undefined> = [];
    serverConnection.notifications$.subscribe((n) => n.method === 'notifications/cancelled' && seen.push(n.params));
    const connecting = connect(a, { name: 'c', version: '1', requestTimeoutMs: 1000 });
    await jest.advanceTimersByTimeAsync(0);
    const client = await connecting;
    const listing = lastValueFrom(client.request('tools/list').pipe(toArray()));
    const outcome = listing.catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(1000);
    const error = await outcome;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ deadline: 'idle', afterMs: 1000, method: 'tools/list' });
    await jest.advanceTimersByTimeAsync(0);
    expect(seen).toEqual([{ requestId: expect.any(Number), reason: expect.stringContaining('timed out') }]);
    expect(serverConnection.inFlightRequests).toBe(0);
    client.close();
  });

  /**
   * A server whose tools/list sends progress every `everyMs` and never answers, with the client's
   * timeouts and the server's ticks on one virtual clock; `advance` moves it in small steps and lets
   * the in-memory pair deliver (microtasks) between them.
   */
  async function ticking(everyMs: number) {
    const scheduler = new VirtualTimeScheduler();
    let now = 0;
    const advance = async (ms: number) => {
      for (const end = now + ms; now < end;) {
        now = Math.min(end, now + 50);
        scheduler.maxFrames = now;
        scheduler.flush();
        await flush();
      }
    };
    const [a, b] = createInMemoryPair();
    const serverConnection: Connection = createConnection({
      transport: b,
      role: 'server',
      info: { name: 's', version: '1' },
      capabilities: () => ({ tools: {} }),
      handlers: { 'tools/list': () => interval(everyMs, scheduler).pipe(map((step) => progress(step + 1))) },
    });
    const cancelled: Array<Record<string, unknown> | undefined> = [];
    serverConnection.notifications$.subscribe(
      (n) => n.method === 'notifications/cancelled' && cancelled.push(n.params),
    );
    const client = await connect(a, { name: 'c', version: '1', requestTimeoutMs: 1000, scheduler });
    return { client, cancelled, serverConnection, advance };
  }

  it('[timeout.progress-resets] progress restarts the idle timeout when onProgress is given', async () => {
    const { client, cancelled, advance } = await ticking(600);
    const steps: number[] = [];
    const outcome = lastValueFrom(
      client.request('tools/list', {}, { onProgress: (p) => steps.push(p.progress) }),
    ).catch((e: unknown) => e);
    await advance(3000);
    expect(steps).toEqual([1, 2, 3, 4, 5]);
    expect(cancelled).toEqual([]);
    client.close();
    expect(await outcome).toBeInstanceOf(ConnectionClosedError);
  });

  it('[timeout.no-reset] resetTimeoutOnProgress: false keeps the idle deadline despite progress', async () => {
    const { client, cancelled, advance } = await ticking(600);
    const outcome = lastValueFrom(
      client.request('tools/list', {}, { onProgress: () => undefined, resetTimeoutOnProgress: false }),
    ).catch((e: unknown) => e);
    await advance(1000);
    expect(await outcome).toMatchObject({ deadline: 'idle', afterMs: 1000 });
    await flush();
    expect(cancelled).toHaveLength(1);
    client.close();
  });

  it('[timeout.total] maxTotalTimeoutMs ends a request that keeps sending progress, and wins a tie', async () => {
    const { client, cancelled, serverConnection, advance } = await ticking(600);
    const outcome = lastValueFrom(
      client.request('tools/list', {}, { onProgress: () => undefined, maxTotalTimeoutMs: 2500 }),
    ).catch((e: unknown) => e);
    await advance(2499);
    expect(client.connection.pendingRequests).toBe(1);
    await advance(1);
    expect(await outcome).toMatchObject({ deadline: 'total', afterMs: 2500, method: 'tools/list' });
    await flush();
    expect(cancelled).toEqual([
      { requestId: expect.any(Number), reason: expect.stringContaining('maximum total time') },
    ]);
    expect(serverConnection.inFlightRequests).toBe(0);

    const tie = lastValueFrom(client.request('tools/list', {}, { timeoutMs: 500, maxTotalTimeoutMs: 500 })).catch(
      (e: unknown) => e,
    );
    await advance(500);
    expect(await tie).toMatchObject({ deadline: 'total' });
    client.close();
  });

  it('[cancellation.signal] an aborted signal fails the call with its reason and tells the server', async () => {
    const { client, cancelled, serverConnection, advance } = await ticking(600);
    const controller = new AbortController();
    const outcome = lastValueFrom(client.request('tools/list', {}, { signal: controller.signal })).catch(
      (e: unknown) => e,
    );
    await advance(100);
    expect(serverConnection.inFlightRequests).toBe(1);
    controller.abort(new Error('user gave up'));
    expect(await outcome).toMatchObject({ message: 'user gave up' });
    await flush();
    expect(cancelled).toEqual([{ requestId: expect.any(Number), reason: 'user gave up' }]);
    expect(serverConnection.inFlightRequests).toBe(0);
    expect(client.connection.pendingRequests).toBe(0);
    client.close();
  });

  it('[lifecycle.initialize-timeout] a server closes a connection that never initializes', async () => {
    jest.useFakeTimers();
    const [, b] = createInMemoryPair();
    const connection = createConnection({
      transport: b,
      role: 'server',
      info: { name: 's', version: '1' },
      initializeTimeoutMs: 500,
    });
    const closed = firstValueFrom(connection.closed$);
    await jest.advanceTimersByTimeAsync(500);
    await expect(closed).resolves.toMatchObject({ reason: expect.stringContaining('no initialize') });
    expect(connection.state).toBe('shutdown');
  });
});

describe('createConnection (shared handlers and streams made on first use)', () => {
  const info = { name: 's', version: '1' };

  async function initialized(connection: Connection, peer: RawPeer): Promise<void> {
    await peer.initialize('2025-11-25');
    await flush();
    expect(connection.state).toBe('operating');
  }

  it('serves many connections from one handler record, handing each handler its own owner', async () => {
    const handlers = { 'x/whoami': (_params: unknown, _context: unknown, owner?: unknown) => ({ owner }) };
    const peers: RawPeer[] = [];
    for (const owner of ['first', 'second']) {
      const [a, b] = createInMemoryPair();
      const connection = createConnection({ transport: b, role: 'server', info, handlers, owner });
      const peer = rawPeer(a);
      await initialized(connection, peer);
      peers.push(peer);
    }
    peers.forEach((peer, index) => peer.send({ jsonrpc: '2.0', id: index, method: 'x/whoami' }));
    expect(await peers[0]!.nextMatching(byId(0))).toMatchObject({ result: { owner: 'first' } });
    expect(await peers[1]!.nextMatching(byId(1))).toMatchObject({ result: { owner: 'second' } });
  });

  it('setRequestHandler and removeRequestHandler change one connection and leave the shared record alone', async () => {
    const handlers = Object.freeze({ 'x/a': () => ({ from: 'shared' }), 'x/b': () => ({ from: 'shared' }) });
    const [a, b] = createInMemoryPair();
    const connection = createConnection({ transport: b, role: 'server', info, handlers });
    const peer = rawPeer(a);
    await initialized(connection, peer);
    connection.setRequestHandler('x/a', () => ({ from: 'own' }));
    connection.removeRequestHandler('x/b');
    peer.send({ jsonrpc: '2.0', id: 1, method: 'x/a' });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ result: { from: 'own' } });
    peer.send({ jsonrpc: '2.0', id: 2, method: 'x/b' });
    expect(await peer.nextMatching(byId(2))).toMatchObject({ error: { code: -32601 } });
    expect(Object.keys(handlers)).toEqual(['x/a', 'x/b']);
  });

  it('answers -32601 for method names that only exist on Object.prototype', async () => {
    const [a, b] = createInMemoryPair();
    const connection = createConnection({ transport: b, role: 'server', info, handlers: { 'x/a': () => ({}) } });
    const peer = rawPeer(a);
    await initialized(connection, peer);
    for (const [id, method] of ['constructor', 'toString', '__proto__', 'hasOwnProperty'].entries()) {
      peer.send({ jsonrpc: '2.0', id, method });
      expect(await peer.nextMatching(byId(id))).toMatchObject({ error: { code: -32601 } });
    }
  });

  it('gives streams first read after the close what they would have replayed', async () => {
    const [, b] = createInMemoryPair();
    const connection = createConnection({ transport: b, role: 'server', info });
    connection.close('done here');
    await expect(firstValueFrom(connection.closed$)).resolves.toEqual({ reason: 'done here' });
    await expect(lastValueFrom(connection.state$.pipe(toArray()))).resolves.toEqual([]);
    await expect(lastValueFrom(connection.notifications$.pipe(toArray()))).resolves.toEqual([]);
    expect(connection.state).toBe('shutdown');
  });

  it('reports state changes to a state$ read before them, and calls onNotification and onClose', async () => {
    const [a, b] = createInMemoryPair();
    const seen: string[] = [];
    const closes: TransportClose[] = [];
    const connection = createConnection({
      transport: b,
      role: 'server',
      info,
      onNotification: (message) => seen.push(message.method),
      onClose: (close) => closes.push(close),
    });
    const states = lastValueFrom(connection.state$.pipe(toArray()));
    const peer = rawPeer(a);
    await initialized(connection, peer);
    peer.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    await flush();
    connection.close('bye');
    await expect(states).resolves.toEqual(['initializing', 'operating', 'shutdown']);
    expect(seen).toEqual(['notifications/initialized', 'notifications/roots/list_changed']);
    expect(closes).toEqual([{ reason: 'bye' }]);
  });
});

describe('createConnection request pipeline edges', () => {
  it('fails a request the transport cannot carry, leaving nothing pending and sending no cancellation', async () => {
    const { server } = demoServer();
    const [clientSide, serverSide] = createInMemoryPair({ clone: true });
    server.connect(serverSide);
    const client = await connect(clientSide, { name: 'c', version: '1' });
    const seen: string[] = [];
    const session = [...server.sessions][0]!;
    session.connection.notifications$.subscribe((n) => seen.push(n.method));
    const outcome = firstValueFrom(
      client.request('tools/call', { name: 'echo', arguments: { text: () => 'no' } }),
    ).catch((e: unknown) => e);
    expect(await outcome).toMatchObject({ name: 'DataCloneError' });
    expect(client.connection.pendingRequests).toBe(0);
    await expect(client.promises.callTool('echo', { text: 'still fine' })).resolves.toMatchObject({
      content: [{ text: 'still fine' }],
    });
    await flush();
    expect(seen).not.toContain('notifications/cancelled');
    client.close();
  });

  it('refuses negative timeouts with a RangeError before sending anything', async () => {
    const { server } = demoServer();
    const [clientSide, serverSide] = createInMemoryPair();
    server.connect(serverSide);
    const client = await connect(clientSide, { name: 'c', version: '1' });
    await expect(firstValueFrom(client.request('tools/list', {}, { timeoutMs: -1 }))).rejects.toBeInstanceOf(
      RangeError,
    );
    await expect(
      firstValueFrom(client.request('tools/list', {}, { maxTotalTimeoutMs: Number.NaN })),
    ).rejects.toBeInstanceOf(RangeError);
    expect(client.connection.pendingRequests).toBe(0);
    client.close();
  });
});
