import { serve } from '@hono/node-server';
import type { HttpBindings } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Hono } from 'hono';
import { filter, firstValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { createStreamableHttpFetchHandler } from '../../lib/transport/http-server/streamable-http/streamable-http-fetch-handler';
import type { StreamableHttpFetchHandler } from '../../lib/transport/http-server/streamable-http/streamable-http-fetch-handler';
import { serveFetchWithBridge } from '../transport/streamable-http/fetch-host';
import type { ListeningHost } from '../transport/streamable-http/fetch-host';

// createStreamableHttpFetchHandler under web-standard hosts (Hono on @hono/node-server, and a bare
// fetch function behind a hand-written Node bridge), driven by rxmcp's client and the official SDK's.

type Content = Array<{ type: string; text?: string }>;

function makeServer(): McpServer {
  const server = createServer({ name: 'rxmcp-web', version: '1.0.0' });
  server.tool({
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
  });
  server.tool({
    name: 'chatty',
    description: 'Reports progress while it works',
    inputSchema: z.object({}),
    handler: async (_args, context) => {
      for (const step of [1, 2, 3]) {
        context.progress(step, 3);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { content: [{ type: 'text', text: 'done' }] };
    },
  });
  return server;
}

/** Hono, as an app mounts the handler: the raw web Request in, the Response out. */
async function honoHost(mcp: StreamableHttpFetchHandler): Promise<ListeningHost> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.all('/mcp', (c) => mcp.handle(c.req.raw, { localAddress: c.env.incoming.socket.localAddress }));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    server: server as ListeningHost['server'],
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as ListeningHost['server']).closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A bare fetch function, `(request) => Promise<Response>`, behind a minimal Node bridge. */
const bridgeHost = (mcp: StreamableHttpFetchHandler): Promise<ListeningHost> =>
  serveFetchWithBridge((request) =>
    new URL(request.url).pathname === '/mcp'
      ? mcp.fetch(request)
      : Promise.resolve(new Response(null, { status: 404 })),
  );

const HOSTS: Array<[string, (mcp: StreamableHttpFetchHandler) => Promise<ListeningHost>]> = [
  ['Hono', honoHost],
  ['a fetch function behind a Node bridge', bridgeHost],
];

const waitFor = async (condition: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

describe.each(HOSTS)('createStreamableHttpFetchHandler under %s', (_name, start) => {
  let server: McpServer;
  let mcp: StreamableHttpFetchHandler;
  let host: ListeningHost;
  let url: string;
  let client: McpClient | undefined;
  let sdk: Client | undefined;

  beforeEach(async () => {
    server = makeServer();
    mcp = createStreamableHttpFetchHandler({ server });
    host = await start(mcp);
    url = `${host.origin}/mcp`;
  });
  afterEach(async () => {
    client?.close();
    await sdk?.close();
    client = undefined;
    sdk = undefined;
    server.close();
    mcp.close();
    await host.close();
  });

  it('[interop.web.rxmcp-session] serves rxmcp’s client: initialize, progress over SSE, a GET-stream notification, DELETE', async () => {
    client = await connect(createStreamableHttpClientTransport({ url }), {
      name: 'web-spec',
      version: '1.0.0',
      protocolVersion: '2025-11-25',
    });
    expect(client.revision).toBe('2025-11-25');
    expect(mcp.sessions.size).toBe(1);
    const events = await firstValueFrom(client.callTool('chatty', {}).pipe(toArray()));
    expect(events.filter((e) => e.type === 'progress').map((e) => (e as { progress: number }).progress)).toEqual([
      1, 2, 3,
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'result', result: { content: [{ type: 'text', text: 'done' }] } });
    // A tool added later: the list_changed notification relates to no request, so it comes on the GET stream.
    const changed = firstValueFrom(client.tools$.pipe(filter((tools) => tools.some((t) => t.name === 'late'))));
    await firstValueFrom(client.tools$);
    server.tool({
      name: 'late',
      description: 'added later',
      inputSchema: z.object({}),
      handler: () => ({ content: [] }),
    });
    expect((await changed).map((t) => t.name)).toContain('late');
    client.close();
    await waitFor(() => mcp.sessions.size === 0, 'the DELETE to end the session');
  });

  it('[interop.web.rxmcp-modern] serves rxmcp’s client on 2026-07-28 with no session, progress included', async () => {
    client = await connect(createStreamableHttpClientTransport({ url }), { name: 'web-spec', version: '1.0.0' });
    expect(client.revision).toBe('2026-07-28');
    expect((await client.promises.callTool('echo', { text: 'modern' })).content).toEqual([
      { type: 'text', text: 'modern' },
    ]);
    const events = await firstValueFrom(client.callTool('chatty', {}).pipe(toArray()));
    expect(events.filter((e) => e.type === 'progress')).toHaveLength(3);
    expect(mcp.sessions.size).toBe(0);
  });

  it('[interop.web.sdk-client] serves the official SDK client: initialize, progress, a GET-stream notification, terminateSession', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    sdk = new Client({ name: 'sdk-client', version: '1.0.0' });
    await sdk.connect(transport);
    expect(transport.sessionId).toBe([...mcp.sessions.keys()][0]);
    const progress: number[] = [];
    const result = await sdk.callTool({ name: 'chatty', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect((result.content as Content)[0]?.text).toBe('done');
    expect(progress).toEqual([1, 2, 3]);
    const changed = new Promise<void>((resolve) =>
      sdk!.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    server.tool({
      name: 'late',
      description: 'added later',
      inputSchema: z.object({}),
      handler: () => ({ content: [] }),
    });
    await changed;
    await transport.terminateSession();
    expect(mcp.sessions.size).toBe(0);
  });

  it('cancels a modern request when the client aborts its SSE answer', async () => {
    let aborted!: () => void;
    const cancelled = new Promise<void>((resolve) => (aborted = resolve));
    server.tool({
      name: 'forever',
      description: 'reports progress, then waits until cancelled',
      inputSchema: z.object({}),
      handler: (_args, context) => {
        context.progress(1);
        return new Promise(() => context.signal.addEventListener('abort', () => aborted()));
      },
    });
    const abort = new AbortController();
    const response = await fetch(url, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'forever',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'forever',
          arguments: {},
          _meta: {
            progressToken: 'p',
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    // The progress event arrives while the request is still running: the stream flows incrementally.
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('notifications/progress');
    abort.abort();
    await cancelled;
  });
});
