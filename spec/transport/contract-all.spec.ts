import { once } from 'node:events';
import { firstValueFrom } from 'rxjs';
import { notification, request, resultResponse } from '../../lib/jsonrpc/message';
import { createLegacySseClientTransport } from '../../lib/transport/legacy-sse/legacy-sse-client-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/streamable-http/streamable-http-server';
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
  client.send(request('handshake', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }));
  const serverSide = await server;
  await nextFrames(serverSide.incoming$, 1);
  serverSide.send(resultResponse('handshake', { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } }));
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
  'Streamable HTTP (stateful)',
  async (): Promise<TransportPair> => {
    const session = deferred<Transport>();
    const running = await startStreamableHttpServer({ retryMs: 20, onSession: (t) => session.resolve(t) });
    const client = createStreamableHttpClientTransport({ url: running.url, reconnect: { initialDelayMs: 20 } });
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
    const running = await startStreamableHttpServer({ legacySse: true, onSession: (t) => session.resolve(t) });
    const client = createLegacySseClientTransport({ url: new URL('/sse', running.url) });
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
