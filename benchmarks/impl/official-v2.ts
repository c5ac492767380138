/**
 * The official TypeScript SDK v2 (2.4) under test, set up as its packages' documentation shows,
 * default options. In memory: its `InMemoryTransport` linked pair, the server in this process. Over
 * every other transport the server runs in a child process (servers/official-v2-server.ts): over
 * stdio its `StdioServerTransport` (client: `StdioClientTransport`), over Streamable HTTP stateful
 * sessions, the stateless fallback of `createMcpHandler` and its 2026-07-28 serving. The client is
 * v2's `Client`: with its default version negotiation (`'legacy'`: the 2025 `initialize` handshake)
 * on every row but `http-2026`, where it is pinned to 2026-07-28.
 */
import { join } from 'node:path';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ClientOptions } from '@modelcontextprotocol/client';
import type * as StdioModule from '@modelcontextprotocol/client/stdio';
import type { McpServer } from '@modelcontextprotocol/server';
import type * as ServerStdioModule from '@modelcontextprotocol/server/stdio';
import type * as BenchServer from '../servers/official-v2-server';
import { startServerProcess } from '../servers/process';
import type { CallHarness, CallTransport, Implementation } from '../workload';
import { createDeliveryCounter } from './fan-out-counter';

// The stdio client's module and the in-memory server are loaded by the rows that use them, as a
// user's program loads only what it uses: a cold process (cold-client.ts) counts what it loads.
/* eslint-disable @typescript-eslint/no-require-imports */
const stdioModule = () => require('@modelcontextprotocol/client/stdio') as typeof StdioModule;
const benchServer = () => require('../servers/official-v2-server') as typeof BenchServer;
const serverStdioModule = () => require('@modelcontextprotocol/server/stdio') as typeof ServerStdioModule;
/* eslint-enable @typescript-eslint/no-require-imports */

const WATCHED_URI = 'bench://watched';

const CLIENT_INFO = { name: 'bench-client', version: '1.0.0' };

/** A client of the stateless 2026-07-28 revision only (no handshake). */
const PINNED_2026: ClientOptions = { versionNegotiation: { mode: { pin: '2026-07-28' } } };

const SERVER_SCRIPT = join(__dirname, '../servers/official-v2-server.js');

/** The server script's mode for each HTTP transport. */
const HTTP_MODES: Partial<Record<CallTransport, string>> = {
  'http-stateful': '--http=stateful',
  'http-stateless': '--http=stateless',
  'http-2026': '--http=2026',
};

/** How many clients of {@link officialV2.sessions} connect at once. */
const CONNECTING_AT_ONCE = 16;

/** Calls go to each client in turn; closing closes every client, then stops the server (if any). */
function harness(clients: readonly Client[], stop?: () => Promise<void>): CallHarness {
  let next = 0;
  const client = () => clients[next++ % clients.length]!;
  return {
    call: () => client().callTool({ name: 'echo', arguments: { text: 'hello' } }),
    callLarge: () => client().callTool({ name: 'large', arguments: {} }),
    close: async () => {
      try {
        await Promise.allSettled(clients.map((c) => c.close()));
      } finally {
        await stop?.();
      }
    },
  };
}

