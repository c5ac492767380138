/** The official TypeScript SDK under test, configured as its documentation shows. */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceUpdatedNotificationSchema, SubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createOfficialBenchServer } from '../servers/official-server';
import type { CallHarness, Implementation } from '../workload';
import { createDeliveryCounter } from './fan-out-counter';

const WATCHED_URI = 'bench://watched';

const CLIENT_INFO = { name: 'bench-client', version: '1.0.0' };

function harness(client: Client): CallHarness {
  return {
    call: () => client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    callLarge: () => client.callTool({ name: 'large', arguments: {} }),
    close: () => client.close(),
  };
}

export const official: Implementation = {
  name: 'official',
  transports: ['in-memory', 'stdio'],
  async connect(kind) {
    const client = new Client(CLIENT_INFO);
    if (kind === 'in-memory') {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createOfficialBenchServer().connect(serverSide);
      await client.connect(clientSide);
    } else if (kind === 'stdio') {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(__dirname, '../servers/official-server.js')] }));
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
