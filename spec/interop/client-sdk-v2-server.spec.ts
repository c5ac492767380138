import type { IncomingMessage } from 'node:http';
import { acceptedContent, createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { firstValueFrom, lastValueFrom, skip, take, toArray } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { ClientOptions, McpClient } from '../../lib/client/client';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { hostWebHandler } from '../support/web-handler-host';
import type { HostedWebHandler } from '../support/web-handler-host';

/** The official TypeScript SDK v2 server: one factory, both eras, over its web-standard handler. */
function serverFactory(): McpServer {
  const server = new McpServer(
    { name: 'sdk-v2-server', version: '2.4.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.registerTool(
    'add',
    { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }),
  );
  server.registerTool(
    'deploy',
    { description: 'Asks first', inputSchema: z.object({ env: z.string() }) },
    ({ env }, ctx) => {
      const confirmation = z.object({ confirm: z.boolean() });
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation);
      if (answer?.confirm !== true) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: confirmation }),
          },
        });
      }
      return { content: [{ type: 'text', text: `deployed to ${env}` }] };
    },
  );
  server.registerTool(
    'regional',
    {
      description: 'Mirrors its region into a header',
      inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), query: z.string() }),
    },
    ({ region }) => ({ content: [{ type: 'text', text: `ran in ${region}` }] }),
  );
  server.registerResource('note', 'test://note', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, text: 'a note' }],
  }));
  server.registerPrompt('greet', { description: 'Greets', argsSchema: z.object({ who: z.string() }) }, ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${who}` } }],
  }));
  return server;
}

/** What the server saw of each POST: its JSON-RPC method and its Mcp-Param-Region header. */
const posts: Array<{ method: string; region?: string }> = [];

/** Records the JSON-RPC method and the Mcp-Param-Region header of each POST. */
function recordPost(body: Buffer, req: IncomingMessage): void {
  const region = req.headers['mcp-param-region'];
  posts.push({
    method: String((JSON.parse(body.toString()) as { method?: unknown }).method),
    ...(typeof region === 'string' ? { region } : {}),
  });
}

const options: ClientOptions = {
  name: 'rxmcp-interop',
  version: '1.0.0',
  elicitation: () => ({ action: 'accept', content: { confirm: true } }),
};

describe('rxmcp client against the official SDK v2 server (Streamable HTTP)', () => {
  let handler: McpHttpHandler;
  let http: HostedWebHandler;
  let client: McpClient | undefined;

  beforeEach(async () => {
    handler = createMcpHandler(serverFactory);
    http = await hostWebHandler(handler, recordPost);
  });

  afterEach(async () => {
    posts.length = 0;
    client?.close();
    client = undefined;
    await handler.close();
    await http.close();
  });

  it('[versioning.probe-modern] negotiates 2026-07-28 by discovery and calls tools in the modern way', async () => {
    client = await connect(createStreamableHttpClientTransport({ url: http.url }), options);
    expect([client.era, client.revision]).toEqual(['modern', '2026-07-28']);
    expect(client.serverInfo).toMatchObject({ name: 'sdk-v2-server' });
    expect((await client.promises.listTools()).map((tool) => tool.name)).toEqual(['add', 'deploy', 'regional']);
    await expect(client.promises.callTool('add', { a: 2, b: 40 })).resolves.toEqual({
      content: [{ type: 'text', text: '42' }],
    });
  });

  it('[mrtr.round-trip] answers the server’s input request with the elicitation handler', async () => {
    client = await connect(createStreamableHttpClientTransport({ url: http.url }), options);
    const events = await lastValueFrom(client.callTool('deploy', { env: 'prod' }).pipe(toArray()));
    expect(events.map((event) => event.type)).toEqual(['input_required', 'result']);
    expect(events.at(-1)).toEqual({
      type: 'result',
      result: { content: [{ type: 'text', text: 'deployed to prod' }] },
    });
  });

  it('[x-mcp-header.client] mirrors an annotated argument into its Mcp-Param header, which the server checks', async () => {
    client = await connect(createStreamableHttpClientTransport({ url: http.url }), options);
    await client.promises.listTools();
    await expect(client.promises.callTool('regional', { region: 'Zürich', query: 'q' })).resolves.toEqual({
      content: [{ type: 'text', text: 'ran in Zürich' }],
    });
    expect(posts.filter((post) => post.method === 'tools/call')).toEqual([
      { method: 'tools/call', region: `=?base64?${Buffer.from('Zürich').toString('base64')}?=` },
    ]);
  });

  it('[x-mcp-header.mismatch-retry] a call made before listing is refused for its missing header, then sent again with it', async () => {
    client = await connect(createStreamableHttpClientTransport({ url: http.url }), options);
    await expect(client.promises.callTool('regional', { region: 'eu', query: 'q' })).resolves.toEqual({
      content: [{ type: 'text', text: 'ran in eu' }],
    });
    expect(posts.filter((post) => post.method !== 'server/discover')).toEqual([
      { method: 'tools/call' },
      { method: 'tools/list' },
      { method: 'tools/call', region: 'eu' },
    ]);
  });

  it('[resources.read] [prompts.get] reads a resource and gets a prompt', async () => {
    client = await connect(createStreamableHttpClientTransport({ url: http.url }), options);
    await expect(client.promises.readResource('test://note')).resolves.toMatchObject({
      contents: [{ uri: 'test://note', text: 'a note' }],
    });
    const prompt = await client.promises.getPrompt('greet', { who: 'Ada' });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada' } }]);
  });

  it('[subscriptions.tools] hears of tool list changes on a subscriptions/listen stream', async () => {
    client = await connect(createStreamableHttpClientTransport({ url: http.url }), options);
    const refreshed = firstValueFrom(client.tools$.pipe(skip(2), take(1)));
    // The first list, then the refresh that follows the acknowledgement; then a change.
    await firstValueFrom(client.tools$.pipe(skip(1)));
    handler.notify.toolsChanged();
    await expect(refreshed).resolves.toHaveLength(3);
  });

  it('[versioning.pinned-legacy] still speaks the handshake when 2025-11-25 is pinned', async () => {
    client = await connect(createStreamableHttpClientTransport({ url: http.url }), {
      ...options,
      protocolVersion: '2025-11-25',
    });
    expect([client.era, client.revision]).toEqual(['legacy', '2025-11-25']);
    await expect(client.promises.callTool('add', { a: 1, b: 2 })).resolves.toMatchObject({
      content: [{ type: 'text', text: '3' }],
    });
  });
});
