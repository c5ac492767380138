import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serveHttp } from '../../examples/conformance/everything-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';

// The official TypeScript SDK v2 client (2.4) against the example server over Streamable HTTP and stdio, in
// each of its negotiation modes: the same endpoint serves it a session (legacy) or modern
// 2026-07-28 requests (auto, pinned).

type Content = Array<{ type: string; text?: string }>;

describe.each([
  ['auto', 'auto' as const, '2026-07-28'],
  ['pinned to 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
  ['legacy', 'legacy' as const, '2025-11-25'],
])('the official SDK v2 client (%s) ↔ the example server over Streamable HTTP', (_name, mode, revision) => {
  let running: RunningStreamableHttpServer;
  let client: Client;

  beforeAll(async () => {
    running = await serveHttp(0);
    client = new Client(
      { name: 'sdk-v2', version: '2.4.0' },
      { capabilities: { elicitation: {}, sampling: {}, roots: {} }, versionNegotiation: { mode } },
    );
    client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: 'Ada', ok: true } }));
    client.setRequestHandler('sampling/createMessage', () => ({
      role: 'assistant',
      content: { type: 'text', text: 'Paris' },
      model: 'test-model',
      stopReason: 'endTurn',
    }));
    client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url.href)));
  });
  afterAll(async () => {
    await client.close();
    await running.close();
  });

  it('negotiates the revision its mode asks for', () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(revision);
  });

  it('lists and calls tools, with progress', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['test_simple_text', 'test_input_required_result_multi_round']),
    );
    const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
    expect((simple.content as Content)[0]!.text).toBe('This is a simple text response for testing.');
    const updates: number[] = [];
    await client.callTool(
      { name: 'test_tool_with_progress', arguments: {} },
      { onprogress: (p) => updates.push(p.progress) },
    );
    expect(updates).toEqual([0, 50, 100]);
  });

  it('answers the server’s requests for input, whichever way the revision carries them', async () => {
    const greeting = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    expect((greeting.content as Content)[0]!.text).toBe('Hello, Ada!');
    const capital = await client.callTool({ name: 'test_input_required_result_sampling', arguments: {} });
    expect((capital.content as Content)[0]!.text).toContain('Paris');
    const roots = await client.callTool({ name: 'test_input_required_result_list_roots', arguments: {} });
    expect((roots.content as Content)[0]!.text).toContain('file:///tmp');
    const all = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
    expect((all.content as Content)[0]!.text).toContain('Ada');
  });

  it('reads resources, gets prompts and completes arguments', async () => {
    const read = await client.readResource({ uri: 'test://static-text' });
    expect((read.contents[0] as { text: string }).text).toBe('This is the content of the static text resource.');
    const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
    expect(JSON.stringify(prompt.messages)).toContain("arg1='a'");
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'te' },
    });
    expect(Array.isArray(completion.completion.values)).toBe(true);
  });
});

describe.each([
  ['auto', 'auto' as const, '2026-07-28'],
  ['legacy', 'legacy' as const, '2025-11-25'],
])('the official SDK v2 client (%s) ↔ the example server over stdio', (_name, mode, revision) => {
  let client: Client;

  beforeAll(async () => {
    client = new Client(
      { name: 'sdk-v2', version: '2.4.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode } },
    );
    client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: 'Ada' } }));
    const server = join(__dirname, '../../dist/examples/conformance/everything-server.js');
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [server], stderr: 'ignore' }));
  });
  afterAll(() => client.close());

  it('probes with server/discover and speaks the revision its mode asks for, in one process', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(revision);
    const greeting = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    expect((greeting.content as Content)[0]!.text).toBe('Hello, Ada!');
    const { tools } = await client.listTools();
    expect(tools[0]!.name).toBe('test_simple_text');
  });
});
