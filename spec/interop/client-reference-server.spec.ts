import { resolve } from 'node:path';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { ClientOptions, McpClient } from '../../lib/client/client';
import { ConnectionClosedError } from '../../lib/jsonrpc/errors';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import type { ReadResourceResult } from '../../lib/schema/resources';
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import type { StdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';

// The official reference server (`mcp-server-everything`; the first argument picks the transport).
const REFERENCE = resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const sampled = {
  role: 'assistant' as const,
  content: { type: 'text' as const, text: 'the model says hi' },
  model: 'test-model',
  stopReason: 'endTurn',
};

const fullOptions: ClientOptions = {
  name: 'rxmcp-interop',
  version: '1.0.0',
  roots: [{ uri: 'file:///workspace', name: 'workspace' }],
  sampling: () => sampled,
  elicitation: {
    url: true,
    applyDefaults: true,
    handler: (params) =>
      params.mode === 'url' ? { action: 'decline' } : { action: 'accept', content: { name: 'Ada Lovelace' } },
  },
};

const textOf = (content: ReadonlyArray<{ type: string; text?: unknown }>) =>
  content.map((block) => (block.type === 'text' ? String(block.text) : `[${block.type}]`)).join('\n');

describe('client against the reference everything server (stdio)', () => {
  let transport: StdioClientTransport;
  let client: McpClient;
  const sent: JsonRpcMessage[] = [];

  async function start(options: ClientOptions = fullOptions) {
    transport = createStdioClientTransport({ command: process.execPath, args: [REFERENCE, 'stdio'], stderr: 'ignore' });
    const send = transport.send.bind(transport);
    sent.length = 0;
    // Record what the client sends, to see cancellations on the wire.
    (transport as { send: typeof transport.send }).send = (message, sendOptions) => {
      sent.push(...(Array.isArray(message) ? message : [message as JsonRpcMessage]));
      send(message, sendOptions);
    };
    client = await connect(transport, options);
  }

  afterEach(async () => {
    const closed = firstValueFrom(client.closed$);
    client.close();
    await closed;
  });

  it('[lifecycle.client] negotiates 2025-11-25 and exposes server info, capabilities and instructions', async () => {
    await start();
    // A legacy server: the discovery probe fails, and the client falls back to initialize.
    expect(client.era).toBe('legacy');
    expect(client.revision).toBe('2025-11-25');
    expect(client.serverInfo).toMatchObject({ name: 'mcp-servers/everything' });
    expect(client.serverCapabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true } });
    expect(typeof client.instructions).toBe('string');
    await client.promises.ping();
  });

  it('[lists.list-changed] lists every kind, and the tool list refreshes when the server adds tools', async () => {
    await start();
    // The server registers the tools that need client capabilities after initialization and announces them.
    const tools = await firstValueFrom(
      client.tools$.pipe(filter((list) => list.some((tool) => tool.name === 'trigger-sampling-request'))),
    );
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'get-roots-list', 'trigger-elicitation-request']),
    );
    expect((await client.promises.listResources()).length).toBeGreaterThan(0);
    expect((await client.promises.listResourceTemplates()).map((t) => t.uriTemplate)).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );
    expect((await firstValueFrom(client.prompts$)).map((p) => p.name)).toEqual(
      expect.arrayContaining(['simple-prompt', 'args-prompt']),
    );
  });

  it('[tools.progress] streams progress events before the result', async () => {
    await start();
    const events = await lastValueFrom(
      client.callTool('trigger-long-running-operation', { duration: 0.3, steps: 3 }).pipe(toArray()),
    );
    expect(events.map((e) => e.type)).toEqual(['progress', 'progress', 'progress', 'result']);
    expect(events[2]).toEqual({ type: 'progress', progress: 3, total: 3 });
  });

  it('[tools.output-schema] checks structured content against the output schema', async () => {
    await start();
    const result = await client.promises.callTool('get-structured-content', { location: 'New York' });
    expect(result.structuredContent).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
  });

  it('[cancellation.client] unsubscribing a running tool sends notifications/cancelled and the client goes on', async () => {
    await start();
    await lastValueFrom(
      client.callTool('trigger-long-running-operation', { duration: 5, steps: 50 }).pipe(
        filter((e) => e.type === 'progress'),
        take(1),
      ),
    );
    expect(sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled')).toHaveLength(1);
    expect(client.connection.pendingRequests).toBe(0);
    expect(await client.promises.callTool('get-sum', { a: 2, b: 3 })).toMatchObject({
      content: [{ type: 'text', text: expect.stringContaining('5') }],
    });
  });

  it('[resources.subscribe] reads a resource and watches it: subscribe, updates, unsubscribe', async () => {
    await start();
    const uri = 'demo://resource/dynamic/text/1';
    const read = await client.promises.readResource(uri);
    expect(read.contents[0]).toMatchObject({ uri });
    const updates = lastValueFrom(client.watchResource(uri).pipe(take(2), toArray()));
    await firstValueFrom(client.watchResource(uri)); // a second watcher shares the subscription
    // The server sends notifications/resources/updated for subscribed URIs once this is on.
    await client.promises.callTool('toggle-subscriber-updates', {});
    const contents: ReadResourceResult[] = await updates;
    expect(contents).toHaveLength(2);
    await client.promises.callTool('toggle-subscriber-updates', {});
    const methods = sent.flatMap((m) => ('method' in m ? [m.method] : []));
    expect(methods.filter((m) => m === 'resources/subscribe')).toHaveLength(1);
    expect(methods.filter((m) => m === 'resources/unsubscribe')).toHaveLength(1);
  });

  it('[prompts.get] [completion.complete] gets prompts and completes arguments', async () => {
    await start();
    const prompt = await client.promises.getPrompt('args-prompt', { city: 'Oslo' });
    expect(JSON.stringify(prompt.messages)).toContain('Oslo');
    const completion = await client.promises.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    expect(completion.completion.values).toEqual(['Engineering']);
  });

  it('[logging.client] sets the level and receives the server log stream', async () => {
    await start();
    const message = firstValueFrom(client.logMessages$.pipe(filter((m) => String(m.data).includes('level'))));
    await client.promises.setLoggingLevel('debug');
    await client.promises.callTool('toggle-simulated-logging', {});
    expect(await message).toMatchObject({ level: expect.any(String), data: expect.any(String) });
    await client.promises.callTool('toggle-simulated-logging', {});
  });

  it('[sampling.handler] answers the server’s sampling request', async () => {
    await start();
    await firstValueFrom(client.tools$.pipe(filter((list) => list.some((t) => t.name === 'trigger-sampling-request'))));
    const result = await client.promises.callTool('trigger-sampling-request', { prompt: 'say hi' });
    expect(textOf(result.content)).toContain('the model says hi');
  });

  it('[elicitation.form] answers a form elicitation with the user input plus schema defaults', async () => {
    await start();
    await firstValueFrom(
      client.tools$.pipe(filter((list) => list.some((t) => t.name === 'trigger-elicitation-request'))),
    );
    const result = await client.promises.callTool('trigger-elicitation-request', {});
    const text = textOf(result.content);
    expect(text).toContain('Name: Ada Lovelace');
    expect(text).toContain('Favorite Integer: 42'); // a default from the schema
    expect(text).toContain('It was a dark and stormy night.');
  });

  it('[elicitation.url] answers a URL-mode elicitation', async () => {
    await start();
    await firstValueFrom(client.tools$.pipe(filter((list) => list.some((t) => t.name === 'trigger-url-elicitation'))));
    const result = await client.promises.callTool('trigger-url-elicitation', {
      url: 'https://example.com/login',
      elicitationId: 'e-1',
    });
    expect(textOf(result.content)).toMatch(/declined/);
  });

  it('[roots.list] serves roots and announces changes', async () => {
    await start();
    await firstValueFrom(client.tools$.pipe(filter((list) => list.some((t) => t.name === 'get-roots-list'))));
    expect(textOf((await client.promises.callTool('get-roots-list', {})).content)).toContain('file:///workspace');
    const refreshed = firstValueFrom(client.logMessages$.pipe(filter((m) => String(m.data).includes('Roots updated'))));
    client.setRoots([{ uri: 'file:///elsewhere', name: 'elsewhere' }]);
    await refreshed;
    expect(textOf((await client.promises.callTool('get-roots-list', {})).content)).toContain('file:///elsewhere');
  });

  it('[shutdown.peer] a server that dies fails every pending call at once and the client ends in shutdown', async () => {
    await start({ name: 'rxmcp-interop', version: '1.0.0' });
    const calls = [1, 2, 3].map(() =>
      client.promises.callTool('trigger-long-running-operation', { duration: 30, steps: 3 }),
    );
    await new Promise((done) => setTimeout(done, 100));
    expect(client.connection.pendingRequests).toBe(3);
    process.kill(transport.pid!, 'SIGKILL');
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes)
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(ConnectionClosedError);
    expect(client.state).toBe('shutdown');
  });
});
