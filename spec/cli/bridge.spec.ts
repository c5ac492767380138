import { firstValueFrom, Subject, take, toArray } from 'rxjs';
import { bridge } from '../../lib/cli/bridge';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { MalformedFrame } from '../../lib/transport/transport';
import type { Transport, TransportClose } from '../../lib/transport/transport';

/** A transport whose incoming frames the test pushes, recording what is sent and the revision it is told. */
function scriptedTransport() {
  const incoming = new Subject<unknown>();
  const closed = new Subject<TransportClose>();
  const sent: unknown[] = [];
  const revisions: string[] = [];
  const transport: Transport = {
    incoming$: incoming.asObservable(),
    closed$: closed.asObservable(),
    send: (message) => void sent.push(message),
    close: (reason = 'closed locally') => {
      closed.next({ reason });
      closed.complete();
      incoming.complete();
    },
    setProtocolVersion: (revision) => void revisions.push(revision),
  };
  return { transport, incoming, closed, sent, revisions };
}

describe('bridge', () => {
  it('passes requests, notifications and responses both ways, batches whole', async () => {
    const [clientSide, clientEnd] = createInMemoryPair();
    const [serverEnd, serverSide] = createInMemoryPair();
    const running = bridge(clientEnd, serverEnd);
    const atServer = firstValueFrom(serverSide.incoming$.pipe(take(3), toArray()));
    const atClient = firstValueFrom(clientSide.incoming$.pipe(take(3), toArray()));
    clientSide.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    clientSide.send([{ jsonrpc: '2.0', id: 'r', result: { roots: [] } }]);
    serverSide.send({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    serverSide.send({ jsonrpc: '2.0', id: 's1', method: 'roots/list' });
    serverSide.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    expect(await atServer).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [{ jsonrpc: '2.0', id: 'r', result: { roots: [] } }],
    ]);
    expect(await atClient).toEqual([
      { jsonrpc: '2.0', id: 1, result: { tools: [] } },
      { jsonrpc: '2.0', id: 's1', method: 'roots/list' },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
    ]);
    running.close();
    await running.ended;
  });

  it('tells the server transport the revision of the initialize answer, and no other result', () => {
    const client = scriptedTransport();
    const server = scriptedTransport();
    bridge(client.transport, server.transport);
    client.incoming.next({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    server.incoming.next({ jsonrpc: '2.0', id: 8, result: { protocolVersion: 'not-this' } });
    server.incoming.next({ jsonrpc: '2.0', id: 7, result: { protocolVersion: '2025-06-18', capabilities: {} } });
    expect(server.revisions).toEqual(['2025-06-18']);
    expect(client.sent).toHaveLength(2);
  });

  it('holds the client’s frames while its initialize awaits an answer, then sends them in order', () => {
    const client = scriptedTransport();
    const server = scriptedTransport();
    bridge(client.transport, server.transport);
    client.incoming.next({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    client.incoming.next({ jsonrpc: '2.0', method: 'notifications/initialized' });
    client.incoming.next({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(server.sent).toEqual([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }]);
    server.incoming.next({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'unsupported' } });
    expect(server.sent).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    expect(client.sent).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'unsupported' } }]);
  });

  it('answers a frame that is not JSON with a parse error and sends nothing on', () => {
    const client = scriptedTransport();
    const server = scriptedTransport();
    bridge(client.transport, server.transport);
    client.incoming.next(new MalformedFrame('{nope', 'Unexpected token'));
    expect(server.sent).toEqual([]);
    expect(client.sent).toEqual([{ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) }]);
  });

  it('closes the other side when one closes, and says which', async () => {
    const client = scriptedTransport();
    const server = scriptedTransport();
    const serverClosed = firstValueFrom(server.transport.closed$);
    const running = bridge(client.transport, server.transport);
    client.transport.close('stdin ended');
    await expect(running.ended).resolves.toEqual({ side: 'client', close: { reason: 'stdin ended' } });
    await expect(serverClosed).resolves.toEqual({ reason: 'client closed: stdin ended' });
  });
});

/** A bridge (drain 1 s) whose client sent a request, then closed; `ended()` says whether it has ended. */
function closedWithRequestInFlight() {
  const client = scriptedTransport();
  const server = scriptedTransport();
  const running = bridge(client.transport, server.transport, 1000);
  let ended = false;
  void running.ended.then(() => (ended = true));
  client.incoming.next({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  client.transport.close('stdin ended');
  return { server, running, ended: () => ended };
}

describe('bridge, when the client closes with requests in flight', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('ends on the server’s side, with its error, when the server fails before answering', async () => {
    const client = scriptedTransport();
    const server = scriptedTransport();
    const running = bridge(client.transport, server.transport, 1000);
    client.incoming.next({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    client.transport.close('stdin ended');
    const error = new Error('connect ECONNREFUSED');
    server.closed.next({ reason: 'POST failed', error });
    const end = await running.ended;
    expect(end).toMatchObject({ side: 'server', close: { reason: 'POST failed', error } });
  });

  it('ends on the client’s side once every request is answered, and waits no longer than the drain', async () => {
    const { server, running, ended } = closedWithRequestInFlight();
    await jest.advanceTimersByTimeAsync(500);
    expect(ended()).toBe(false);
    server.incoming.next({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    await jest.advanceTimersByTimeAsync(0);
    expect(ended()).toBe(true);
    expect(await running.ended).toMatchObject({ side: 'client' });
  });

  it('gives up waiting after the drain, ending on the client’s side', async () => {
    const { running, ended } = closedWithRequestInFlight();
    await jest.advanceTimersByTimeAsync(999);
    expect(ended()).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await running.ended).toMatchObject({ side: 'client' });
  });
});
