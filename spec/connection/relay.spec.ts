import { createConnection } from '../../lib/connection/create-connection';
import type { Connection } from '../../lib/connection/connection';
import type { RequestHandler } from '../../lib/connection/dispatcher';
import { relayOf, relayThrough } from '../../lib/connection/relay';
import type { RelayedCall, RequestRelay } from '../../lib/connection/relay';
import { Dispatcher } from '../../lib/connection/dispatcher';
import { progress } from '../../lib/connection/handler-events';
import type { RequestSink } from '../../lib/connection/request-pipeline';
import { JsonRpcError, RequestTimeoutError } from '../../lib/jsonrpc/errors';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { withFrontMiddleware } from '../../lib/proxy/front-middleware';
import { concurrencyLimit, rateLimit } from '../../lib/server/middleware-kit';
import { toolPolicy } from '../../lib/server/tool-policy';
import { of } from 'rxjs';
import type { ServerMiddleware } from '../../lib/server/middleware';
import { rawPeer } from '../support/raw-peer';
import type { RawPeer } from '../support/raw-peer';

// Requests a connection relays (sends on as they came, see relay.ts) rather than hands to their
// handler: what a proxy does with a call whose caller asked for nothing of its own hop.

/** A relay that keeps each request's sink for the test, refusing the requests `declines` picks. */
class HeldRelay implements RequestRelay {
  readonly started: Array<{ method: string; params: unknown; revision: string; sink: RequestSink }> = [];
  cancelled = 0;
  declines: (params: Record<string, unknown>) => boolean = () => false;
  /** Answers each request while it is being started, when set. */
  answerAtOnce: Record<string, unknown> | undefined;

  start(method: string, params: Record<string, unknown>, revision: string, sink: RequestSink) {
    if (this.declines(params)) return false;
    this.started.push({ method, params, revision, sink });
    if (this.answerAtOnce !== undefined) {
      sink.next(this.answerAtOnce);
      sink.complete();
      return undefined;
    }
    return { unsubscribe: () => void this.cancelled++ };
  }
}

/** A relay that says beforehand which requests it takes (`accepts`), as a proxy's does. */
class AcceptingRelay extends HeldRelay {
  /** Declines in `start` a request it accepted, when set (a relay that breaks its word). */
  breaksWord = false;
  readonly calls: RelayedCall[] = [];
  /** How many times `accepts` was asked, and what each `start` was told of it (`accepted`). */
  asked = 0;
  readonly told: Array<boolean | undefined> = [];

  accepts(_method: string, params: Record<string, unknown>) {
    this.asked++;
    return !this.declines(params);
  }

  override start(
    method: string,
    params: Record<string, unknown>,
    revision: string,
    sink: RequestSink,
    _owner?: unknown,
    call?: RelayedCall,
    accepted?: boolean,
  ) {
    this.told.push(accepted);
    if (this.breaksWord) return false;
    if (call !== undefined) this.calls.push(call);
    return super.start(method, params, revision, sink);
  }
}

/** What `serving` may change: the capabilities declared, middleware around the handler, its output. */
interface ServingOptions {
  readonly capabilities?: Record<string, unknown>;
  readonly middleware?: ServerMiddleware[];
  /** The methods served (default `tools/call`), each by the handler and the relay. */
  readonly methods?: string[];
  readonly output?: (params: Record<string, unknown>) => unknown;
}

async function serving(
  relay: HeldRelay,
  options: ServingOptions = {},
): Promise<{ peer: RawPeer; connection: Connection; handled: unknown[] }> {
  const handled: unknown[] = [];
  const handler: RequestHandler = (params) => {
    handled.push(params);
    return (options.output?.(params) ?? { content: [{ type: 'text', text: 'from the handler' }] }) as never;
  };
  const handlers = Object.fromEntries(
    (options.methods ?? ['tools/call']).map((method) => [method, relayThrough(handler, relay)]),
  );
  const [clientSide, serverSide] = createInMemoryPair();
  // As a proxy's front serves it: the owner is the downstream session, which middleware sees.
  const owner: { connection?: Connection; transport: typeof serverSide; level: 'debug' } = {
    transport: serverSide,
    level: 'debug',
  };
  const connection = (owner.connection = createConnection({
    transport: serverSide,
    role: 'server',
    info: { name: 's', version: '1' },
    capabilities: () => options.capabilities ?? { tools: {} },
    handlers: options.middleware ? withFrontMiddleware(handlers, options.middleware) : handlers,
    owner,
  }));
  const peer = rawPeer(clientSide);
  await peer.initialize('2025-06-18');
  return { peer, connection, handled };
}

afterEach(() => jest.restoreAllMocks());

