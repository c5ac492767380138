import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { encodeSseEvent } from '../../lib/transport/framing/sse';
import { createHttpClientTransport } from '../../lib/transport/http-client/http-client-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';

/** A POST as the scripted server saw it. */
interface Post {
  readonly body: { id?: number | string; method: string; params?: Record<string, unknown> };
  readonly headers: IncomingMessage['headers'];
}
type Script = (post: Post, res: ServerResponse, req: IncomingMessage) => void;

let server: Server | undefined;
let client: McpClient | undefined;
const posts: Post[] = [];
const gets: IncomingMessage['headers'][] = [];

/** A hand-written modern server: it answers discovery, the test scripts the rest. */
async function modernServer(script: Script): Promise<string> {
  server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      if (req.method !== 'POST') {
        gets.push(req.headers);
        res.writeHead(405).end();
        return;
      }
      const post = { body: JSON.parse(text) as Post['body'], headers: req.headers };
      posts.push(post);
      if (post.body.method === 'server/discover') {
        json(
          res,
          {
            resultType: 'complete',
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: {} },
            ttlMs: 0,
            cacheScope: 'public',
          },
          post,
        );
        return;
      }
      script(post, res, req);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

function json(res: ServerResponse, result: Record<string, unknown>, post: Post): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: post.body.id, result }));
}

const waitFor = async (condition: () => boolean, what: string): Promise<void> => {
  const end = Date.now() + 3000;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

afterEach(async () => {
  client?.close();
  client = undefined;
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  posts.length = 0;
  gets.length = 0;
});

const info = { name: 'http-modern-spec', version: '1.0.0' };
const calls = () => posts.filter((post) => post.body.method === 'tools/call');

describe('rxmcp client over Streamable HTTP, modern revision', () => {
  it('[http.reissue] re-issues, with a new id, a call whose response stream ended before its response', async () => {
    const url = await modernServer((post, res) => {
      if (calls().length === 1) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          encodeSseEvent({
            data: JSON.stringify({
              jsonrpc: '2.0',
              method: 'notifications/message',
              params: { level: 'info', data: 'working' },
            }),
          }),
        );
        return;
      }
      json(res, { resultType: 'complete', content: [{ type: 'text', text: 'second time lucky' }] }, post);
    });
    client = await connect(createStreamableHttpClientTransport({ url }), info);
    await expect(client.promises.callTool('flaky')).resolves.toEqual({
      content: [{ type: 'text', text: 'second time lucky' }],
    });
    const [first, second] = calls();
    expect(second!.body.id).not.toEqual(first!.body.id);
    expect(second!.body.params).toEqual(first!.body.params);
    // No session, no resumption: nothing but POSTs.
    expect(gets).toEqual([]);
    expect(
      posts.every(
        (post) => post.headers['mcp-session-id'] === undefined && post.headers['last-event-id'] === undefined,
      ),
    ).toBe(true);
  });

  it('[http.cancel-by-close] cancelling a call closes its response stream and POSTs no notifications/cancelled', async () => {
    let closed = false;
    const url = await modernServer((_post, res, req) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      req.socket.once('close', () => (closed = true));
    });
    client = await connect(createStreamableHttpClientTransport({ url }), info);
    const subscription = client.callTool('slow').subscribe();
    await waitFor(() => calls().length === 1, 'the call');
    subscription.unsubscribe();
    await waitFor(() => closed, 'the stream to close');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(posts.map((post) => post.body.method)).toEqual(['server/discover', 'tools/call']);
    expect(client.connection.pendingRequests).toBe(0);
  });

  it('[http.request-headers] sends MCP-Protocol-Version, Mcp-Method and Mcp-Name with every request, equal to the body', async () => {
    const url = await modernServer((post, res) => json(res, { resultType: 'complete', content: [] }, post));
    client = await connect(createStreamableHttpClientTransport({ url }), info);
    await client.promises.callTool('my tool/ü');
    for (const post of posts) {
      const meta = post.body.params?._meta as Record<string, unknown>;
      expect(post.headers['mcp-protocol-version']).toBe(meta['io.modelcontextprotocol/protocolVersion']);
      expect(post.headers['mcp-method']).toBe(post.body.method);
      expect(post.headers.accept).toBe('application/json, text/event-stream');
    }
    expect(calls()[0]!.headers['mcp-name']).toBe(`=?base64?${Buffer.from('my tool/ü').toString('base64')}?=`);
  });
});

describe('rxmcp client over HTTP against a legacy server', () => {
  it('[versioning.http-legacy] falls back to initialize when discovery is refused with a 4xx that holds no modern error', async () => {
    server = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (text += chunk));
      req.on('end', () => {
        if (req.method !== 'POST') {
          res.writeHead(405).end();
          return;
        }
        const body = JSON.parse(text) as Post['body'];
        posts.push({ body, headers: req.headers });
        if (body.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'legacy-1' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: body.id,
              result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'old', version: '1' } },
            }),
          );
        } else if (body.id === undefined) {
          res.writeHead(202).end();
        } else {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32000, message: 'Bad Request: Server not initialized' },
            }),
          );
        }
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    client = await connect(createHttpClientTransport({ url, openStandaloneStream: false }), info);
    expect([client.era, client.revision]).toEqual(['legacy', '2025-11-25']);
    await waitFor(() => posts.length === 3, 'notifications/initialized');
    expect(posts.map((post) => post.body.method)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
    expect(posts[1]!.headers['mcp-session-id']).toBeUndefined();
  });
});
