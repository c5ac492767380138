import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import type { StdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';

// rxmcp's own example server, built (npm test builds first).
const SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');

const textOf = (content: ReadonlyArray<{ type: string; text?: unknown }>) =>
  content.map((block) => (block.type === 'text' ? String(block.text) : `[${block.type}]`)).join('\n');

// The example server serves both eras: `auto` negotiates 2026-07-28, a pinned handshake revision initializes.
describe.each([
  ['modern', 'auto', '2026-07-28'],
  ['legacy', '2025-11-25', '2025-11-25'],
] as const)('client against the rxmcp example server (stdio, %s)', (era, protocolVersion, revision) => {
  let transport: StdioClientTransport;
  let client: McpClient;

  beforeAll(() => {
    if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run npm run build first`);
  });

  beforeEach(async () => {
    transport = createStdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' });
    client = await connect(transport, {
      name: 'rxmcp-interop',
      version: '1.0.0',
      protocolVersion,
      sampling: (params) => ({
        role: 'assistant',
        content: { type: 'text', text: `echo of ${JSON.stringify(params.messages[0]?.content)}` },
        model: 'test-model',
      }),
      elicitation: () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }),
    });
  });

  afterEach(async () => {
    const closed = firstValueFrom(client.closed$);
    client.close();
    await closed;
  });

  it('[lists] lists tools, resources, templates and prompts', async () => {
    expect([client.era, client.revision]).toEqual([era, revision]);
    const tools = await firstValueFrom(client.tools$);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'countdown', 'test_simple_text']));
    expect((await client.promises.listResources()).map((r) => r.uri)).toEqual(
      expect.arrayContaining(['test://static-text']),
    );
    expect((await client.promises.listResourceTemplates()).map((t) => t.uriTemplate)).toContain(
      'test://template/{id}/data',
    );
    expect((await client.promises.listPrompts()).map((p) => p.name)).toContain('test_prompt_with_arguments');
  });

  it('[tools.progress] streams countdown progress, then the result', async () => {
    const events = await lastValueFrom(client.callTool('countdown', { from: 3, intervalMs: 5 }).pipe(toArray()));
    expect(events).toEqual([
      { type: 'progress', progress: 1, total: 3, message: '2 to go' },
      { type: 'progress', progress: 2, total: 3, message: '1 to go' },
      { type: 'progress', progress: 3, total: 3, message: '0 to go' },
      { type: 'result', result: { content: [{ type: 'text', text: 'Counted down from 3' }] } },
    ]);
  });

  it('[cancellation.client] cancels a countdown by unsubscribing, and the connection goes on', async () => {
    await lastValueFrom(
      client.callTool('countdown', { from: 1000, intervalMs: 5 }).pipe(
        filter((e) => e.type === 'progress'),
        take(2),
      ),
    );
    expect(client.connection.pendingRequests).toBe(0);
    expect(await client.promises.callTool('add', { a: 2, b: 40 })).toEqual({ content: [{ type: 'text', text: '42' }] });
  });

  it('[tools.output-schema] accepts structured content that matches the output schema', async () => {
    const result = await client.promises.callTool('divide', { dividend: 1, divisor: 4 });
    expect(result.structuredContent).toEqual({ quotient: 0.25 });
  });

  it('[logging.client] receives the logs a tool sends at the chosen level', async () => {
    await client.promises.setLoggingLevel('debug');
    const logs = lastValueFrom(
      client.logMessages$.pipe(
        filter((m) => m.level === 'info'),
        take(3),
        toArray(),
      ),
    );
    await client.promises.callTool('test_tool_with_logging', {});
    expect((await logs).map((m) => m.data)).toEqual([
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]);
  });

  it('[sampling.handler] [elicitation.form] answers the server’s sampling and elicitation requests', async () => {
    const sampling = await client.promises.callTool('test_sampling', { prompt: 'hello' });
    expect(textOf(sampling.content)).toContain('LLM response: echo of');
    const elicitation = await client.promises.callTool('test_elicitation', { message: 'Who are you?' });
    expect(textOf(elicitation.content)).toContain('"username":"ada"');
  });

  it('[resources.subscribe] reads resources and watches one', async () => {
    const read = await client.promises.readResource('test://static-text');
    expect(read.contents[0]).toMatchObject({
      uri: 'test://static-text',
      text: 'This is the content of the static text resource.',
    });
    const ticks = await lastValueFrom(client.watchResource('rxmcp://ticker').pipe(take(2), toArray()));
    expect(ticks).toHaveLength(2);
  });

  it('[prompts.get] [completion.complete] gets a prompt and completes its argument', async () => {
    const prompt = await client.promises.getPrompt('test_prompt_with_arguments', { arg1: 'one', arg2: 'two' });
    expect(JSON.stringify(prompt.messages)).toMatch(/one[\s\S]*two/);
    const completion = await client.promises.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'te' },
    });
    expect(completion.completion.values).toEqual(['test', 'testValue1']);
  });
});
