/**
 * The official TypeScript SDK 1.32 under test, configured as its documentation shows. In memory the
 * server runs in this process; over every other transport it runs in a child process
 * (servers/official-server.ts), as users deploy one.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema, SubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as HttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as InMemoryModule from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type * as BenchServer from '../servers/official-server';
import { startServerProcess } from '../servers/process';
import type { CallHarness, CallTransport, Implementation } from '../workload';
import { createDeliveryCounter } from './fan-out-counter';

// A transport's module and the in-memory server are loaded by the rows that use them, as a user's
// program loads only what it uses: a cold process (cold-client.ts) counts what it loads.
/* eslint-disable @typescript-eslint/no-require-imports */
const stdioModule = () => require('@modelcontextprotocol/sdk/client/stdio.js') as typeof StdioModule;
const httpModule = () => require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof HttpModule;
const inMemoryModule = () => require('@modelcontextprotocol/sdk/inMemory.js') as typeof InMemoryModule;
const benchServer = () => require('../servers/official-server') as typeof BenchServer;
/* eslint-enable @typescript-eslint/no-require-imports */

const WATCHED_URI = 'bench://watched';

const CLIENT_INFO = { name: 'bench-client', version: '1.0.0' };

const SERVER_SCRIPT = join(__dirname, '../servers/official-server.js');

/** The server script's mode for each HTTP transport. */
const HTTP_MODES: Partial<Record<CallTransport, string>> = {
  'http-stateful': '--http=stateful',
  'http-stateless': '--http=stateless',
};

/** How many clients of {@link official.sessions} connect at once. */
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
async function httpClient(url: string): Promise<Client> {
  const { StreamableHTTPClientTransport } = httpModule();
  const client = new Client(CLIENT_INFO);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** `count` clients of `url`, {@link CONNECTING_AT_ONCE} connecting at a time; none left open on failure. */
async function httpClients(url: string, count: number): Promise<Client[]> {
  const clients: Client[] = [];
  for (let i = 0; i < count; i += CONNECTING_AT_ONCE) {
    const batch = Array.from({ length: Math.min(CONNECTING_AT_ONCE, count - i) }, () => httpClient(url));
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
  if (!mode) throw new Error(`official: no ${transport} server`);
  const running = await startServerProcess(SERVER_SCRIPT, [mode], nodeArgs);
  try {
    return harness(await httpClients(running.url, count), running.stop);
  } catch (error) {
    await running.stop();
    throw error;
  }
}

/** One McpServer and client connected in memory (the SDK binds a server object to one transport). */
async function inMemoryClient(given?: McpServer): Promise<Client> {
  const { InMemoryTransport } = inMemoryModule();
  const { createOfficialBenchServer } = benchServer();
  const server = given ?? createOfficialBenchServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(CLIENT_INFO);
  await client.connect(clientSide);
  return client;
}

export const official: Implementation = {
  name: 'official',
  transports: ['in-memory', 'stdio', 'http-stateful', 'http-stateless'],
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
    // One McpServer per client (the SDK binds a server object to one transport); the
    // subscriptions are tracked by hand, as the SDK leaves that to the user.
    const { createOfficialBenchServer } = benchServer();
    const counter = createDeliveryCounter();
    const subscribed = new Set<McpServer>();
    const clients: Client[] = [];
    for (let i = 0; i < count; i++) {
      const server = createOfficialBenchServer();
      server.registerResource('watched', WATCHED_URI, {}, async () => ({
        contents: [{ uri: WATCHED_URI, text: 'watched' }],
      }));
      server.server.registerCapabilities({ resources: { subscribe: true } });
      server.server.setRequestHandler(SubscribeRequestSchema, async () => {
        subscribed.add(server);
        return {};
      });
      const client = await inMemoryClient(server);
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => counter.delivered());
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
      // McpServer.connect throws "Already connected to a transport ... use a separate Protocol
      // instance per connection" on its second transport.
      throw new Error('official: an McpServer serves one transport, so one server cannot hold many sessions');
    }
    if (protocolVersion === '2026-07-28') throw new Error('official: SDK 1.32 does not speak 2026-07-28');
    const clients: Client[] = [];
    for (let i = 0; i < count; i++) clients.push(await inMemoryClient());
    return {
      close: async () => {
        for (const client of clients) await client.close();
      },
    };
  },
};
