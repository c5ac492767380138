import { firstValueFrom } from 'rxjs';
import { createConnection } from '../../lib/connection/create-connection';
import type { Connection } from '../../lib/connection/connection';
import { DeferredOutput, passParamsThrough } from '../../lib/connection/dispatcher';
import type { HandlerResult, OutputSink, RequestHandler } from '../../lib/connection/dispatcher';
import { progress } from '../../lib/connection/handler-events';
import { JsonRpcError, ProtocolError } from '../../lib/jsonrpc/errors';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { rawPeer } from '../support/raw-peer';
import type { RawPeer } from '../support/raw-peer';

// The paths a proxy forwards requests on: handler outputs that answer through a sink
// (DeferredOutput), handlers whose params the next hop checks (passParamsThrough), requests whose
// results the caller checks (checkResult: false), and Connection.startRequest.

/** A deferred output that hands its sink to the test, and records whether it was cancelled. */
class Held extends DeferredOutput {
  sink: OutputSink<HandlerResult> | undefined;
  cancelled = 0;
  start(sink: OutputSink<HandlerResult>) {
    this.sink = sink;
    return { unsubscribe: () => void this.cancelled++ };
  }
}

async function serving(handlers: Record<string, RequestHandler>): Promise<{ peer: RawPeer; connection: Connection }> {
  const [clientSide, serverSide] = createInMemoryPair();
  const connection = createConnection({
    transport: serverSide,
    role: 'server',
    info: { name: 's', version: '1' },
    capabilities: () => ({ tools: {}, prompts: {} }),
    handlers,
  });
  const peer = rawPeer(clientSide);
  await peer.initialize('2025-11-25');
  return { peer, connection };
}

const byId = (id: unknown) => (frame: Record<string, unknown>) => frame.id === id;

describe('a handler answering through a sink (DeferredOutput)', () => {
  it('answers with the last value, after passing its progress on under the caller token', async () => {
    const held = new Held();
    const { peer } = await serving({ 'tools/call': () => held });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', _meta: { progressToken: 'p' } } });
    await new Promise((resolve) => setImmediate(resolve));
    held.sink!.next(progress(1, 2));
    held.sink!.next({ content: [{ type: 'text', text: 'done' }] });
    held.sink!.complete();
    expect(await peer.nextMatching((f) => f.method === 'notifications/progress')).toMatchObject({
      params: { progressToken: 'p', progress: 1, total: 2 },
    });
    expect(await peer.nextMatching(byId(1))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'done' }] },
    });
    expect(held.cancelled).toBe(0);
  });

  it('answers an error given to the sink with its JSON-RPC code', async () => {
    const held = new Held();
    const { peer } = await serving({ 'tools/call': () => held });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } });
    await new Promise((resolve) => setImmediate(resolve));
    held.sink!.error(new JsonRpcError(-32002, 'gone'));
    expect(await peer.nextMatching(byId(1))).toMatchObject({ error: { code: -32002, message: 'gone' } });
  });

  it('is cancelled by notifications/cancelled and by the connection closing, and then sends nothing', async () => {
    const first = new Held();
    const second = new Held();
    const outputs = [first, second];
    const { peer, connection } = await serving({ 'tools/call': () => outputs.shift()! });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } });
    peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 't' } });
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    peer.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await peer.nextMatching(byId(3));
    expect([first.cancelled, second.cancelled]).toEqual([1, 0]);
    first.sink!.next({ late: true });
    first.sink!.complete();
    connection.close();
    expect(second.cancelled).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(peer.received.some((f) => (f as { id?: unknown }).id === 1)).toBe(false);
  });
});

describe('passParamsThrough', () => {
  it('hands a marked handler params the session would refuse; an unmarked one gets -32602', async () => {
    const seen: unknown[] = [];
    const { peer } = await serving({
      'tools/call': passParamsThrough((params) => {
        seen.push(params);
        return { content: [] };
      }),
      'prompts/get': () => ({ messages: [] }),
    });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 42 } });
    expect(await peer.nextMatching(byId(1))).toMatchObject({ result: { content: [] } });
    expect(seen).toEqual([{ name: 42 }]);
    peer.send({ jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 42 } });
    expect(await peer.nextMatching(byId(2))).toMatchObject({ error: { code: -32602 } });
  });
});

describe('requests whose results the caller checks', () => {
  async function clientWith(answer: Record<string, unknown>): Promise<Connection> {
    const [clientSide, serverSide] = createInMemoryPair();
    createConnection({
      transport: serverSide,
      role: 'server',
      info: { name: 's', version: '1' },
      capabilities: () => ({ tools: {} }),
      handlers: { 'tools/call': () => answer },
    });
    const client = createConnection({ transport: clientSide, role: 'client', info: { name: 'c', version: '1' } });
    await firstValueFrom(client.initialize());
    return client;
  }

  it('refuses an invalid result by default, and passes it on as sent with checkResult: false', async () => {
    const invalid = { content: 'not a list' };
    const client = await clientWith(invalid);
    await expect(firstValueFrom(client.request('tools/call', { name: 't' }))).rejects.toBeInstanceOf(ProtocolError);
    await expect(firstValueFrom(client.request('tools/call', { name: 't' }, { checkResult: false }))).resolves.toEqual(
      invalid,
    );
  });

  it('startRequest delivers the result to a sink, and its handle cancels a request in flight', async () => {
    const [clientSide, serverSide] = createInMemoryPair();
    const server = rawPeer(serverSide);
    const client = createConnection({ transport: clientSide, role: 'client', info: { name: 'c', version: '1' } });
    const handshake = firstValueFrom(client.initialize());
    const init = await server.nextMatching((f) => f.method === 'initialize');
    server.send({
      jsonrpc: '2.0',
      id: init.id,
      result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
    });
    await handshake;
    const events: unknown[] = [];
    const sink = {
      next: (value: unknown) => void events.push(value),
      error: (error: unknown) => void events.push(error),
      complete: () => void events.push('complete'),
    };
    client.startRequest('tools/call', { name: 'a' }, {}, sink);
    const first = await server.nextMatching((f) => f.method === 'tools/call');
    server.send({ jsonrpc: '2.0', id: first.id, result: { content: [] } });
    const handle = client.startRequest('tools/call', { name: 'b' }, {}, sink);
    const second = await server.nextMatching((f) => f.method === 'tools/call');
    handle!.unsubscribe();
    expect(await server.nextMatching((f) => f.method === 'notifications/cancelled')).toMatchObject({
      params: { requestId: second.id },
    });
    expect(events).toEqual([{ content: [] }, 'complete']);
    expect(client.pendingRequests).toBe(0);
  });
});
