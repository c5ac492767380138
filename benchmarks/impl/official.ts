/** The official TypeScript SDK under test, configured as its documentation shows. */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, SubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createOfficialBenchServer } from '../servers/official-server';
import type { CallHarness, Implementation } from '../workload';
import { createDeliveryCounter } from './fan-out-counter';

const WATCHED_URI = 'bench://watched';

const CLIENT_INFO = { name: 'bench-client', version: '1.0.0' };

function harness(client: Client, stop?: () => Promise<void>): CallHarness {
  return {
    call: () => client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    callLarge: () => client.callTool({ name: 'large', arguments: {} }),
    close: async () => {
      await client.close();
      await stop?.();
    },
  };
}

/**
 * The SDK's Streamable HTTP server on node:http, as its documentation shows: stateful with a
 * transport (and server) per session, or stateless with a fresh pair per request.
 */
async function startOfficialHttp(stateless: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      if (stateless) {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        const server = createOfficialBenchServer();
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res);
        return;
      }
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
        });
        await createOfficialBenchServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    stop: async () => {
      for (const transport of sessions.values()) await transport.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

export const official: Implementation = {
  name: 'official',
  transports: ['in-memory', 'stdio', 'http-stateful', 'http-stateless'],
  async connect(kind, options) {
    const client = new Client(CLIENT_INFO);
    if (kind === 'http-stateful' || kind === 'http-stateless') {
      const running = await startOfficialHttp(kind === 'http-stateless');
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
      return harness(client, running.stop);
    }
    if (kind === 'in-memory') {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createOfficialBenchServer().connect(serverSide);
      await client.connect(clientSide);
    } else if (kind === 'stdio') {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [...(options?.nodeArgs ?? []), join(__dirname, '../servers/official-server.js')] }));
    } else {
      throw new Error(`official: no ${kind} harness yet`);
    }
    return harness(client);
  },
  async fanOut(count) {
    // One McpServer per client (the SDK binds a server object to one transport); the
    // subscriptions are tracked by hand, as the SDK leaves that to the user.
    const counter = createDeliveryCounter();
    const subscribed = new Set<McpServer>();
    const clients: Client[] = [];
    for (let i = 0; i < count; i++) {
      const server = createOfficialBenchServer();
      server.registerResource('watched', WATCHED_URI, {}, async () => ({ contents: [{ uri: WATCHED_URI, text: 'watched' }] }));
      server.server.registerCapabilities({ resources: { subscribe: true } });
      server.server.setRequestHandler(SubscribeRequestSchema, async () => {
        subscribed.add(server);
        return {};
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client(CLIENT_INFO);
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => counter.delivered());
      await client.connect(clientSide);
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
  async idleSessions(count) {
    // The SDK binds one server object to one transport, so each session has its own McpServer.
    const clients: Client[] = [];
    for (let i = 0; i < count; i++) {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createOfficialBenchServer().connect(serverSide);
      const client = new Client(CLIENT_INFO);
      await client.connect(clientSide);
      clients.push(client);
    }
    return {
      close: async () => {
        for (const client of clients) await client.close();
      },
    };
  },
};