const byId = (id: unknown) => (frame: Record<string, unknown>) => frame.id === id;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a relayed request', () => {
  it('goes to the relay with its method, params and revision, and is answered under the caller’s id', async () => {
    const relay = new HeldRelay();
    const { peer, handled } = await serving(relay);
    peer.send({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 't', arguments: { x: 1 } } });
    await settle();
    expect(relay.started.map(({ method, params, revision }) => ({ method, params, revision }))).toEqual([
      { method: 'tools/call', params: { name: 't', arguments: { x: 1 } }, revision: '2025-06-18' },
    ]);
    relay.started[0]!.sink.next({ content: [{ type: 'text', text: 'relayed' }] });
    relay.started[0]!.sink.complete();
    expect(await peer.nextMatching(byId('a'))).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      result: { content: [{ type: 'text', text: 'relayed' }] },
    });
    expect(handled).toEqual([]);
    expect(relayOf(relayThrough(() => ({}), relay))).toBe(relay);
  });

  it('goes to its handler when the relay declines it', async () => {
    const relay = new HeldRelay();
    relay.declines = (params) => params.name === 'mine';
    const { peer, handled } = await serving(relay);
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mine' } });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ result: { content: [{ text: 'from the handler' }] } });
    expect(handled).toEqual([{ name: 'mine' }]);
    expect(relay.started).toEqual([]);
  });

  it('answers an error with its JSON-RPC code, a timeout as -32001, any other failure as an internal error', async () => {
    const relay = new HeldRelay();
    const { peer } = await serving(relay);
    for (const id of [1, 2, 3]) peer.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't' } });
    await settle();
    relay.started[0]!.sink.error(new JsonRpcError(-32002, 'not found upstream', { uri: 'x' }));
    relay.started[1]!.sink.error(new Error('a secret the caller must not see'));
    relay.started[2]!.sink.error(new RequestTimeoutError('idle', 250, { method: 'tools/call', id: 9 }));
    expect(await peer.nextMatching(byId(1))).toMatchObject({
      error: { code: -32002, message: 'not found upstream', data: { uri: 'x' } },
    });
    const internal = await peer.nextMatching(byId(2));
    expect(internal).toMatchObject({ error: { code: -32603 } });
    expect(JSON.stringify(internal)).not.toContain('secret');
    expect(await peer.nextMatching(byId(3))).toMatchObject({
      error: { code: -32001, message: expect.stringMatching(/timed out after 250 ms/) },
    });
  });

  it('answers -32603 when the relay throws, and serves on', async () => {
    const relay = new HeldRelay();
    relay.declines = (params) => {
      if (params.name === 'boom') throw new Error('relay broke');
      return false;
    };
    const { peer } = await serving(relay);
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'boom' } });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ error: { code: -32603 } });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fine' } });
    await settle();
    relay.started[0]!.sink.next({ content: [] });
    relay.started[0]!.sink.complete();
    expect(await peer.nextMatching(byId(1))).toMatchObject({ result: { content: [] } });
  });

  it('is cancelled by notifications/cancelled and by the connection closing, and then answers nothing', async () => {
    const relay = new HeldRelay();
    const { peer, connection } = await serving(relay);
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } });
    peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 't' } });
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    peer.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await peer.nextMatching(byId(3));
    expect(relay.cancelled).toBe(1);
    relay.started[0]!.sink.next({ content: [] });
    relay.started[0]!.sink.complete();
    connection.close();
    expect(relay.cancelled).toBe(2);
    relay.started[1]!.sink.error(new Error('closed'));
    await settle();
    expect(peer.received.some((frame) => [1, 2].includes((frame as { id?: number }).id!))).toBe(false);
  });

  it('refuses a second request with an id in flight, leaving the first one relayed', async () => {
    const relay = new HeldRelay();
    const { peer } = await serving(relay);
    peer.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'first' } });
    peer.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'second' } });
    expect(await peer.nextMatching(byId(7))).toMatchObject({ error: { code: -32600 } });
    expect(relay.started.map(({ params }) => params)).toEqual([{ name: 'first' }]);
    relay.started[0]!.sink.next({ content: [] });
    relay.started[0]!.sink.complete();
    expect(await peer.nextMatching(byId(7))).toMatchObject({ result: { content: [] } });
  });

  it('answered while it is being started, keeps nothing to cancel', async () => {
    const relay = new HeldRelay();
    relay.answerAtOnce = { content: [{ type: 'text', text: 'at once' }] };
    const { peer, connection } = await serving(relay);
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ result: { content: [{ text: 'at once' }] } });
    expect(connection.inFlightRequests).toBe(0);
    connection.close();
    expect(relay.cancelled).toBe(0);
  });

  it('is checked as any request first: an undeclared capability is -32601 and nothing is relayed', async () => {
    const relay = new HeldRelay();
    const { peer } = await serving(relay, { capabilities: {} });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ error: { code: -32601 } });
    expect(relay.started).toEqual([]);
  });
});

describe('a relayed request behind a proxy’s middleware that decides at once', () => {
  it('is relayed once admitted, holds its place until answered, and a refused one reaches neither', async () => {
    // A relay that cannot say beforehand what it takes: each call is dispatched, then relayed.
    expect(await twoUnderALimitOfOne(new HeldRelay())).toEqual({ handled: [], dispatched: 3 });
  });
});

