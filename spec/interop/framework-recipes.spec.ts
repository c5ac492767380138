import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import fastify from 'fastify';
import { Hono } from 'hono';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { createStreamableHttpFetchHandler } from '../../lib/transport/http-server/streamable-http/streamable-http-fetch-handler';
import { createStreamableHttpHandler } from '../../lib/transport/http-server/streamable-http/streamable-http-handler';

// The README's recipes for mounting the MCP endpoint in Express 5, Fastify 5 and Hono, each
// exercised end to end by rxmcp's client; and the answer when a body parser ate the body.

interface Mounted {
  readonly url: string;
  close(): Promise<void>;
}

function makeServer(): McpServer {
  const server = createServer({ name: 'rxmcp-recipes', version: '1.0.0' });
  server.tool({
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
  });
  return server;
}

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

const urlOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;

/** Express 5 with `express.json()` mounted before the route: the parsed body is handed over. */
async function expressRecipe(server: McpServer, passBody = true): Promise<Mounted> {
  const mcp = createStreamableHttpHandler({ server });
  const app = express();
  app.use(express.json());
  app.all('/mcp', (req, res) => mcp.handle(req, res, passBody ? req.body : undefined));
  const http = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: urlOf(http),
    close: async () => {
      mcp.close();
      await closeServer(http);
    },
  };
}

/** Fastify 5: its JSON parser reads the body; the reply is hijacked and written by the handler. */
async function fastifyRecipe(server: McpServer): Promise<Mounted> {
  const mcp = createStreamableHttpHandler({ server });
  const app = fastify();
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    handler: (request, reply) => {
      reply.hijack();
      mcp.handle(request.raw, reply.raw, request.body);
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: urlOf(app.server),
    close: async () => {
      mcp.close();
      await app.close();
    },
  };
}

/** Hono: the web handler takes the raw `Request`; a body read earlier is passed as `parsedBody`. */
async function honoRecipe(server: McpServer, readBodyFirst = false, passBody = true): Promise<Mounted> {
  const mcp = createStreamableHttpFetchHandler({ server });
  const app = new Hono();
  app.all('/mcp', async (c) => {
    if (!readBodyFirst || c.req.method !== 'POST') return mcp.fetch(c.req.raw);
    const parsedBody: unknown = await c.req.json();
    return mcp.handle(c.req.raw, passBody ? { parsedBody } : {});
  });
  const http = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started as Server));
  });
  return {
    url: urlOf(http),
    close: async () => {
      mcp.close();
      await closeServer(http);
    },
  };
}

const RECIPES: Array<[string, (server: McpServer) => Promise<Mounted>]> = [
  ['Express 5 with express.json()', (s) => expressRecipe(s)],
  ['Fastify 5', fastifyRecipe],
  ['Hono', (s) => honoRecipe(s)],
  ['Hono, the body read by the app first', (s) => honoRecipe(s, true)],
];

let server: McpServer;
let mounted: Mounted | undefined;
let client: McpClient | undefined;
beforeEach(() => {
  server = makeServer();
});
afterEach(async () => {
  client?.close();
  client = undefined;
  server.close();
  await mounted?.close();
  mounted = undefined;
});

describe.each(RECIPES)('the %s recipe', (_name, mount) => {
  it.each(['2025-11-25', 'auto'] as const)(
    'serves rxmcp’s client (protocol %s), session or not',
    async (protocolVersion) => {
      mounted = await mount(server);
      client = await connect(createStreamableHttpClientTransport({ url: mounted.url }), {
        name: 'recipe-spec',
        version: '1.0.0',
        protocolVersion,
      });
      expect(client.revision).toBe(protocolVersion === 'auto' ? '2026-07-28' : protocolVersion);
      expect((await client.promises.callTool('echo', { text: 'mounted' })).content).toEqual([
        { type: 'text', text: 'mounted' },
      ]);
    },
  );
});

describe('a body parser that ran before the handler without passing the body on', () => {
  const initialize = () =>
    fetch(mounted!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
      }),
    });

  it.each([
    ['Express (node handler)', () => expressRecipe(server, false)],
    ['Hono (fetch handler)', () => honoRecipe(server, true, false)],
  ])('is answered 500 with a message that says what happened and how to fix it: %s', async (_name, start) => {
    mounted = await start();
    const response = await initialize();
    expect(response.status).toBe(500);
    const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBeNull();
    expect(body.error.code).toBe(-32603);
    expect(body.error.message).toMatch(/request body was read before it reached the MCP handler/);
    expect(body.error.message).toMatch(/Pass the parsed body/);
    expect(body.error.message).toMatch(/mount the MCP route before the body parser/);
  });
});
