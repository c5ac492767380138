import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { eventually } from '../support/until';

// The official SDK's client against rxmcp's HTTP server transports: Streamable HTTP (legacy and
// modern) and the 2024-11-05 HTTP+SSE transport.

type Content = Array<{ type: string; text?: string }>;

function makeServer(): McpServer {
  const server = createServer({ name: 'rxmcp-http', version: '1.0.0' });
  server.tool({
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
  });
  server.tool({
    name: 'chatty',
    description: 'Logs and reports progress while it works',
    inputSchema: z.object({}),
    handler: async (_args, context) => {
      for (const step of [1, 2, 3]) {
        context.log('info', `step ${step}`);
        context.progress(step, 3);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return { content: [{ type: 'text', text: 'done' }] };
    },
  });
  server.tool({
    name: 'ask',
    description: 'Asks the client’s model',
    inputSchema: z.object({ prompt: z.string() }),
    handler: async ({ prompt }, context) => {
      const answer = await firstValueFrom(
        context.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 10 }),
      );
      return { content: [{ type: 'text', text: `model said: ${(answer.content as { text?: string }).text ?? ''}` }] };
    },
  });
  return server;
}

let running: RunningStreamableHttpServer | undefined;
let server: McpServer | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  server?.close();
  await running?.close();
  client = undefined;
  server = undefined;
  running = undefined;
});

async function connectSdk(transport: SdkTransport): Promise<Client> {
  client = new Client({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    role: 'assistant',
    content: { type: 'text', text: 'forty-two' },
    model: 'test-model',
    stopReason: 'endTurn',
  }));
  await client.connect(transport);
  return client;
}

describe('official SDK client → rxmcp Streamable HTTP server (legacy)', () => {
  beforeEach(async () => {
    server = makeServer();
    const target = server;
    running = await startStreamableHttpServer({ onSession: (t) => void target.connect(t) });
  });

  it('[interop.http.sdk-client] initializes, lists and calls tools, with a session id', async () => {
    const transport = new StreamableHTTPClientTransport(running!.url);
    const sdk = await connectSdk(transport);
    expect(transport.sessionId).toBe([...running!.handler.sessions.keys()][0]);
    expect(sdk.getServerVersion()).toMatchObject({ name: 'rxmcp-http' });
    const { tools } = await sdk.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask', 'chatty', 'echo']);
    const result = await sdk.callTool({ name: 'echo', arguments: { text: 'over http' } });
    expect((result.content as Content)[0]?.text).toBe('over http');
  });

  it('[interop.http.sdk-client-stream] receives logs, progress and a sampling request during a call', async () => {
    const sdk = await connectSdk(new StreamableHTTPClientTransport(running!.url));
    const logs: unknown[] = [];
    sdk.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    const progress: number[] = [];
    const result = await sdk.callTool({ name: 'chatty', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect((result.content as Content)[0]?.text).toBe('done');
    expect(progress).toEqual([1, 2, 3]);
    expect(logs).toEqual(['step 1', 'step 2', 'step 3']);
    const asked = await sdk.callTool({ name: 'ask', arguments: { prompt: 'meaning?' } });
    expect((asked.content as Content)[0]?.text).toBe('model said: forty-two');
  });

  it('ends the session with the SDK’s terminateSession (DELETE)', async () => {
    const transport = new StreamableHTTPClientTransport(running!.url);
    await connectSdk(transport);
    expect(running!.handler.sessions.size).toBe(1);
    await transport.terminateSession();
    expect(running!.handler.sessions.size).toBe(0);
  });
});

describe('official SDK client → rxmcp Streamable HTTP server: a call answered with an error on its stream', () => {
  it('[interop.http.sdk-client-error-stream] resumes the ended stream once, gets 204, and opens no second GET stream', async () => {
    server = createServer({ name: 'rxmcp-http', version: '1.0.0' });
    server.tool({
      name: 'refuse',
      description: 'Refuses, with a JSON-RPC error, after a while',
      inputSchema: z.object({}),
      handler: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new JsonRpcError(-32050, 'refused on purpose');
      },
    });
    const target = server;
    // Streamed at once, retry after 10 ms: the SDK's resumption comes soon after the stream ends.
    running = await startStreamableHttpServer({
      onSession: (t) => void target.connect(t),
      jsonWindowMs: 0,
      retryMs: 10,
    });
    const gets: Array<{ lastEventId: string | null; status: number }> = [];
    const transport = new StreamableHTTPClientTransport(running.url, {
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (init?.method === 'GET')
          gets.push({ lastEventId: new Headers(init.headers).get('last-event-id'), status: response.status });
        return response;
      },
    });
    const sdk = await connectSdk(transport);
    await eventually(() => gets.length === 1, 2_000);
    await expect(sdk.callTool({ name: 'refuse', arguments: {} })).rejects.toThrow(/refused on purpose/);
    // SDK 1.32 takes an error response for no response and resumes the stream that carried it.
    await eventually(() => gets.length >= 2, 2_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gets).toEqual([
      { lastEventId: null, status: 200 },
      { lastEventId: expect.any(String), status: 204 },
    ]);
  });
});

describe('official SDK client → rxmcp Streamable HTTP server (sessionless)', () => {
  it('[interop.http.sdk-client-sessionless] serves every request on a fresh transport, without sessions', async () => {
    server = makeServer();
    const target = server;
    running = await startStreamableHttpServer({ sessionless: true, onSession: (t) => void target.connect(t) });
    const transport = new StreamableHTTPClientTransport(running.url);
    const sdk = await connectSdk(transport);
    expect(transport.sessionId).toBeUndefined();
    const result = await sdk.callTool({ name: 'echo', arguments: { text: 'modern' } });
    expect((result.content as Content)[0]?.text).toBe('modern');
    const progress: number[] = [];
    await sdk.callTool({ name: 'chatty', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    // Nothing is kept between requests.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.sessions.size).toBe(0);
  });
});

describe('official SDK client → rxmcp HTTP+SSE server (2024-11-05)', () => {
  it('[interop.http.sdk-client-sse] initializes and calls a tool over the deprecated HTTP+SSE transport', async () => {
    server = makeServer();
    const target = server;
    running = await startStreamableHttpServer({ httpSse: true, onSession: (t) => void target.connect(t) });
    const sdk = await connectSdk(new SSEClientTransport(new URL('/sse', running.url)));
    const result = await sdk.callTool({ name: 'echo', arguments: { text: 'legacy' } });
    expect((result.content as Content)[0]?.text).toBe('legacy');
    expect(running.httpSseHandler?.sessions.size).toBe(1);
  });
});
