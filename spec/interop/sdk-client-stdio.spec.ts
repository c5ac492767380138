import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

// The built example server (npm test builds first).
const SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');

type Content = Array<{ type: string; text?: string }>;

// The official TypeScript SDK's client against our example server over stdio: every tool,
// resource and prompt, completion, log levels, subscriptions, progress and log notifications.
describe('official SDK client ↔ rxmcp everything server over stdio', () => {
  let client: Client;
  let transport: StdioClientTransport;
  const logs: Array<{ level: string; data: unknown }> = [];
  const updates: string[] = [];
  const sampled: unknown[] = [];
  const elicited: unknown[] = [];

  beforeAll(async () => {
    if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run npm run build first`);
  });

  beforeEach(async () => {
    logs.length = 0;
    updates.length = 0;
    client = new Client(
      { name: 'sdk-interop', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      sampled.push(request.params);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'sampled answer' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params);
      return { action: 'accept', content: { username: 'testuser', email: 'test@example.com' } };
    });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n) => void logs.push({ level: n.params.level, data: n.params.data }),
    );
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' });
    await client.connect(transport);
  });

  afterEach(async () => {
    await client.close();
  });

  it('[interop.initialize] negotiates the latest revision and sees the derived capabilities', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'rxmcp-everything-server' });
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
      // 2025-11-25 has no `extensions` field: the skills extension is declared where the revision allows.
      experimental: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
  });

  it('[interop.tools] lists every tool with a description and calls each one', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(19);
    for (const tool of tools) {
      expect(tool.description).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
    }
    const raw = tools.find((t) => t.name === 'json_schema_2020_12_tool')!;
    expect(raw.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { address: expect.any(Object) },
      additionalProperties: false,
    });

    const argsFor: Record<string, Record<string, unknown>> = {
      test_sampling: { prompt: 'Say hi' },
      test_elicitation: { message: 'Who are you?' },
      json_schema_2020_12_tool: { name: 'Ada', address: { street: '1 Main St', city: 'X' } },
      echo: { text: 'hello' },
      add: { a: 2, b: 40 },
      divide: { dividend: 9, divisor: 3 },
      countdown: { from: 2, intervalMs: 5 },
      greet: { name: 'Ada' },
      slow_compute: { seconds: 0 },
      confirm_delete: { filename: 'notes.txt' },
    };
    const results: Record<string, { content: Content; isError?: boolean; structuredContent?: unknown }> = {};
    for (const tool of tools) {
      // Tools that run only as tasks are called through the tasks API (spec/interop/sdk-client-tasks.spec.ts).
      if (tool.execution?.taskSupport === 'required') continue;
      if (tool.name === 'protocol_error_job') {
        await expect(client.callTool({ name: tool.name, arguments: {} })).rejects.toMatchObject({ code: -32603 });
        continue;
      }
      results[tool.name] = (await client.callTool({ name: tool.name, arguments: argsFor[tool.name] ?? {} })) as never;
      expect(results[tool.name]!.content.length).toBeGreaterThan(0);
    }
    expect(results.test_simple_text!.content).toEqual([
      { type: 'text', text: 'This is a simple text response for testing.' },
    ]);
    expect(results.test_image_content!.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(results.test_audio_content!.content[0]).toMatchObject({ type: 'audio', mimeType: 'audio/wav' });
    expect(results.test_embedded_resource!.content[0]).toMatchObject({
      type: 'resource',
      resource: { uri: 'test://embedded-resource' },
    });
    expect(results.test_multiple_content_types!.content.map((c) => c.type)).toEqual(['text', 'image', 'resource']);
    expect(results.test_error_handling).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
    });
    expect(results.test_sampling!.content[0]!.text).toBe('LLM response: sampled answer');
    expect(sampled[0]).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
      maxTokens: 100,
    });
    expect(results.test_elicitation!.content[0]!.text).toContain('User response: action=accept');
    expect(elicited[0]).toMatchObject({
      message: 'Who are you?',
      requestedSchema: { required: ['username', 'email'] },
    });
    expect(results.add!.content).toEqual([{ type: 'text', text: '42' }]);
    expect(results.divide!.structuredContent).toEqual({ quotient: 3 });
    expect(results.list_examples!.content.map((c) => c.type)).toEqual(['resource_link', 'resource_link']);
  });

  it('[interop.progress] receives progress with the token it sent, then the result', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(progress).toEqual([0, 50, 100]);
    // The SDK sends its numeric request id as the token; the server echoes it with its type.
    expect((result.content as Content)[0]!.text).toMatch(/^Progress token: \d+$/);
  });

  it("[interop.logging] sets the level and receives the tool's log messages", async () => {
    await expect(client.setLoggingLevel('debug')).resolves.toEqual({});
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logs.map((l) => l.data)).toEqual([
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]);
    await client.setLoggingLevel('error');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logs).toHaveLength(3);
  });

  it('[interop.resources] lists and reads every resource and template, subscribes and unsubscribes', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'test://static-text',
      'test://static-binary',
      'test://watched-resource',
      'rxmcp://ticker',
      // The skills the example serves (SEP-2640), each file a resource.
      'skill://acme/release-notes/SKILL.md',
      'skill://acme/release-notes/templates/RELEASE.md',
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/references/FORMS.md',
      'skill://pdf-processing/scripts/fill_form.py',
    ]);
    for (const resource of resources) {
      const { contents } = await client.readResource({ uri: resource.uri });
      expect(contents[0]).toMatchObject({ uri: resource.uri, mimeType: resource.mimeType });
    }
    expect((await client.readResource({ uri: 'test://static-text' })).contents[0]).toMatchObject({
      text: 'This is the content of the static text resource.',
    });
    expect((await client.readResource({ uri: 'test://static-binary' })).contents[0]).toHaveProperty('blob');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'test://template/{id}/data' })]);
    const templated = (await client.readResource({ uri: 'test://template/123/data' })).contents[0] as { text: string };
    expect(JSON.parse(templated.text)).toEqual({ id: '123', templateTest: true, data: 'Data for ID: 123' });
    await expect(client.readResource({ uri: 'test://nothing-here' })).rejects.toMatchObject({ code: -32002 });

    await expect(client.subscribeResource({ uri: 'test://watched-resource' })).resolves.toEqual({});
    await expect(client.subscribeResource({ uri: 'rxmcp://ticker' })).resolves.toEqual({});
    // The ticker reports an update every second while subscribed; allow for a loaded machine.
    for (let waited = 0; !updates.includes('rxmcp://ticker') && waited < 5000; waited += 100) {
      await new Promise((done) => setTimeout(done, 100));
    }
    expect(updates).toContain('rxmcp://ticker');
    await expect(client.unsubscribeResource({ uri: 'rxmcp://ticker' })).resolves.toEqual({});
    await expect(client.unsubscribeResource({ uri: 'test://watched-resource' })).resolves.toEqual({});
  });

  it('[interop.prompts] lists and gets every prompt', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      'test_simple_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_input_required_result_prompt',
    ]);
    for (const prompt of prompts) expect(prompt.description).toBeTruthy();
    const simple = await client.getPrompt({ name: 'test_simple_prompt' });
    expect(simple.messages[0]!.content).toEqual({ type: 'text', text: 'This is a simple prompt for testing.' });
    const withArgs = await client.getPrompt({
      name: 'test_prompt_with_arguments',
      arguments: { arg1: 'testValue1', arg2: 'testValue2' },
    });
    expect(JSON.stringify(withArgs.messages)).toContain('testValue1');
    expect(JSON.stringify(withArgs.messages)).toContain('testValue2');
    const embedded = await client.getPrompt({
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'test://example-resource' },
    });
    expect(embedded.messages.map((m) => m.content.type)).toEqual(['resource', 'text']);
    const image = await client.getPrompt({ name: 'test_prompt_with_image' });
    expect(image.messages[0]!.content).toMatchObject({ type: 'image', mimeType: 'image/png' });
    await expect(
      client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'only' } }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('[interop.completion] completes prompt arguments and template variables', async () => {
    const forPrompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'test' },
    });
    expect(forPrompt.completion.values).toEqual(['test', 'testValue1']);
    const forTemplate = await client.complete({
      ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
      argument: { name: 'id', value: '4' },
    });
    expect(forTemplate.completion.values).toEqual(['456']);
  });
});
