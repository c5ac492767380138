import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { aggregate } from '../../lib/proxy/aggregate';
import type { McpProxy } from '../../lib/proxy/proxy';
import { createProxyRouter } from '../../lib/proxy/proxy-router';
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import type { StdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { startExample, stopExample } from '../support/example-server';
import type { RunningExample } from '../support/example-server';
import { eventually } from '../support/until';
import { hostWebHandler } from '../support/web-handler-host';
import type { HostedWebHandler } from '../support/web-handler-host';

// The composition issue's end-to-end proof: three real upstreams of three implementations behind
// one aggregate — the official reference server over stdio, rxmcp's example server over Streamable
// HTTP in its own process, the official SDK v2 server over its web-standard handler — and the
// official SDK client downstream.

const REFERENCE = resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const INFO = { name: 'aggregate-spec', version: '1.0.0' };

type Content = Array<{ type: string; text?: string }>;
const textOf = (result: object) =>
  (((result as { content?: unknown }).content ?? []) as Content).map((block) => String(block.text)).join('\n');

/** What the SDK v2 server's `wait` tool saw: each call's start and abort. */
const started: string[] = [];
const aborted: string[] = [];

/** Resolves with the first value `record` is given that passes `test` (notifications arrive in real time). */
function nextMatching<T>(test: (value: T) => boolean): { record(value: T): void; next: Promise<T> } {
  let resolveNext!: (value: T) => void;
  const next = new Promise<T>((done) => (resolveNext = done));
  return { record: (value) => test(value) && resolveNext(value), next };
}

function sdkV2Server(): McpServer {
  const server = new McpServer({ name: 'sdk-v2', version: '2.4.0' });
  server.registerTool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerTool('wait', { inputSchema: z.object({ id: z.string() }) }, ({ id }, ctx) => {
    started.push(id);
    return new Promise((done) => {
      ctx.mcpReq.signal.addEventListener('abort', () => {
        aborted.push(id);
        done({ content: [{ type: 'text', text: 'stopped' }] });
      });
    });
  });
  return server;
}

describe('an aggregate of real upstreams, served to the official SDK client', () => {
  let reference: StdioClientTransport;
  let everything: McpClient;
  let example: RunningExample;
  let exampleClient: McpClient;
  let sdkHost: HostedWebHandler;
  let sdkClient: McpClient;
  let front: McpProxy;
  let running: RunningStreamableHttpServer;
  let downstream: Client;
  const listChanges: number[] = [];
  let updated = nextMatching<string>(() => true);

  beforeAll(async () => {
    const router = createProxyRouter();
    reference = createStdioClientTransport({ command: process.execPath, args: [REFERENCE, 'stdio'], stderr: 'ignore' });
    everything = await connect(reference, { ...INFO, ...router.clientOptions });
    example = await startExample();
    exampleClient = await connect(createStreamableHttpClientTransport({ url: example.url }), INFO);
    sdkHost = await hostWebHandler(createMcpHandler(sdkV2Server));
    sdkClient = await connect(createStreamableHttpClientTransport({ url: sdkHost.url }), INFO);
    front = aggregate({ everything, example: exampleClient, sdk: sdkClient }, { router });
    running = await startStreamableHttpServer({ server: front, port: 0, host: '127.0.0.1' });
    downstream = new Client({ name: 'sdk-downstream', version: '1.0.0' }, { capabilities: { sampling: {} } });
    downstream.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      role: 'assistant',
      content: { type: 'text', text: `sdk heard ${(request.params.messages[0]!.content as { text: string }).text}` },
      model: 'downstream-model',
    }));
    downstream.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanges.push(Date.now()));
    downstream.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => updated.record(note.params.uri));
    await downstream.connect(new StreamableHTTPClientTransport(new URL(running.url)));
  }, 30_000);

  afterAll(async () => {
    await downstream.close();
    front.close();
    await running.close();
    for (const client of [everything, exampleClient, sdkClient]) client.close();
    await stopExample(example);
    await sdkHost.close();
  });

  it('lists every upstream’s tools under its namespace', async () => {
    const { tools } = await downstream.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['everything_echo', 'example_add', 'sdk_add', 'sdk_wait']));
  });

  it('calls a tool of each upstream', async () => {
    const echo = await downstream.callTool({ name: 'everything_echo', arguments: { message: 'hi' } });
    expect(textOf(echo)).toBe('Echo: hi');
    const sum = await downstream.callTool({ name: 'example_add', arguments: { a: 2, b: 40 } });
    expect(textOf(sum)).toContain('42');
    const sdkSum = await downstream.callTool({ name: 'sdk_add', arguments: { a: 1, b: 2 } });
    expect(textOf(sdkSum)).toBe('3');
  });

  it('passes the reference server’s progress to the caller', async () => {
    const progress: number[] = [];
    await downstream.callTool(
      { name: 'everything_trigger-long-running-operation', arguments: { duration: 0.2, steps: 3 } },
      undefined,
      { onprogress: (update) => progress.push(update.progress) },
    );
    expect(progress.length).toBeGreaterThanOrEqual(2);
  });

  it('cancels a long call: the upstream handler sees the cancellation', async () => {
    const abort = new AbortController();
    const call = downstream
      .callTool({ name: 'sdk_wait', arguments: { id: 'long' } }, undefined, { signal: abort.signal })
      .catch((error: unknown) => error);
    await eventually(() => started.includes('long'));
    expect(aborted).toEqual([]);
    abort.abort('enough');
    expect(await call).toBeInstanceOf(Error);
    await eventually(() => aborted.includes('long'));
  });

  it('answers the reference server’s sampling request from the downstream client', async () => {
    const result = await downstream.callTool({
      name: 'everything_trigger-sampling-request',
      arguments: { prompt: 'ping', maxTokens: 5 },
    });
    expect(textOf(result)).toMatch(/downstream-model[\s\S]*sdk heard .*ping/);
  });

  it('reads and subscribes to resources under their namespaced URIs', async () => {
    const read = await downstream.readResource({ uri: 'example+test://static-text' });
    expect((read.contents[0] as { text?: string }).text).toBeTruthy();
    updated = nextMatching((uri) => uri === 'example+rxmcp://ticker');
    await downstream.subscribeResource({ uri: 'example+rxmcp://ticker' });
    expect(await updated.next).toBe('example+rxmcp://ticker');
    await downstream.unsubscribeResource({ uri: 'example+rxmcp://ticker' });
  });

  it('keeps serving when one upstream is killed, and leaves its tools out', async () => {
    const changesBefore = listChanges.length;
    const closed = firstValueFrom(everything.closed$);
    process.kill(reference.pid!, 'SIGKILL');
    await closed;
    await eventually(() => listChanges.length > changesBefore);
    const { tools } = await downstream.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names.some((name) => name.startsWith('everything_'))).toBe(false);
    expect(names).toEqual(expect.arrayContaining(['example_add', 'sdk_add']));
    const sum = await downstream.callTool({ name: 'example_add', arguments: { a: 1, b: 1 } });
    expect(textOf(sum)).toContain('2');
  });
});
