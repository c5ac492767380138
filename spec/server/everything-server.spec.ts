import pino from 'pino';
import { createEverythingServer } from '../../examples/conformance/everything-server';
import type { McpServer } from '../../lib/server/server';
import { flush, serve } from './harness';

// The example server's behaviour that the conformance suite's server scenarios check (CONFORMANCE.md (b)).
describe('examples/conformance/everything-server', () => {
  let server: McpServer;
  beforeEach(() => {
    server = createEverythingServer({ logger: pino({ level: 'silent' }) });
  });
  afterEach(() => server.close());

  it('[conformance.tools-list] gives every tool a description and an object input schema, the 2020-12 one verbatim', async () => {
    const { call } = await serve(server);
    const { tools } = (await call('tools/list')) as {
      tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }>;
    };
    for (const tool of tools) {
      expect(tool.description).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
    }
    expect(tools.find((t) => t.name === 'json_schema_2020_12_tool')!.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      // Composition, conditional and anchor keywords travel untouched (2026-07-28, SEP-2106).
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    });
  });

  it('[conformance.logging] answers setLevel with exactly {} and logs three messages about 50 ms apart', async () => {
    const served = await serve(server);
    await expect(served.call('logging/setLevel', { level: 'debug' })).resolves.toEqual({});
    const times: number[] = [];
    served.client.notifications$.subscribe((n) => n.method === 'notifications/message' && times.push(Date.now()));
    await served.call('tools/call', { name: 'test_tool_with_logging', arguments: {} });
    expect(served.received('notifications/message').map((n) => n.params)).toEqual([
      { level: 'info', data: 'Tool execution started' },
      { level: 'info', data: 'Tool processing data' },
      { level: 'info', data: 'Tool execution completed' },
    ]);
    expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(90);
  });

  it.each([['progress-test-1'], [7]])(
    '[conformance.progress] echoes the token %p with its type in three non-decreasing updates',
    async (token) => {
      const served = await serve(server);
      const result = await served.call('tools/call', {
        name: 'test_tool_with_progress',
        arguments: {},
        _meta: { progressToken: token },
      });
      await flush();
      const updates = served
        .received('notifications/progress')
        .map((n) => n.params as { progressToken: unknown; progress: number; total: number });
      expect(updates.map((u) => [u.progressToken, u.progress, u.total])).toEqual([
        [token, 0, 100],
        [token, 50, 100],
        [token, 100, 100],
      ]);
      expect((result.content as Array<{ text: string }>)[0]!.text).toBe(`Progress token: ${JSON.stringify(token)}`);
    },
  );

  it('[conformance.elicitation] sends the SEP-1034 defaults and the SEP-1330 enum shapes', async () => {
    const requests: Array<Record<string, unknown>> = [];
    const { call } = await serve(server, {
      capabilities: { elicitation: {} },
      handlers: { 'elicitation/create': (params) => (requests.push(params), { action: 'decline' }) },
    });
    const defaults = await call('tools/call', { name: 'test_elicitation_sep1034_defaults' });
    expect((defaults.content as Array<{ text: string }>)[0]!.text).toBe(
      'Elicitation completed: action=decline, content={}',
    );
    await call('tools/call', { name: 'test_elicitation_sep1330_enums' });
    const [sep1034, sep1330] = requests.map(
      (r) => (r.requestedSchema as { properties: Record<string, Record<string, unknown>> }).properties,
    );
    expect(sep1034).toMatchObject({
      name: { type: 'string', default: 'John Doe' },
      age: { type: 'integer', default: 30 },
      score: { type: 'number', default: 95.5 },
      status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', default: true },
    });
    expect(sep1330!.untitledSingle).not.toHaveProperty('oneOf');
    expect(sep1330!.titledSingle).not.toHaveProperty('enum');
    expect((sep1330!.legacyEnum!.enumNames as string[]).length).toBe((sep1330!.legacyEnum!.enum as string[]).length);
    expect(sep1330!.untitledMulti).toMatchObject({ type: 'array', items: { type: 'string', enum: expect.any(Array) } });
    expect(sep1330!.titledMulti!.items).toEqual({
      anyOf: expect.arrayContaining([{ const: 'value1', title: 'First Choice' }]),
    });
  });

  it('[conformance.sampling] reports a refused sampling request as tool text, not a JSON-RPC error', async () => {
    const { call } = await serve(server);
    const result = await call('tools/call', { name: 'test_sampling', arguments: { prompt: 'hi' } });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('sampling') }],
    });
  });

  it('[conformance.completion] completes test_prompt_with_arguments', async () => {
    const { call } = await serve(server);
    await expect(
      call('completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'test' },
      }),
    ).resolves.toEqual({ completion: { values: ['test', 'testValue1'] } });
  });

  it('[conformance.reconnection] finishes test_reconnection after about 100 ms', async () => {
    const { call } = await serve(server);
    const started = Date.now();
    await expect(call('tools/call', { name: 'test_reconnection' })).resolves.toHaveProperty('content');
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('[countdown] stops counting when the call is cancelled', async () => {
    const served = await serve(server);
    const subscription = served.client
      .request(
        'tools/call',
        { name: 'countdown', arguments: { from: 1000, intervalMs: 5 } },
        { onProgress: () => undefined },
      )
      .subscribe();
    await new Promise((done) => setTimeout(done, 30));
    subscription.unsubscribe();
    await flush();
    const seen = served.received('notifications/progress').length;
    expect(seen).toBeGreaterThan(0);
    await new Promise((done) => setTimeout(done, 30));
    expect(served.received('notifications/progress').length).toBe(seen);
    expect(served.session.connection.inFlightRequests).toBe(0);
  });
});
