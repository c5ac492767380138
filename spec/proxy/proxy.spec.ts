import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { filter, firstValueFrom, lastValueFrom, NEVER, Subject, take, toArray } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { proxy } from '../../lib/proxy/proxy';
import type { McpProxy } from '../../lib/proxy/proxy';
import { createProxyRouter } from '../../lib/proxy/proxy-router';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { until } from '../support/until';
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';

const INFO = { name: 'proxy-spec', version: '1.0.0' };

/** A client of `target` over an in-memory pair, pinned to a handshake revision. */
async function clientOf(
  target: { connect(transport: ReturnType<typeof createInMemoryPair>[1]): unknown },
  protocolVersion: '2025-11-25' | '2025-06-18' = '2025-11-25',
): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  target.connect(serverSide);
  return connect(clientSide, { ...INFO, protocolVersion });
}

const textOf = (result: { content: ReadonlyArray<{ type: string; text?: unknown }> }) =>
  result.content.map((block) => String(block.text)).join('');

describe('proxy over an in-memory upstream', () => {
  let upstreamServer: McpServer;
  let upstream: McpClient;
  let front: McpProxy;
  let downstream: McpClient;
  const cancelled = new Subject<string>();
  let version = 'v1';
  let running = 0;

  beforeEach(async () => {
    upstreamServer = createServer({ name: 'upstream', version: '2.0.0', instructions: 'ask nicely' });
    upstreamServer.tool({
      name: 'add',
      description: 'Adds',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => textResult(String(a + b)),
    });
    upstreamServer.tool({
      name: 'steps',
      inputSchema: z.object({ n: z.number() }),
      handler: async ({ n }, context) => {
        for (let i = 1; i <= n; i++) context.progress(i, n, `step ${i}`);
        return textResult(`done ${n}`);
      },
    });
    upstreamServer.tool({
      name: 'forever',
      inputSchema: z.object({}),
      handler: (_args, context) => {
        running++;
        context.signal.addEventListener('abort', () => cancelled.next('forever'));
        return NEVER;
      },
    });
    upstreamServer.tool({
      name: 'meta',
      inputSchema: z.object({}),
      handler: (_args, context) => textResult(JSON.stringify(context.meta ?? {})),
    });
    version = 'v1';
    upstreamServer.resource({
      uri: 'demo://doc',
      name: 'doc',
      mimeType: 'text/plain',
      read: () => ({ contents: [{ text: version }] }),
    });
    upstream = await clientOf(upstreamServer);
    front = proxy(upstream);
    downstream = await clientOf(front);
  });

  afterEach(() => {
    downstream.close();
    front.close();
    upstream.close();
    upstreamServer.close();
  });

  it('presents the upstream server: its identity, instructions, capabilities and tools', async () => {
    expect(downstream.serverInfo).toMatchObject({ name: 'upstream', version: '2.0.0' });
    expect(downstream.instructions).toBe('ask nicely');
    expect(downstream.serverCapabilities).toMatchObject({
      tools: { listChanged: true },
      resources: { subscribe: true },
    });
    const tools = await firstValueFrom(downstream.tools$);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'forever', 'meta', 'steps']);
    expect(tools.find((tool) => tool.name === 'add')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
  });

  it('forwards a call and its progress, under the caller’s own token', async () => {
    const events = await lastValueFrom(downstream.callTool('steps', { n: 3 }).pipe(toArray()));
    expect(events.filter((event) => event.type === 'progress').map((event) => event.progress)).toEqual([1, 2, 3]);
    const last = events.at(-1)!;
    expect(last.type === 'result' && textOf(last.result)).toBe('done 3');
  });

  it('passes _meta on, less the hop-specific progress token', async () => {
    const result = await firstValueFrom(
      downstream.request('tools/call', {
        name: 'meta',
        arguments: {},
        _meta: { 'example.com/trace': 'abc', progressToken: 7 },
      }),
    );
    const seen = JSON.parse(textOf(result as never)) as Record<string, unknown>;
    expect(seen['example.com/trace']).toBe('abc');
    expect(seen.progressToken).not.toBe(7);
  });

  it('relays a call that asks for no progress with the caller’s _meta, less what belongs to its hop', async () => {
    const result = await firstValueFrom(
      downstream.request('tools/call', {
        name: 'meta',
        arguments: {},
        _meta: { 'example.com/trace': 'abc', 'io.modelcontextprotocol/logLevel': 'debug' },
      }),
    );
    expect(JSON.parse(textOf(result as never))).toEqual({ 'example.com/trace': 'abc' });
  });

  it('relays a call whose _meta is not an object, without it', async () => {
    for (const meta of [null, 'trace', 7]) {
      const result = await firstValueFrom(
        downstream.request('tools/call', { name: 'meta', arguments: {}, _meta: meta }),
      );
      expect(JSON.parse(textOf(result as never))).toEqual({});
    }
  });

  it('cancels a relayed call upstream when the downstream connection closes', async () => {
    const observed = firstValueFrom(cancelled);
    running = 0;
    downstream.callTool('forever', {}).subscribe({ error: () => undefined });
    await until(() => running === 1);
    downstream.close();
    await expect(observed).resolves.toBe('forever');
  });

  it('fails a call the upstream does not answer within requestTimeoutMs, and cancels it upstream', async () => {
    const timed = proxy(upstream, { requestTimeoutMs: 5_000 });
    const caller = await clientOf(timed);
    const observed = firstValueFrom(cancelled);
    running = 0;
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const failure = firstValueFrom(caller.request('tools/call', { name: 'forever', arguments: {} }), {
        defaultValue: undefined,
      }).catch((error: unknown) => error);
      await until(() => running === 1);
      jest.advanceTimersByTime(5_001);
      const error = (await failure) as JsonRpcError;
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error.code).toBe(-32001);
      expect(error.message).toMatch(/timed out after 5000 ms/);
      await expect(observed).resolves.toBe('forever');
    } finally {
      jest.useRealTimers();
      caller.close();
      timed.close();
    }
  });

  it('cancels the upstream call when the downstream caller unsubscribes', async () => {
    const observed = firstValueFrom(cancelled);
    running = 0;
    const call = downstream.callTool('forever', {}).subscribe();
    await until(() => running === 1);
    call.unsubscribe();
    await expect(observed).resolves.toBe('forever');
  });

  it('answers with the upstream error and its code', async () => {
    const failure = await firstValueFrom(downstream.request('resources/read', { uri: 'demo://missing' })).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(JsonRpcError);
    expect((failure as JsonRpcError).code).toBe(-32002);
  });

  it('leaves params to the upstream to check: a bad request gets its -32602, and the proxy serves on', async () => {
    const failure = await firstValueFrom(downstream.request('prompts/get', { name: 42 }).pipe(take(1))).catch(
      (error: unknown) => error,
    );
    const badCall = await firstValueFrom(downstream.request('tools/call', { name: ['add'] })).catch(
      (error: unknown) => error,
    );
    expect([failure, badCall].map((error) => (error as JsonRpcError).code)).toEqual([-32601, -32602]);
    const result = await firstValueFrom(downstream.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }));
    expect(textOf(result as never)).toBe('3');
  });

  it('tells downstream clients when the upstream list changes', async () => {
    const lists = downstream.tools$.pipe(take(2), toArray());
    const seen = lastValueFrom(lists);
    await firstValueFrom(downstream.tools$);
    upstreamServer.tool({ name: 'late', inputSchema: z.object({}), handler: () => textResult('late') });
    const [before, after] = await seen;
    expect(before!.map((tool) => tool.name)).not.toContain('late');
    expect(after!.map((tool) => tool.name)).toContain('late');
  });

  it('shares one upstream subscription among downstream subscribers and relays updates', async () => {
    const second = await clientOf(front, '2025-06-18');
    const sees = (client: McpClient, text: string) =>
      firstValueFrom(
        client
          .watchResource('demo://doc')
          .pipe(filter((read) => (read.contents[0] as { text?: string }).text === text)),
      );
    await Promise.all([sees(downstream, 'v1'), sees(second, 'v1')]);
    const firstSees = sees(downstream, 'v2');
    const secondSees = sees(second, 'v2');
    // The first watches ended with their first value, and these started new ones: one upstream subscription again.
    const session = [...upstreamServer.sessions][0]!;
    await until(() => session.subscriptions.size > 0);
    expect(session.subscriptions).toEqual(new Set(['demo://doc']));
    version = 'v2';
    upstreamServer.resourceUpdated('demo://doc');
    await expect(Promise.all([firstSees, secondSees])).resolves.toHaveLength(2);
    second.close();
  });

  it('ends the upstream subscription when the last downstream subscriber leaves', async () => {
    const watching = downstream.watchResource('demo://doc').subscribe();
    const session = [...upstreamServer.sessions][0]!;
    await until(() => session.subscriptions.has('demo://doc'));
    watching.unsubscribe();
    await until(() => session.subscriptions.size === 0);
  });

  it('relays the upstream log messages at the level each downstream client set', async () => {
    await downstream.promises.setLoggingLevel('warning');
    const messages = firstValueFrom(downstream.logMessages$);
    await upstream.promises.setLoggingLevel('debug');
    upstreamServer.log('info', 'quiet');
    upstreamServer.log('error', 'loud');
    await expect(messages).resolves.toMatchObject({ level: 'error', data: 'loud' });
  });
});

