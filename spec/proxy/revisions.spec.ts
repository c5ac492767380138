import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { filter, firstValueFrom, skip, Subject, take } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { proxy } from '../../lib/proxy/proxy';
import type { McpProxy } from '../../lib/proxy/proxy';
import { aggregate } from '../../lib/proxy/aggregate';
import { createProxyRouter } from '../../lib/proxy/proxy-router';
import type { ProxyRouter } from '../../lib/proxy/proxy-router';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';

// composition issue, item 3: any revision on either side of a proxy. Server-to-client requests of
// the handshake revisions and the multi round-trip requests of 2026-07-28 stand for each other, as
// do resources/subscribe and subscriptions/listen, and logging/setLevel and the per-request level.

const INFO = { name: 'revisions-spec', version: '1.0.0' };

const textOf = (result: { content: ReadonlyArray<{ type: string; text?: unknown }> }) =>
  result.content.map((block) => String(block.text)).join('');

/** Handlers a downstream client answers the upstream's questions with. */
const ANSWERS = {
  roots: [{ uri: 'file:///work', name: 'work' }],
  sampling: (params: { messages: ReadonlyArray<{ content: unknown }> }) => ({
    role: 'assistant' as const,
    content: { type: 'text' as const, text: `heard ${(params.messages[0]!.content as { text: string }).text}` },
    model: 'm',
  }),
  elicitation: () => ({ action: 'accept' as const, content: { name: 'ada', username: 'ada', email: 'a@b.c' } }),
};

describe('a 2025-06-18 client through the proxy to a 2026-07-28 server over Streamable HTTP', () => {
  let upstreamServer: McpServer;
  let running: RunningStreamableHttpServer;
  let upstream: McpClient;
  let front: McpProxy;
  let downstream: McpClient;
  let version = 'v1';

  beforeAll(async () => {
    upstreamServer = createServer({ name: 'modern', version: '1.0.0' });
    upstreamServer.tool({
      name: 'ask',
      inputSchema: z.object({ prompt: z.string() }),
      handler: async ({ prompt }, context) => {
        const answer = await firstValueFrom(
          context.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 10 }),
        );
        const form = await firstValueFrom(
          context.elicit({
            message: 'Who are you?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          }),
        );
        return textResult(`${(answer.content as { text?: string }).text} / ${String(form.content?.name)}`);
      },
    });
    upstreamServer.tool({
      name: 'roots',
      inputSchema: z.object({}),
      handler: async (_args, context) => {
        const { roots } = await firstValueFrom(context.listRoots());
        return textResult(roots.map((root) => root.uri).join(' '));
      },
    });
    upstreamServer.tool({
      name: 'level',
      inputSchema: z.object({}),
      handler: (_args, context) => {
        context.log('info', 'an info line');
        context.log('debug', 'a debug line');
        return textResult(String(context.meta?.['io.modelcontextprotocol/logLevel']));
      },
    });
    upstreamServer.resource({
      uri: 'demo://doc',
      name: 'doc',
      mimeType: 'text/plain',
      read: () => ({ contents: [{ text: version }] }),
    });
    running = await startStreamableHttpServer({ server: upstreamServer, port: 0, host: '127.0.0.1' });
    const router = createProxyRouter();
    upstream = await connect(createStreamableHttpClientTransport({ url: running.url }), {
      ...INFO,
      protocolVersion: '2026-07-28',
      ...router.clientOptions,
    });
    front = proxy(upstream, { router });
    const [clientSide, serverSide] = createInMemoryPair();
    front.connect(serverSide);
    downstream = await connect(clientSide, { ...INFO, protocolVersion: '2025-06-18', ...ANSWERS });
  });

  afterAll(async () => {
    downstream.close();
    front.close();
    upstream.close();
    await running.close();
    upstreamServer.close();
  });

  it('speaks 2026-07-28 upstream and 2025-06-18 downstream', () => {
    expect(upstream.revision).toBe('2026-07-28');
    expect(downstream.revision).toBe('2025-06-18');
  });

  it('turns the upstream’s input_required results into requests to the downstream caller', async () => {
    const result = await downstream.promises.callTool('ask', { prompt: 'hi' });
    expect(textOf(result)).toBe('heard hi / ada');
    expect(result).not.toHaveProperty('resultType');
  });

  it('asks the downstream caller for its roots when the upstream asks', async () => {
    const result = await downstream.promises.callTool('roots', {});
    expect(textOf(result)).toBe('file:///work');
  });

  it('follows a downstream resources/subscribe with an upstream subscriptions/listen', async () => {
    const contents = downstream.watchResource('demo://doc');
    const updated = firstValueFrom(contents.pipe(skip(1), take(1)));
    await firstValueFrom(contents);
    version = 'v2';
    upstreamServer.resourceUpdated('demo://doc');
    const read = await updated;
    expect((read.contents[0] as { text?: string }).text).toBe('v2');
  });

  it('sends the downstream session’s log level with each upstream request, and relays what it lets through', async () => {
    await downstream.promises.setLoggingLevel('info');
    const lines: string[] = [];
    const relayed = downstream.logMessages$.subscribe((message) => lines.push(String(message.data)));
    const result = await downstream.promises.callTool('level', {});
    relayed.unsubscribe();
    expect(textOf(result)).toBe('info');
    expect(lines).toContain('an info line');
    expect(lines).not.toContain('a debug line');
  });
});

