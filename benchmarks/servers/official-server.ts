/**
 * The official SDK 1.32's server with the same two tools as the rxmcp one, served as its
 * documentation shows. When run: over stdio (`--stdio`, the default), or over Streamable HTTP on a
 * free loopback port with `--http=stateful` (a transport and server per session) or
 * `--http=stateless` (a fresh pair per request); the URL is printed on the first line of stdout,
 * and the process ends when its stdin does.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { LARGE_TEXT } from '../workload';
import { endWithStdin, keepConnections } from './process';

export function createOfficialBenchServer(): McpServer {
  const server = new McpServer({ name: 'bench-official', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text.', inputSchema: { text: z.string() } },
    async ({ text }) => ({
      content: [{ type: 'text', text }],
    }),
  );
  server.registerTool('large', { description: 'Returns 1 MB of text.' }, async () => ({
    content: [{ type: 'text', text: LARGE_TEXT }],
  }));
  return server;
}

/**
 * The SDK's Streamable HTTP server on node:http, as its README shows: stateful with a transport
 * (and server) per session, kept in a map by session id, or stateless with a fresh pair per request.
 * Resolves with the endpoint's URL.
 */
export async function serveOfficialHttp(stateless: boolean): Promise<string> {
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
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await createOfficialBenchServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  keepConnections(http);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

if (require.main === module) {
  const mode = process.argv.find((a) => a.startsWith('--http='))?.slice('--http='.length);
  if (mode === 'stateful' || mode === 'stateless') {
    void serveOfficialHttp(mode === 'stateless').then((url) => {
      process.stdout.write(`${url}\n`);
      endWithStdin();
    });
  } else if (mode !== undefined) {
    throw new Error(`official-server: unknown mode --http=${mode}`);
  } else {
    const transport = new StdioServerTransport();
    transport.onclose = () => process.exit(0);
    void createOfficialBenchServer().connect(transport);
    process.stdin.on('end', () => process.exit(0));
  }
}