// The example server as a real upstream, launched over stdio; an older revision downstream.
describe('proxy in front of the example server over stdio', () => {
  const SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');
  let upstream: McpClient;
  let front: McpProxy;
  let downstream: McpClient;

  beforeAll(async () => {
    if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run npm run build first`);
    upstream = await connect(
      createStdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' }),
      { ...INFO, protocolVersion: '2025-11-25' },
    );
    front = proxy(upstream, { name: 'front', version: '1.0.0' });
    downstream = await clientOf(front, '2025-06-18');
  });

  afterAll(async () => {
    downstream.close();
    front.close();
    const closed = firstValueFrom(upstream.closed$);
    upstream.close();
    await closed;
  });

  it('lists and calls the upstream tools, with progress', async () => {
    expect(downstream.serverInfo.name).toBe('front');
    const tools = await firstValueFrom(downstream.tools$);
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['add', 'countdown', 'test_tool_with_progress']),
    );
    const sum = await downstream.promises.callTool('add', { a: 2, b: 40 });
    expect(textOf(sum)).toContain('42');
    const events = await lastValueFrom(downstream.callTool('test_tool_with_progress', {}).pipe(toArray()));
    expect(events.filter((event) => event.type === 'progress').length).toBeGreaterThan(0);
    expect(events.at(-1)?.type).toBe('result');
  });

  it('reads resources and templates and gets prompts', async () => {
    const read = await downstream.promises.readResource('test://static-text');
    expect((read.contents[0] as { text?: string }).text).toBeTruthy();
    const templates = await downstream.promises.listResourceTemplates();
    expect(templates.map((template) => template.uriTemplate)).toContain('test://template/{id}/data');
    const prompt = await downstream.promises.getPrompt('test_prompt_with_arguments', { arg1: 'a', arg2: 'b' });
    expect(prompt.messages.length).toBeGreaterThan(0);
  });
});

// The upstream asks for input during a call: the router carries the request to the caller.
describe('proxy with a router: the upstream’s sampling and elicitation reach the downstream caller', () => {
  let upstreamServer: McpServer;
  let upstream: McpClient;
  let front: McpProxy;
  let running: RunningStreamableHttpServer | undefined;
  let sdkClient: Client | undefined;

  beforeEach(async () => {
    upstreamServer = createServer({ name: 'asker', version: '1.0.0' });
    upstreamServer.tool({
      name: 'ask',
      inputSchema: z.object({ prompt: z.string() }),
      handler: async ({ prompt }, context) => {
        if (prompt === 'refused?') {
          const refusal = await firstValueFrom(
            context.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 10 }),
          ).catch((error: JsonRpcError) => `${error.code} ${error.message}`);
          return textResult(String(refusal));
        }
        const answer = await firstValueFrom(
          context.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 10 }),
        );
        const form = await firstValueFrom(
          context.elicit({
            message: 'Who are you?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          }),
        );
        return textResult(`${(answer.content as { text?: string }).text} / ${JSON.stringify(form.content)}`);
      },
    });
    const router = createProxyRouter();
    const [clientSide, serverSide] = createInMemoryPair();
    upstreamServer.connect(serverSide);
    upstream = await connect(clientSide, { ...INFO, protocolVersion: '2025-11-25', ...router.clientOptions });
    front = proxy(upstream, { router });
  });

  afterEach(async () => {
    await sdkClient?.close();
    sdkClient = undefined;
    front.close();
    await running?.close();
    running = undefined;
    upstream.close();
    upstreamServer.close();
  });

  it('tells the upstream when a downstream client’s roots change', async () => {
    const upstreamSession = [...upstreamServer.sessions][0]!;
    const told = firstValueFrom(
      upstreamSession.connection.notifications$.pipe(
        filter((message) => message.method === 'notifications/roots/list_changed'),
      ),
    );
    const [clientSide, serverSide] = createInMemoryPair();
    front.connect(serverSide);
    const downstream = await connect(clientSide, {
      ...INFO,
      protocolVersion: '2025-11-25',
      roots: [{ uri: 'file:///a', name: 'a' }],
    });
    downstream.setRoots([{ uri: 'file:///b', name: 'b' }]);
    await expect(told).resolves.toMatchObject({ method: 'notifications/roots/list_changed' });
    downstream.close();
  });

  it('asks our client downstream, related to its call', async () => {
    const [clientSide, serverSide] = createInMemoryPair();
    front.connect(serverSide);
    const downstream = await connect(clientSide, {
      ...INFO,
      protocolVersion: '2025-06-18',
      sampling: (params) => ({
        role: 'assistant',
        content: { type: 'text', text: `heard ${(params.messages[0]!.content as { text: string }).text}` },
        model: 'm',
      }),
      elicitation: () => ({ action: 'accept', content: { name: 'ada' } }),
    });
    const result = await downstream.promises.callTool('ask', { prompt: 'hi' });
    expect(textOf(result)).toBe('heard hi / {"name":"ada"}');
    downstream.close();
  });

  it('refuses the upstream’s request when the caller did not declare the capability', async () => {
    const [clientSide, serverSide] = createInMemoryPair();
    front.connect(serverSide);
    const downstream = await connect(clientSide, { ...INFO, protocolVersion: '2025-11-25' });
    const result = await downstream.promises.callTool('ask', { prompt: 'refused?' });
    expect(textOf(result)).toMatch(/^-32601 .*downstream client cannot answer sampling\/createMessage.*sampling/);
    downstream.close();
  });

  it('serves the official SDK client over Streamable HTTP, sampling included', async () => {
    running = await startStreamableHttpServer({ server: front, port: 0, host: '127.0.0.1' });
    sdkClient = new Client(
      { name: 'sdk-downstream', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: {} } },
    );
    sdkClient.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      role: 'assistant',
      content: { type: 'text', text: `sdk heard ${(request.params.messages[0]!.content as { text: string }).text}` },
      model: 'm',
    }));
    sdkClient.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'sdk' } }));
    await sdkClient.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    const tools = await sdkClient.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(['ask']);
    const progress: number[] = [];
    const result = await sdkClient.callTool({ name: 'ask', arguments: { prompt: 'yo' } }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    });
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe('sdk heard yo / {"name":"sdk"}');
  });
});
