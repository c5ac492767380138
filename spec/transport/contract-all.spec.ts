import { once } from 'node:events';
import { firstValueFrom } from 'rxjs';
import { notification, request, resultResponse } from '../../lib/jsonrpc/message';
import { createHttpSseClientTransport } from '../../lib/transport/http-client/http-sse/http-sse-client-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { Transport } from '../../lib/transport/transport';
import { startWebSocketServer } from '../../lib/transport/websocket/websocket-server';
import { MCP_SUBPROTOCOL, wrapWebSocket } from '../../lib/transport/websocket/websocket-transport';
import WebSocket from 'ws';
import { describeTransportContract, nextFrames } from './contract';
import type { TransportPair } from './contract';

// The shared contract over the network transports. The in-memory pair and stdio run it in their
// own spec files (in-memory.spec.ts, stdio.spec.ts).

/** Runs the MCP handshake by hand so that the transports are past it when the contract starts. */
async function handshake(client: Transport, server: Promise<Transport>): Promise<Transport> {
  client.send(
    request('handshake', 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    }),
  );
  const serverSide = await server;
  await nextFrames(serverSide.incoming$, 1);
  serverSide.send(
    resultResponse('handshake', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      serverInfo: { name: 's', version: '1' },
    }),
  );
  await nextFrames(client.incoming$, 1);
  client.send(notification('notifications/initialized'));
  await nextFrames(serverSide.incoming$, 1);
  return serverSide;
}

const deferred = <T>(): { promise: Promise<T>; resolve: (value: T) => void } => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describeTransportContract(
  'Streamable HTTP (legacy)',
  async (): Promise<TransportPair> => {
    const session = deferred<Transport>();
    const running = await startStreamableHttpServer({ retryMs: 20, onSession: (t) => session.resolve(t) });
    // A session the server ends is one the client would start again (`reinitialize`, on by default,
    // as the spec asks of a 404); the contract is about one session closing, so it stays off here.
    const client = createStreamableHttpClientTransport({
      url: running.url,
      reconnect: { initialDelayMs: 20 },
      reinitialize: false,
    });
    const server = await handshake(client, session.promise);
    return {
      client,
      server,
      cleanup: async () => {
        client.close();
        await firstValueFrom(client.closed$);
        await running.close();
      },
    };
  },
  { unordered: true },
);

describeTransportContract(
  'HTTP+SSE (2024-11-05)',
  async (): Promise<TransportPair> => {
    const session = deferred<Transport>();
    const running = await startStreamableHttpServer({ httpSse: true, onSession: (t) => session.resolve(t) });
    const client = createHttpSseClientTransport({ url: new URL('/sse', running.url) });
    const server = await session.promise;
    return {
      client,
      server,
      cleanup: async () => {
        client.close();
        await running.close();
      },
    };
  },
  { unordered: true },
);

describeTransportContract(
  'WebSocket',
  async (): Promise<TransportPair> => {
    const session = deferred<Transport>();
    const running = await startWebSocketServer({ onSession: (t) => session.resolve(t) });
    const socket = new WebSocket(running.url, [MCP_SUBPROTOCOL]);
    const client = wrapWebSocket(socket, { side: 'client' });
    const server = await session.promise;
    if (socket.readyState === WebSocket.CONNECTING) await once(socket, 'open');
    return {
      client,
      server,
      // One text frame per message: the newline that ends an injected line is not part of it.
      injectRaw: { toServer: (text) => socket.send(text.replace(/\n$/, '')) },
      cleanup: async () => {
        client.close();
        await running.close();
      },
    };
  },
  { textFraming: true },
);

