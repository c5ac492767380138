/**
 * The official SDK v2 (2.4)'s server with the same two tools as the rxmcp one, served as the
 * packages' documentation shows. When run: over stdio (`--stdio`, the default: a
 * `StdioServerTransport`), or over Streamable HTTP on a free loopback port with
 * `--http=stateful` (a `WebStandardStreamableHTTPServerTransport` with a `sessionIdGenerator`, and
 * a server, per session), `--http=stateless` or `--http=2026` (both `createMcpHandler(factory)`,
 * which answers a 2026-07-28 request, and by default a 2025-era one the stateless way, with a fresh
 * server from the factory per request). The web-standard handlers are put on node:http by the small
 * adapter below (v2's own Node adapter is a separate package, `@modelcontextprotocol/node`). The
 * URL is printed on the first line of stdout, and the process ends when its stdin does.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createMcpHandler, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { LARGE_TEXT } from '../workload';
import { endWithStdin, keepConnections } from './process';

type FetchHandler = (request: Request) => Promise<Response>;

export function createOfficialV2BenchServer(): McpServer {
  const server = new McpServer({ name: 'bench-official-v2', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({
      content: [{ type: 'text' as const, text }],
    }),
  );
  server.registerTool('large', { description: 'Returns 1 MB of text.' }, async () => ({
    content: [{ type: 'text' as const, text: LARGE_TEXT }],
  }));
  return server;
}

/** Serves a web-standard handler on node:http: the request's body read whole, the answer streamed. */
function toNode(fetchHandler: FetchHandler) {
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
      const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
      void fetchHandler(new Request(url, { method: req.method, headers, body, signal: abort.signal }))
        .then((response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          if (!response.body) return void res.end();
          Readable.fromWeb(response.body as never).pipe(res);
        })
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    });
  };
}

/**
 * Sessions the documented stateful way: a `WebStandardStreamableHTTPServerTransport` with a
 * `sessionIdGenerator` and a server per session, found again by the `mcp-session-id` header.
 */
function statefulHandler(): FetchHandler {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return async (request) => {
    const id = request.headers.get('mcp-session-id');
    const existing = id === null ? undefined : sessions.get(id);
    if (existing) return existing.handleRequest(request);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await createOfficialV2BenchServer().connect(transport);
    return transport.handleRequest(request);
  };
}

/** Serves `mode` on a free loopback port; resolves with the endpoint's URL. */
export async function serveOfficialV2Http(mode: 'stateful' | 'stateless' | '2026'): Promise<string> {
  const handler: FetchHandler =
    mode === 'stateful' ? statefulHandler() : createMcpHandler(() => createOfficialV2BenchServer()).fetch;
  const http = createServer(toNode(handler));
  keepConnections(http);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

if (require.main === module) {
  const mode = process.argv.find((a) => a.startsWith('--http='))?.slice('--http='.length);
  if (mode === 'stateful' || mode === 'stateless' || mode === '2026') {
    void serveOfficialV2Http(mode).then((url) => {
      process.stdout.write(`${url}\n`);
      endWithStdin();
    });
  } else if (mode !== undefined) {
    throw new Error(`official-v2-server: unknown mode --http=${mode}`);
  } else {
    const transport = new StdioServerTransport();
    transport.onclose = () => process.exit(0);
    void createOfficialV2BenchServer().connect(transport);
    process.stdin.on('end', () => process.exit(0));
  }
}
