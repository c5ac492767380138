import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageResultSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { filter, firstValueFrom, toArray, take } from 'rxjs';
import { z } from 'zod';
import { createConnection } from '../../lib/connection/create-connection';
import type { Connection } from '../../lib/connection/connection';
import { createHttpClientTransport } from '../../lib/transport/http-client/http-client-transport';
import { createHttpSseClientTransport } from '../../lib/transport/http-client/http-sse/http-sse-client-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import type { Transport } from '../../lib/transport/transport';

// rxmcp's HTTP client transports against the official SDK's server transports, each served with
// node:http on 127.0.0.1: Streamable HTTP legacy (with an event store) and modern, and HTTP+SSE.

type Content = Array<{ type: string; text?: string }>;

function makeSdkServer(): McpServer {
  const mcp = new McpServer({ name: 'sdk-http', version: '1.0.0' }, { capabilities: { logging: {} } });
  mcp.registerTool('echo', { description: 'Echoes', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  mcp.registerTool('chatty', { description: 'Logs and reports progress' }, async (extra) => {
    const token = extra._meta?.progressToken;
    for (const step of [1, 2, 3]) {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: `step ${step}` },
      });
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, total: 3 },
        });
      }
    }
    return { content: [{ type: 'text', text: 'done' }] };
  });
  mcp.registerTool(
    'ask',
    { description: 'Samples', inputSchema: { prompt: z.string() } },
    async ({ prompt }, extra) => {
      const answer = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 5 },
        },
        CreateMessageResultSchema,
      );
      return { content: [{ type: 'text', text: `model said: ${(answer.content as { text?: string }).text ?? ''}` }] };
    },
  );
  mcp.registerTool('reconnect', { description: 'Closes its SSE stream, then answers' }, async (extra) => {
    extra.closeSSEStream?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { content: [{ type: 'text', text: 'after reconnect' }] };
  });
  return mcp;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

