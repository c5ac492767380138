/** rxmcp under test: its public API only, configured as a user gets it by default. */
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import {
  connect,
  createInMemoryPair,
  createStdioClientTransport,
  createStreamableHttpClientTransport,
  startStreamableHttpServer,
} from '../../lib/index';
import type { McpClient, Transport } from '../../lib/index';
import { createBenchServer } from '../servers/rxmcp-server';
import type { CallHarness, Implementation } from '../workload';
import { createDeliveryCounter } from './fan-out-counter';

const WATCHED_URI = 'bench://watched';

const CLIENT_INFO = { name: 'bench-client', version: '1.0.0' };
const HANDSHAKE = { ...CLIENT_INFO, protocolVersion: '2025-11-25' } as const;

function harness(client: McpClient, stop?: () => Promise<void>): CallHarness {
  return {
    call: () => client.promises.callTool('echo', { text: 'hello' }),
    callLarge: () => client.promises.callTool('large'),
    close: async () => {
      const closed = firstValueFrom(client.connection.closed$);
      client.close();
      await closed;
      await stop?.();
    },
  };
}

export const rxmcp: Implementation = {
  name: 'rxmcp',
  transports: ['in-memory', 'stdio', 'http-stateful', 'http-stateless', 'http-2026'],
  // The official SDK 1.32 opens sessions of a handshake revision: so does rxmcp here, so that both
  // sides of a ratio speak the same protocol (the stateless revision has its own row, http-2026).
  async connect(kind, options) {
    let transport: Transport;
    if (kind === 'http-2026') {
      // One endpoint serving the stateless revision; the client pinned to it (as a 2026 client is).
      const running = await startStreamableHttpServer({ port: 0, server: createBenchServer() });
      const client = await connect(createStreamableHttpClientTransport({ url: running.url }), {
        ...CLIENT_INFO,
        protocolVersion: '2026-07-28',
      });
      return harness(client, () => running.close());
    }
    if (kind === 'http-stateful' || kind === 'http-stateless') {
      const server = createBenchServer();
      const running = await startStreamableHttpServer({
        port: 0,
        stateless: kind === 'http-stateless',
        onSession: (t) => void server.connect(t),
      });
      const client = await connect(createStreamableHttpClientTransport({ url: running.url }), HANDSHAKE);
      return harness(client, () => running.close());
    }
    if (kind === 'in-memory') {
      const [clientSide, serverSide] = createInMemoryPair();
      createBenchServer().connect(serverSide);
      transport = clientSide;
    } else if (kind === 'stdio') {
      transport = createStdioClientTransport({
        command: process.execPath,
        args: [...(options?.nodeArgs ?? []), join(__dirname, '../servers/rxmcp-server.js')],
      });
    } else {
      throw new Error(`rxmcp: no ${kind} harness yet`);
    }
    return harness(await connect(transport, HANDSHAKE));
  },
  async fanOut(count) {
    const server = createBenchServer();
    server.resource({ uri: WATCHED_URI, name: 'watched', text: 'watched' });
    const counter = createDeliveryCounter();
    const clients: McpClient[] = [];
    for (let i = 0; i < count; i++) {
      const [clientSide, serverSide] = createInMemoryPair();
      server.connect(serverSide);
      // Resource subscriptions belong to sessions (2026-07-28 has subscriptions/listen instead).
      const client = await connect(clientSide, { ...CLIENT_INFO, protocolVersion: '2025-11-25' });
      client.connection.notifications$.subscribe((n) => {
        if (n.method === 'notifications/resources/updated') counter.delivered();
      });
      await firstValueFrom(client.request('resources/subscribe', { uri: WATCHED_URI }));
      clients.push(client);
    }
    return {
      publish: async (updates) => {
        const all = counter.expect(updates * count);
        for (let u = 0; u < updates; u++) server.resourceUpdated(WATCHED_URI);
        await all;
      },
      close: async () => {
        for (const client of clients) client.close();
      },
    };
  },
  async idleSessions(count, { server: serving, protocolVersion = '2025-11-25' }) {
    // A session of the handshake family by default, as the official SDK 1.32 opens; 2026-07-28 holds
    // no session on the server (see the stateless rows).
    const shared = serving === 'shared' ? createBenchServer() : undefined;
    const clients: McpClient[] = [];
    for (let i = 0; i < count; i++) {
      const [clientSide, serverSide] = createInMemoryPair();
      (shared ?? createBenchServer()).connect(serverSide);
      clients.push(await connect(clientSide, { ...CLIENT_INFO, protocolVersion }));
    }
    return {
      close: async () => {
        for (const client of clients) client.close();
      },
    };
  },
};