/** A client of the Streamable HTTP endpoint at `url`, connected (a session, if the server keeps them). */
async function httpClient(url: string, options?: ClientOptions): Promise<Client> {
  const client = new Client(CLIENT_INFO, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** `count` clients of `url`, {@link CONNECTING_AT_ONCE} connecting at a time; none left open on failure. */
async function httpClients(url: string, count: number, options?: ClientOptions): Promise<Client[]> {
  const clients: Client[] = [];
  for (let i = 0; i < count; i += CONNECTING_AT_ONCE) {
    const batch = Array.from({ length: Math.min(CONNECTING_AT_ONCE, count - i) }, () => httpClient(url, options));
    const settled = await Promise.allSettled(batch);
    for (const outcome of settled) if (outcome.status === 'fulfilled') clients.push(outcome.value);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) {
      await Promise.allSettled(clients.map((c) => c.close()));
      throw failed.reason;
    }
  }
  return clients;
}

/** Starts the server script over `transport` (an HTTP one) and connects `count` clients to it. */
async function serveHttp(transport: CallTransport, count: number, nodeArgs?: readonly string[]): Promise<CallHarness> {
  const mode = HTTP_MODES[transport];
  if (!mode) throw new Error(`official-v2: no ${transport} server`);
  const running = await startServerProcess(SERVER_SCRIPT, [mode], nodeArgs);
  try {
    const options = transport === 'http-2026' ? PINNED_2026 : undefined;
    return harness(await httpClients(running.url, count, options), running.stop);
  } catch (error) {
    await running.stop();
    throw error;
  }
}

/** One McpServer and client connected in memory (v2 binds a server object to one transport too). */
async function inMemoryClient(given?: McpServer): Promise<Client> {
  const { createOfficialV2BenchServer } = benchServer();
  const server = given ?? createOfficialV2BenchServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(CLIENT_INFO);
  await client.connect(clientSide);
  return client;
}

/**
 * A 2026-07-28 connection in memory. An McpServer connected to a transport by hand answers only the
 * 2025 handshake (a pinned client's `server/discover` finds no 2026-07-28 there); v2 serves the
 * revision on a connection through `serveStdio`, which takes a transport of one's own (its
 * `transport` option) and pins an instance from the factory to it.
 */
async function modernInMemoryClient(): Promise<Client> {
  const { serveStdio } = serverStdioModule();
  const { createOfficialV2BenchServer } = benchServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serveStdio(() => createOfficialV2BenchServer(), { transport: serverSide });
  const client = new Client(CLIENT_INFO, PINNED_2026);
  await client.connect(clientSide);
  return client;
}

export const officialV2: Implementation = {
  name: 'official-v2',
  transports: ['in-memory', 'stdio', 'http-stateful', 'http-stateless', 'http-2026'],
  async connect(kind, options) {
    if (kind === 'in-memory') return harness([await inMemoryClient()]);
    if (kind === 'stdio') {
      const { StdioClientTransport } = stdioModule();
      const client = new Client(CLIENT_INFO);
      const args = [...(options?.nodeArgs ?? []), SERVER_SCRIPT, '--stdio'];
      await client.connect(new StdioClientTransport({ command: process.execPath, args }));
      return harness([client]);
    }
    return serveHttp(kind, 1, options?.nodeArgs);
  },
  sessions(kind, count) {
    return serveHttp(kind, count);
  },
  async fanOut(count) {
    // As with 1.32: one McpServer per client, the subscriptions tracked by hand.
    const { createOfficialV2BenchServer } = benchServer();
    const counter = createDeliveryCounter();
    const subscribed = new Set<McpServer>();
    const clients: Client[] = [];
    for (let i = 0; i < count; i++) {
      const server = createOfficialV2BenchServer();
      server.registerResource('watched', WATCHED_URI, {}, async () => ({
        contents: [{ uri: WATCHED_URI, text: 'watched' }],
      }));
      server.server.registerCapabilities({ resources: { subscribe: true } });
      server.server.setRequestHandler('resources/subscribe', async () => {
        subscribed.add(server);
        return {};
      });
      const client = await inMemoryClient(server);
      client.setNotificationHandler('notifications/resources/updated', () => counter.delivered());
      await client.subscribeResource({ uri: WATCHED_URI });
      clients.push(client);
    }
    return {
      publish: async (updates) => {
        const all = counter.expect(updates * count);
        for (let u = 0; u < updates; u++) {
          for (const server of subscribed) void server.server.sendResourceUpdated({ uri: WATCHED_URI });
        }
        await all;
      },
      close: async () => {
        for (const client of clients) await client.close();
      },
    };
  },
  async idleSessions(count, { server: serving, protocolVersion }) {
    if (serving === 'shared') {
      // McpServer.connect throws "Use a separate Server instance per connection" on its second
      // transport; v2's serving entries (createMcpHandler, serveStdio) build one from a factory per
      // request or connection as well.
      throw new Error('official-v2: an McpServer serves one transport, so one server cannot hold many sessions');
    }
    const open = protocolVersion === '2026-07-28' ? modernInMemoryClient : () => inMemoryClient();
    const clients: Client[] = [];
    for (let i = 0; i < count; i++) clients.push(await open());
    return {
      close: async () => {
        for (const client of clients) await client.close();
      },
    };
  },
};