// Modern Streamable HTTP has no channel for messages that belong to no request, so the shared
// suite (which sends unsolicited messages both ways) does not apply. This is its request-scoped
// counterpart: each POST gets a fresh server transport, answers travel back on it, and nothing
// outlives the request.
describe('Streamable HTTP (sessionless) (request-scoped contract)', () => {
  const open = new Set<Transport>();
  const delivered: unknown[] = [];
  let running: Awaited<ReturnType<typeof startStreamableHttpServer>> | undefined;
  let client: Transport | undefined;

  /** Serves each request with `answer`, which may also send related messages first. */
  async function start(answer: (message: Record<string, unknown>, transport: Transport) => void): Promise<Transport> {
    running = await startStreamableHttpServer({
      sessionless: true,
      onSession: (transport) => {
        open.add(transport);
        transport.closed$.subscribe(() => open.delete(transport));
        transport.incoming$.subscribe((frame) => {
          const list = (Array.isArray(frame) ? frame : [frame]) as Array<Record<string, unknown>>;
          // The synthetic handshake that precedes each request is the server connection's business.
          if (list.some((m) => m.method === 'initialize' || m.method === 'notifications/initialized')) return;
          delivered.push(frame);
          if (Array.isArray(frame))
            transport.send(list.filter((m) => 'id' in m).map((m) => resultResponse(m.id as number, { batch: true })));
          else answer(frame as Record<string, unknown>, transport);
        });
      },
    });
    client = createStreamableHttpClientTransport({ url: running.url });
    return client;
  }

  afterEach(async () => {
    client?.close();
    if (client) await firstValueFrom(client.closed$);
    await running?.close();
    client = running = undefined;
    delivered.length = 0;
  });

  const echo = (message: Record<string, unknown>, transport: Transport): void => {
    if (!('id' in message)) return;
    const id = message.id as number;
    transport.send(notification('notifications/progress', { progressToken: id, progress: 1 }), {
      relatedRequestId: id,
    });
    transport.send(resultResponse(id, { echo: message.params ?? {} }));
  };

  it('answers each request on its own stream, with the messages related to it first', async () => {
    const c = await start(echo);
    const frames = nextFrames(c.incoming$, 4);
    c.send(request(1, 'a', { x: 1 }));
    c.send(request(2, 'b'));
    const received = (await frames) as Array<Record<string, unknown>>;
    for (const id of [1, 2]) {
      const mine = received.filter(
        (m) => m.id === id || (m.params as { progressToken?: number } | undefined)?.progressToken === id,
      );
      expect(mine.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'result']);
    }
  });

  it('answers a batch with a batch', async () => {
    const c = await start(echo);
    const frames = nextFrames(c.incoming$, 1);
    c.send([request(1, 'a'), request(2, 'b')]);
    expect(await frames).toEqual([[resultResponse(1, { batch: true }), resultResponse(2, { batch: true })]]);
  });

  it('serves 100 concurrent requests and a 3 MB answer, keeping no transport afterwards', async () => {
    const big = 'é\u{1F389}"\n'.repeat(600_000);
    const c = await start((message, transport) => {
      const id = message.id as number;
      transport.send(resultResponse(id, id === 999 ? { big } : { ok: id }));
    });
    const frames = nextFrames(c.incoming$, 101);
    for (let i = 0; i < 100; i++) c.send(request(i, 'burst'));
    c.send(request(999, 'big'));
    const received = (await frames) as Array<{ id: number; result: Record<string, unknown> }>;
    expect(received.map((m) => m.id).sort((a, b) => a - b)).toEqual([...Array.from({ length: 100 }, (_, i) => i), 999]);
    expect(received.find((m) => m.id === 999)?.result.big).toBe(big);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(open.size).toBe(0);
  });

  it('accepts notifications with 202 and closes their transport at once', async () => {
    const c = await start(echo);
    c.send(notification('hello'));
    for (let i = 0; i < 100 && delivered.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(delivered).toEqual([notification('hello')]);
    // Closed as soon as the 202 is written: a loaded machine may take a few turns to get there.
    for (let i = 0; i < 100 && open.size > 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(open.size).toBe(0);
  });
});