describe('a 2026-07-28 client over Streamable HTTP through the proxy to a 2025-06-18 server over stdio', () => {
  const SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');
  let upstream: McpClient;
  let front: McpProxy;
  let running: RunningStreamableHttpServer;
  let downstream: McpClient;
  let router: ProxyRouter;

  beforeAll(async () => {
    if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run npm run build first`);
    router = createProxyRouter();
    upstream = await connect(
      createStdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' }),
      { ...INFO, protocolVersion: '2025-06-18', ...router.clientOptions },
    );
    front = proxy(upstream, { name: 'front', version: '1.0.0', router });
    running = await startStreamableHttpServer({ server: front, port: 0, host: '127.0.0.1' });
    downstream = await connect(createStreamableHttpClientTransport({ url: running.url }), {
      ...INFO,
      protocolVersion: '2026-07-28',
      ...ANSWERS,
    });
  });

  afterAll(async () => {
    downstream.close();
    front.close();
    await running.close();
    const closed = firstValueFrom(upstream.closed$);
    upstream.close();
    await closed;
  });

  it('speaks 2025-06-18 upstream and 2026-07-28 downstream', () => {
    expect(upstream.revision).toBe('2025-06-18');
    expect(downstream.revision).toBe('2026-07-28');
  });

  it('answers the upstream’s sampling request through an input_required round with the caller', async () => {
    const rounds: number[] = [];
    const events = downstream.callTool('test_sampling', { prompt: 'hello' });
    const result = await new Promise<unknown>((done, fail) =>
      events.subscribe({
        next: (event) => {
          if (event.type === 'input_required') rounds.push(event.round);
          if (event.type === 'result') done(event.result);
        },
        error: fail,
      }),
    );
    expect(rounds).toEqual([1]);
    expect(textOf(result as { content: Array<{ type: string; text?: unknown }> })).toBe('LLM response: heard hello');
  });

  it('answers the upstream’s elicitation the same way', async () => {
    const result = await downstream.promises.callTool('test_elicitation', { message: 'who?' });
    expect(textOf(result)).toBe(
      'User response: action=accept, content={"name":"ada","username":"ada","email":"a@b.c"}',
    );
  });

  it('relays the upstream’s log messages during a call to the caller, at the level its request carries', async () => {
    await downstream.promises.setLoggingLevel('info');
    const lines: unknown[] = [];
    const relayed = downstream.logMessages$.subscribe((message) => lines.push(message.data));
    await downstream.promises.callTool('test_tool_with_logging', {});
    relayed.unsubscribe();
    expect(lines.length).toBeGreaterThan(0);
  });

  it('refuses a retry whose requestState the proxy does not know, saying what to do', async () => {
    const error = await firstValueFrom(
      downstream.request('tools/call', {
        name: 'test_sampling',
        arguments: { prompt: 'x' },
        inputResponses: { '1': { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' } },
        requestState: 'no-such-state',
      }),
    ).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32602);
    expect((error as JsonRpcError).message).toMatch(/requestState/);
  });

  it('serves the caller’s subscriptions/listen with the upstream’s resources/subscribe', async () => {
    const updates = new Subject<string>();
    const watching = downstream.watchResource('rxmcp://ticker').subscribe({
      next: (read) => updates.next(String((read.contents[0] as { text?: string }).text)),
    });
    const seen = await firstValueFrom(updates.pipe(filter(Boolean), skip(1), take(1)));
    watching.unsubscribe();
    expect(JSON.parse(seen)).toHaveProperty('now');
  });

  it('does the same through an aggregate: a bridged call and a listen stream under namespaced names', async () => {
    const hub = aggregate({ ex: upstream }, { router });
    const hubServer = await startStreamableHttpServer({ server: hub, port: 0, host: '127.0.0.1' });
    const caller = await connect(createStreamableHttpClientTransport({ url: hubServer.url }), {
      ...INFO,
      protocolVersion: '2026-07-28',
      ...ANSWERS,
    });
    try {
      const sampled = await caller.promises.callTool('ex_test_sampling', { prompt: 'via hub' });
      expect(textOf(sampled)).toBe('LLM response: heard via hub');
      const updates = new Subject<string>();
      const watching = caller.watchResource('ex+rxmcp://ticker').subscribe({
        next: (read) => updates.next(String((read.contents[0] as { text?: string }).text)),
      });
      const seen = await firstValueFrom(updates.pipe(filter(Boolean), skip(1), take(1)));
      watching.unsubscribe();
      expect(JSON.parse(seen)).toHaveProperty('now');
    } finally {
      caller.close();
      hub.close();
      await hubServer.close();
    }
  });
});
