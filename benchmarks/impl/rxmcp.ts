/**
 * rxmcp under test: its public API only, configured as a user gets it by default. In memory the
 * server runs in this process; over stdio and Streamable HTTP in a child process
 * (servers/rxmcp-server.ts), as users deploy one.
 */
import { join } from 'node:path';
// The entries a user's client imports, not the root (which loads every role).
import { connect } from '../../lib/entries/client';
import type { McpClient } from '../../lib/entries/client';
import type { Observer } from '../../lib/rx/rxjs';
import type * as HttpClientEntry from '../../lib/entries/http-client';
import type * as ServerEntry from '../../lib/entries/server';
import type * as StdioEntry from '../../lib/entries/stdio';
import { startServerProcess } from '../servers/process';
import type * as BenchServer from '../servers/rxmcp-server';
import type { HttpMode } from '../servers/rxmcp-server';
import type { CallHarness, CallTransport, Implementation } from '../workload';
import { createDeliveryCounter } from './fan-out-counter';

// A transport's module and the in-memory server are loaded by the rows that use them, as a user's
// program loads only what it uses: a cold process (cold-client.ts) counts what it loads.
/* eslint-disable @typescript-eslint/no-require-imports */
const httpClientEntry = () => require('../../lib/entries/http-client') as typeof HttpClientEntry;
const stdioEntry = () => require('../../lib/entries/stdio') as typeof StdioEntry;
/** The server definition and the in-memory pair, for the rows that serve in this process. */
const inProcess = () => ({
  createInMemoryPair: (require('../../lib/entries/server') as typeof ServerEntry).createInMemoryPair,
  createBenchServer: (require('../servers/rxmcp-server') as typeof BenchServer).createBenchServer,
});
/* eslint-enable @typescript-eslint/no-require-imports */

const WATCHED_URI = 'bench://watched';
const SERVER_SCRIPT = join(__dirname, '../servers/rxmcp-server.js');

const CLIENT_INFO = { name: 'bench-client', version: '1.0.0' };
// The official SDK 1.32 opens sessions of a handshake revision: so does rxmcp on the handshake rows,
// so that both sides of a ratio speak the same protocol (the stateless revision has its own row).
const HANDSHAKE = { ...CLIENT_INFO, protocolVersion: '2025-11-25' } as const;
/** A 2026-07-28 client (no session; `_meta` on each request). */
const PINNED_2026 = { ...CLIENT_INFO, protocolVersion: '2026-07-28' } as const;

/** The server script's mode for each HTTP transport. */
const HTTP_MODES: Partial<Record<CallTransport, HttpMode>> = {
  'http-stateful': 'stateful',
  'http-stateless': 'stateless',
  'http-2026': '2026',
};

/** How many clients of {@link rxmcp.sessions} connect at once. */
const CONNECTING_AT_ONCE = 16;

/**
 * The first thing `source` emits (or its end). Not RxJS's `firstValueFrom`: `require('rxjs')` loads
 * every operator RxJS has, which rxmcp itself never does, and a cold process would count it.
 */
function first(source: { subscribe(observer: Partial<Observer<unknown>>): unknown }): Promise<void> {
  return new Promise((resolve, reject) => {
    source.subscribe({ next: () => resolve(), complete: () => resolve(), error: reject });
  });
}

async function closeClient(client: McpClient): Promise<void> {
  const closed = first(client.connection.closed$);
  client.close();
  await closed;
}

/** Calls go to each client in turn; closing closes every client, then stops the server (if any). */
function harness(clients: readonly McpClient[], stop?: () => Promise<void>): CallHarness {
  let next = 0;
  const client = () => clients[next++ % clients.length]!;
  return {
    call: () => client().promises.callTool('echo', { text: 'hello' }),
    callLarge: () => client().promises.callTool('large'),
    close: async () => {
      try {
        await Promise.allSettled(clients.map(closeClient));
      } finally {
        await stop?.();
      }
    },
  };
}