let http: Server | undefined;
const closers: Array<() => Promise<void> | void> = [];
let connection: Connection | undefined;

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<string> {
  http = createServer((req, res) => void handler(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

afterEach(async () => {
  connection?.close();
  if (connection) await firstValueFrom(connection.closed$);
  connection = undefined;
  for (const close of closers.splice(0)) await close();
  http?.closeAllConnections();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http = undefined;
});

async function startLegacy(): Promise<{ url: string; sessions: Map<string, StreamableHTTPServerTransport> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const url = await listen(async (req, res) => {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const id = req.headers['mcp-session-id'] as string | undefined;
    let transport = id === undefined ? undefined : sessions.get(id);
    if (!transport) {
      if (id !== undefined) {
        res.writeHead(404).end();
        return;
      }
      if (!isInitializeRequest(body)) {
        res.writeHead(400).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        eventStore: new InMemoryEventStore(),
        retryInterval: 100,
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      const mcp = makeSdkServer();
      closers.push(() => mcp.close());
      await mcp.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  return { url: `${url}/mcp`, sessions };
}

async function connectOurs(transport: Transport): Promise<Connection> {
  connection = createConnection({
    transport,
    role: 'client',
    info: { name: 'rxmcp-client', version: '1.0.0' },
    capabilities: () => ({ sampling: {} }),
    handlers: {
      'sampling/createMessage': () => ({
        role: 'assistant',
        content: { type: 'text', text: 'forty-two' },
        model: 'm',
        stopReason: 'endTurn',
      }),
    },
  });
  await firstValueFrom(connection.initialize());
  return connection;
}

const call = (
  c: Connection,
  name: string,
  args: Record<string, unknown> = {},
  onProgress?: (p: { progress: number }) => void,
) => firstValueFrom(c.request('tools/call', { name, arguments: args }, onProgress ? { onProgress } : {}));

describe('rxmcp Streamable HTTP client → official SDK server (legacy)', () => {
  it('[interop.http.client-sdk-server] initializes with a session, lists and calls tools, and DELETEs on close', async () => {
    const { url, sessions } = await startLegacy();
    const transport = createStreamableHttpClientTransport({ url });
    const c = await connectOurs(transport);
    expect(c.peerInfo).toMatchObject({ name: 'sdk-http' });
    expect(transport.sessionId).toBe([...sessions.keys()][0]);
    const listed = await firstValueFrom(c.request('tools/list', {}));
    expect((listed.tools as Array<{ name: string }>).map((t) => t.name).sort()).toEqual([
      'ask',
      'chatty',
      'echo',
      'reconnect',
    ]);
    expect(((await call(c, 'echo', { text: 'hi' })).content as Content)[0]?.text).toBe('hi');
    c.close();
    await firstValueFrom(c.closed$);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sessions.size).toBe(0);
  });

  it('[interop.http.client-sdk-stream] receives logs, progress and a sampling request during a call', async () => {
    const { url } = await startLegacy();
    const c = await connectOurs(createStreamableHttpClientTransport({ url }));
    const logs = firstValueFrom(
      c.notifications$.pipe(
        filter((n) => n.method === 'notifications/message'),
        take(3),
        toArray(),
      ),
    );
    const progress: number[] = [];
    const result = await call(c, 'chatty', {}, (p) => progress.push(p.progress));
    expect((result.content as Content)[0]?.text).toBe('done');
    expect(progress).toEqual([1, 2, 3]);
    expect((await logs).map((n) => n.params?.data)).toEqual(['step 1', 'step 2', 'step 3']);
    expect(((await call(c, 'ask', { prompt: 'q' })).content as Content)[0]?.text).toBe('model said: forty-two');
  });

  it('[interop.http.client-sdk-polling] resumes with Last-Event-ID when the SDK server closes the stream mid-call', async () => {
    const { url } = await startLegacy();
    const c = await connectOurs(createStreamableHttpClientTransport({ url }));
    expect(((await call(c, 'reconnect')).content as Content)[0]?.text).toBe('after reconnect');
  });
});

describe('rxmcp Streamable HTTP client → official SDK server (modern)', () => {
  it('[interop.http.client-sdk-modern] works with a new server per request and no session', async () => {
    const url = await listen(async (req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const body = await readJson(req);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const mcp = makeSdkServer();
      res.on('close', () => void mcp.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    });
    const transport = createStreamableHttpClientTransport({ url: `${url}/mcp` });
    const c = await connectOurs(transport);
    expect(transport.sessionId).toBeUndefined();
    expect(((await call(c, 'echo', { text: 'modern' })).content as Content)[0]?.text).toBe('modern');
    const progress: number[] = [];
    await call(c, 'chatty', {}, (p) => progress.push(p.progress));
    expect(progress).toEqual([1, 2, 3]);
  });
});

describe('rxmcp HTTP+SSE client → official SDK SSE server (2024-11-05)', () => {
  async function startSse(): Promise<string> {
    const transports = new Map<string, SSEServerTransport>();
    return listen(async (req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'GET' && path.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        transports.set(transport.sessionId, transport);
        const mcp = makeSdkServer();
        closers.push(() => mcp.close());
        await mcp.connect(transport);
        return;
      }
      if (req.method === 'POST' && path.pathname === '/messages') {
        const transport = transports.get(path.searchParams.get('sessionId') ?? '');
        if (!transport) {
          res.writeHead(404).end();
          return;
        }
        await transport.handlePostMessage(req, res, await readJson(req));
        return;
      }
      // A server that predates Streamable HTTP: POST to the SSE URL is not allowed.
      res.writeHead(405).end();
    });
  }

  it('[interop.http.client-sdk-sse] initializes and calls tools over the deprecated HTTP+SSE transport', async () => {
    const base = await startSse();
    const c = await connectOurs(createHttpSseClientTransport({ url: `${base}/sse` }));
    expect(c.revision).toBe('2025-11-25');
    expect(((await call(c, 'echo', { text: 'legacy' })).content as Content)[0]?.text).toBe('legacy');
    expect(((await call(c, 'ask', { prompt: 'q' })).content as Content)[0]?.text).toBe('model said: forty-two');
  });

  it('[interop.http.client-fallback] falls back from Streamable HTTP to HTTP+SSE against an SDK SSE server', async () => {
    const base = await startSse();
    const transport = createHttpClientTransport({ url: `${base}/sse` });
    const c = await connectOurs(transport);
    expect(transport.kind).toBe('http-sse');
    expect(((await call(c, 'echo', { text: 'fell back' })).content as Content)[0]?.text).toBe('fell back');
  });
});
