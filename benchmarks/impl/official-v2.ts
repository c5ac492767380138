/**
 * The official TypeScript SDK v2 (2.4) under test, set up as its documentation shows: the server is
 * `createMcpHandler(factory)`, a web-standard `(Request) => Response` handler that serves each
 * 2026-07-28 request statelessly with a fresh `McpServer` from the factory, put on `node:http` by the
 * small adapter below; the client is its `Client` pinned to 2026-07-28 over its Streamable HTTP
 * transport. Default options otherwise.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { CallHarness, Implementation } from '../workload';
import { LARGE_TEXT } from '../workload';

export function createOfficialV2BenchServer(): McpServer {
  const server = new McpServer({ name: 'bench-official-v2', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its text.', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text' as const, text }],
  }));
  server.registerTool('large', { description: 'Returns 1 MB of text.' }, async () => ({
    content: [{ type: 'text' as const, text: LARGE_TEXT }],
  }));
  return server;
}

/** Serves a web-standard handler on node:http: the request's body read whole, the answer streamed. */
function toNode(fetchHandler: (request: Request) => Promise<Response>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
      void fetchHandler(new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method, headers, body, signal: abort.signal }))
        .then((response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          if (!response.body) return void res.end();
          Readable.fromWeb(response.body as never).pipe(res);
        })
        .catch(() => res.writeHead(500).end());
    });
  };
}

function harness(client: Client, stop: () => Promise<void>): CallHarness {
  return {
    call: () => client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    callLarge: () => client.callTool({ name: 'large', arguments: {} }),
    close: async () => {
      await client.close();
      await stop();
    },
  };
}

export const officialV2: Implementation = {
  name: 'official-v2',
  transports: ['http-2026'],
  async connect(kind) {
    if (kind !== 'http-2026') throw new Error(`official-v2: no ${kind} harness`);
    const handler = createMcpHandler(() => createOfficialV2BenchServer());
    const http = createServer(toNode((request) => handler.fetch(request)));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    const client = new Client({ name: 'bench-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(url));
    return harness(client, async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
  },
};