/**
 * Three calls under a concurrency limit of one, the second while the first is relayed: the second is
 * refused, the first answered, the third relayed after it. What the handler got, and how many of
 * the calls the dispatcher ran.
 */
async function twoUnderALimitOfOne(relay: HeldRelay): Promise<{ handled: unknown[]; dispatched: number }> {
  const dispatch = jest.spyOn(Dispatcher.prototype, 'dispatch');
  const { peer, handled } = await serving(relay, { middleware: [concurrencyLimit({ limit: 1 })] });
  peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'first' } });
  peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'second' } });
  expect(await peer.nextMatching(byId(2))).toMatchObject({ error: { code: -32029, data: { name: 'concurrent' } } });
  expect(relay.started.map(({ params }) => params)).toEqual([{ name: 'first' }]);
  relay.started[0]!.sink.next({ content: [] });
  relay.started[0]!.sink.complete();
  expect(await peer.nextMatching(byId(1))).toMatchObject({ result: { content: [] } });
  peer.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'third' } });
  await settle();
  expect(relay.started.map(({ params }) => params)).toEqual([{ name: 'first' }, { name: 'third' }]);
  const dispatched = dispatch.mock.calls.filter(([request]) => request.method === 'tools/call').length;
  return { handled, dispatched };
}

describe('a request admitted on the relay’s own path (a relay that accepts beforehand)', () => {
  it('is admitted and relayed with no handler dispatched, refused ones reach neither, and holds end with the answer', async () => {
    expect(await twoUnderALimitOfOne(new AcceptingRelay())).toEqual({ handled: [], dispatched: 0 });
  });

  it('is asked once whether it takes the request, and its start is told it did', async () => {
    const relay = new AcceptingRelay();
    relay.answerAtOnce = { content: [] };
    const { peer } = await serving(relay, { middleware: [concurrencyLimit({ limit: 1 })] });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ result: { content: [] } });
    expect([relay.asked, relay.told]).toEqual([1, [true]]);
  });

  it('cancelled, cancels the call sent on, aborts the context the middleware saw, and frees its place', async () => {
    const relay = new AcceptingRelay();
    const signals: AbortSignal[] = [];
    const seen = concurrencyLimit({
      limit: 1,
      when: (_request, context) => {
        signals.push(context.signal);
        return true;
      },
    });
    const { peer } = await serving(relay, { middleware: [seen] });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'long' } });
    await settle();
    expect(relay.started).toHaveLength(1);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await settle();
    expect(relay.cancelled).toBe(1);
    expect(signals[0]!.aborted).toBe(true);
    relay.answerAtOnce = { content: [{ type: 'text', text: 'next' }] };
    peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'next' } });
    expect(await peer.nextMatching(byId(2))).toMatchObject({ result: { content: [{ text: 'next' }] } });
  });

  it('declined beforehand, goes to its handler and is counted once', async () => {
    const relay = new AcceptingRelay();
    relay.declines = (params) => params.name === 'mine';
    const { peer, handled } = await serving(relay, {
      middleware: [rateLimit({ limit: 2, windowMs: 60_000 })],
    });
    for (const id of [1, 2]) peer.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'mine' } });
    expect(await peer.nextMatching(byId(2))).toMatchObject({ result: { content: [{ text: 'from the handler' }] } });
    peer.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'mine' } });
    expect(await peer.nextMatching(byId(3))).toMatchObject({ error: { code: -32029 } });
    expect(handled).toHaveLength(2);
    expect(relay.started).toEqual([]);
  });

  it('sent on as streams by its middleware (a filtered listing), reads the handler’s events and result', async () => {
    const relay = new AcceptingRelay();
    const { peer, handled } = await serving(relay, {
      capabilities: { tools: {} },
      methods: ['tools/list'],
      middleware: [toolPolicy({ tools: { secret: { scopes: ['admin'] } } })],
      output: () => of(progress(1, 2), { tools: [{ name: 'open' }, { name: 'secret' }] }),
    });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: 'p' } } });
    expect(await peer.nextMatching((frame) => frame.method === 'notifications/progress')).toMatchObject({
      params: { progressToken: 'p', progress: 1, total: 2 },
    });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ result: { tools: [{ name: 'open' }] } });
    expect(handled).toHaveLength(1);
    expect(relay.started).toEqual([]);
  });

  it('fails with -32603 and frees its place when the relay declines what it accepted', async () => {
    const relay = new AcceptingRelay();
    relay.breaksWord = true;
    const { peer } = await serving(relay, { middleware: [concurrencyLimit({ limit: 1 })] });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ error: { code: -32603 } });
    relay.breaksWord = false;
    relay.answerAtOnce = { content: [] };
    peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'b' } });
    expect(await peer.nextMatching(byId(2))).toMatchObject({ result: { content: [] } });
  });
});