/** `count` clients of `url`, a few connecting at a time; none left open on failure. */
async function httpClients(url: string, transport: CallTransport, count: number): Promise<McpClient[]> {
  const info = transport === 'http-2026' ? PINNED_2026 : HANDSHAKE;
  const { createStreamableHttpClientTransport } = httpClientEntry();
  const clients: McpClient[] = [];
  for (let i = 0; i < count; i += CONNECTING_AT_ONCE) {
    const batch = Array.from({ length: Math.min(CONNECTING_AT_ONCE, count - i) }, () =>
      connect(createStreamableHttpClientTransport({ url }), info),
    );
    const settled = await Promise.allSettled(batch);
    for (const outcome of settled) if (outcome.status === 'fulfilled') clients.push(outcome.value);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) {
      await Promise.allSettled(clients.map(closeClient));
      throw failed.reason;
    }
  }
  return clients;
}

/** Starts the server script over `transport` (an HTTP one) and connects `count` clients to it. */
async function serveHttp(transport: CallTransport, count: number, nodeArgs?: readonly string[]): Promise<CallHarness> {
  const mode = HTTP_MODES[transport];
  if (!mode) throw new Error(`rxmcp: no ${transport} server`);
  const running = await startServerProcess(SERVER_SCRIPT, [`--http=${mode}`], nodeArgs);
  try {
    return harness(await httpClients(running.url, transport, count), running.stop);
  } catch (error) {
    await running.stop();
    throw error;
  }
}

export const rxmcp: Implementation = {
  name: 'rxmcp',
  transports: ['in-memory', 'stdio', 'http-stateful', 'http-stateless', 'http-2026'],
  async connect(kind, options) {
    if (kind === 'in-memory') {
      const { createInMemoryPair, createBenchServer } = inProcess();
      const [clientSide, serverSide] = createInMemoryPair();
      createBenchServer().connect(serverSide);
      return harness([await connect(clientSide, HANDSHAKE)]);
    }
    if (kind === 'stdio') {
      const { createStdioClientTransport } = stdioEntry();
      const transport = createStdioClientTransport({
        command: process.execPath,
        args: [...(options?.nodeArgs ?? []), SERVER_SCRIPT],
      });
      return harness([await connect(transport, HANDSHAKE)]);
    }
    return serveHttp(kind, 1, options?.nodeArgs);
  },
  sessions(kind, count) {
    return serveHttp(kind, count);
  },
  async fanOut(count) {
    const { createInMemoryPair, createBenchServer } = inProcess();
    const server = createBenchServer();
    server.resource({ uri: WATCHED_URI, name: 'watched', text: 'watched' });
    const counter = createDeliveryCounter();
    const clients: McpClient[] = [];
    for (let i = 0; i < count; i++) {
      const [clientSide, serverSide] = createInMemoryPair();
      server.connect(serverSide);
      // Resource subscriptions belong to sessions (2026-07-28 has subscriptions/listen instead).
      const client = await connect(clientSide, HANDSHAKE);
      client.connection.notifications$.subscribe((n) => {
        if (n.method === 'notifications/resources/updated') counter.delivered();
      });
      await first(client.request('resources/subscribe', { uri: WATCHED_URI }));
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
    const { createInMemoryPair, createBenchServer } = inProcess();
    const shared = serving === 'shared' ? createBenchServer() : undefined;
    const clients: McpClient[] = [];
    // One options object for every client, as the official SDKs' rows pass one `Implementation`.
    const handshake = { ...CLIENT_INFO, protocolVersion };
    for (let i = 0; i < count; i++) {
      const [clientSide, serverSide] = createInMemoryPair();
      (shared ?? createBenchServer()).connect(serverSide);
      clients.push(await connect(clientSide, handshake));
    }
    return {
      close: async () => {
        for (const client of clients) client.close();
      },
    };
  },
};
