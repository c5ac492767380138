import pino from 'pino';
import { Observable, Subject } from 'rxjs';
import { z } from 'zod';
import { log, progress } from '../../lib/connection/handler-events';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { ToolError } from '../../lib/server/tool-registry';
import { flush, serve } from './harness';

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

const RAW_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object' as const,
  $defs: { address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  required: ['name'],
  additionalProperties: false,
};

describe('server tools', () => {
  let server: McpServer;
  afterEach(() => server.close());

  function demo(options: Partial<Parameters<typeof createServer>[0]> = {}) {
    server = createServer({ name: 'tools', version: '1.0.0', ...options });
    server.tool({
      name: 'echo',
      title: 'Echo',
      description: 'Echoes',
      inputSchema: z.object({ text: z.string().describe('what to echo') }),
      annotations: { readOnlyHint: true },
      icons: [{ src: 'https://example.com/echo.png', mimeType: 'image/png' }],
      handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
    });
    server.tool({
      name: 'raw',
      description: 'raw schema',
      inputSchema: RAW_SCHEMA,
      handler: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
    });
    server.tool({
      name: 'divide',
      description: 'structured',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ quotient: z.number() }),
      handler: ({ a, b }) => ({ structuredContent: { quotient: b === 0 ? ('infinite' as unknown as number) : a / b } }),
    });
    return server;
  }

  it('[tools.list] lists zod tools as JSON Schema and raw schemas verbatim', async () => {
    const { call } = await serve(demo());
    const { tools } = (await call('tools/list')) as { tools: Array<Record<string, unknown>> };
    expect(tools.map((t) => t.name)).toEqual(['echo', 'raw', 'divide']);
    expect(tools[0]).toEqual({
      name: 'echo',
      title: 'Echo',
      description: 'Echoes',
      inputSchema: expect.objectContaining({
        type: 'object',
        properties: { text: { type: 'string', description: 'what to echo' } },
        required: ['text'],
      }),
      annotations: { readOnlyHint: true },
      icons: [{ src: 'https://example.com/echo.png', mimeType: 'image/png' }],
    });
    expect(tools[1]!.inputSchema).toEqual(RAW_SCHEMA);
    expect(tools[2]!.outputSchema).toMatchObject({ type: 'object', properties: { quotient: { type: 'number' } } });
  });

  it('[tools.unknown-tool] answers an unknown tool with -32602', async () => {
    const { call } = await serve(demo());
    await expect(call('tools/call', { name: 'nope' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('nope'),
    });
  });

  it('[tools.invalid-arguments] gives an isError result naming the field on 2025-11-25 (SEP-1303)', async () => {
    const { call } = await serve(demo());
    const result = await call('tools/call', { name: 'echo', arguments: { text: 5 } });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('text: expected string') }],
    });
  });

  it('[tools.invalid-arguments] answers -32602 naming the field before 2025-11-25', async () => {
    const { call } = await serve(demo(), { protocolVersion: '2025-06-18' });
    const failure = call('tools/call', { name: 'echo', arguments: {} });
    await expect(failure).rejects.toBeInstanceOf(JsonRpcError);
    await expect(failure).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('arguments.text') });
  });

  it('[tools.raw-schema] validates arguments against a raw JSON Schema, $refs included', async () => {
    const { call } = await serve(demo(), { protocolVersion: '2025-06-18' });
    await expect(
      call('tools/call', { name: 'raw', arguments: { name: 'a', address: { city: 'X' } } }),
    ).resolves.toEqual({
      content: [{ type: 'text', text: '{"name":"a","address":{"city":"X"}}' }],
    });
    await expect(call('tools/call', { name: 'raw', arguments: { name: 'a', address: {} } })).rejects.toMatchObject({
      message: expect.stringContaining('arguments.address.city'),
    });
    await expect(call('tools/call', { name: 'raw', arguments: { name: 'a', extra: 1 } })).rejects.toMatchObject({
      message: expect.stringContaining('arguments.extra: unexpected property'),
    });
  });

  it('[tools.structured-output] sends valid structuredContent with its JSON as text', async () => {
    const { call } = await serve(demo());
    await expect(call('tools/call', { name: 'divide', arguments: { a: 6, b: 3 } })).resolves.toEqual({
      structuredContent: { quotient: 2 },
      content: [{ type: 'text', text: '{"quotient":2}' }],
    });
  });

  it('[tools.output-schema] does not send structuredContent that breaks the outputSchema, and logs why', async () => {
    const { logger, lines } = captureLogger();
    const { call } = await serve(demo({ logger }));
    const result = await call('tools/call', { name: 'divide', arguments: { a: 1, b: 0 } });
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('output schema') }],
    });
    expect(result).not.toHaveProperty('structuredContent');
    expect(lines).toContainEqual(
      expect.objectContaining({ tool: 'divide', problem: expect.stringContaining('structuredContent.quotient') }),
    );
  });

  it("[tools.execution-error] sends a thrown error's message as an isError result, and logs it at warn", async () => {
    const { logger, lines } = captureLogger();
    server = createServer({ name: 's', version: '1', logger });
    server.tool({
      name: 'boom',
      description: 'fails',
      handler: () => {
        throw new Error('the city database is offline');
      },
    });
    server.tool({
      name: 'polite',
      description: 'fails',
      handler: () => Promise.reject(new ToolError('city not found')),
    });
    server.tool({
      name: 'protocol',
      description: 'fails',
      handler: () => {
        throw new JsonRpcError(-32602, 'Invalid params: nope');
      },
    });
    server.tool({
      name: 'stream',
      description: 'fails',
      handler: () => new Observable((s) => s.error(new Error('stream broke'))),
    });
    server.tool({
      name: 'thrower',
      description: 'throws a string',
      handler: () => Promise.reject('plain text'),
    });
    const { call } = await serve(server);
    await expect(call('tools/call', { name: 'boom' })).resolves.toEqual({
      isError: true,
      content: [{ type: 'text', text: 'the city database is offline' }],
    });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: 'tool handler failed',
        tool: 'boom',
        err: expect.objectContaining({ message: 'the city database is offline' }),
      }),
    );
    await expect(call('tools/call', { name: 'polite' })).resolves.toEqual({
      isError: true,
      content: [{ type: 'text', text: 'city not found' }],
    });
    await expect(call('tools/call', { name: 'protocol' })).rejects.toMatchObject({ code: -32602 });
    await expect(call('tools/call', { name: 'stream' })).resolves.toEqual({
      isError: true,
      content: [{ type: 'text', text: 'stream broke' }],
    });
    await expect(call('tools/call', { name: 'thrower' })).resolves.toEqual({
      isError: true,
      content: [{ type: 'text', text: 'plain text' }],
    });
    // A ToolError is the tool's answer, not a failure of the server.
    expect(lines.filter((line) => line.tool === 'polite')).toEqual([]);
  });

  it('[tools.execution-error] with hideErrorMessages, sends a generic text and keeps the message in the log', async () => {
    const { logger, lines } = captureLogger();
    server = createServer({ name: 's', version: '1', logger, hideErrorMessages: true });
    server.tool({
      name: 'boom',
      description: 'fails',
      handler: () => {
        throw new Error('secret database password');
      },
    });
    server.tool({
      name: 'polite',
      description: 'fails',
      handler: () => Promise.reject(new ToolError('city not found')),
    });
    const { call } = await serve(server);
    const boom = await call('tools/call', { name: 'boom' });
    expect(boom).toEqual({
      isError: true,
      content: [{ type: 'text', text: "Tool boom failed; the details are in the server's log" }],
    });
    expect(JSON.stringify(boom)).not.toContain('secret');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        tool: 'boom',
        err: expect.objectContaining({ message: 'secret database password' }),
      }),
    );
    // ToolError stays the explicit way to show the model a message.
    await expect(call('tools/call', { name: 'polite' })).resolves.toEqual({
      isError: true,
      content: [{ type: 'text', text: 'city not found' }],
    });
  });

  it('[tools.execution-error] answers nothing and logs nothing for a handler that fails after its call was cancelled', async () => {
    const { logger, lines } = captureLogger();
    server = createServer({ name: 's', version: '1', logger });
    const started = new Subject<void>();
    server.tool({
      name: 'slow',
      description: 'fails once cancelled',
      handler: (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(new Error('aborted')));
          started.next();
        }),
    });
    const served = await serve(server);
    const answers: unknown[] = [];
    const whenStarted = new Promise<void>((resolve) => started.subscribe(() => resolve()));
    const call = served.client.request('tools/call', { name: 'slow' }).subscribe({
      next: (value) => answers.push(value),
      error: (error: unknown) => answers.push(error),
    });
    await whenStarted;
    call.unsubscribe();
    await flush();
    await flush();
    expect(answers).toEqual([]);
    expect(lines.filter((line) => line.msg === 'tool handler failed')).toEqual([]);
  });

  it('[progress.token-echo] echoes the progress token unchanged, with its type', async () => {
    server = createServer({ name: 's', version: '1' });
    server.tool({
      name: 'steps',
      description: 'progress',
      handler: (_args, context) => {
        context.progress(1, 2);
        return new Observable((s) => {
          s.next(progress(2, 2, 'done'));
          s.next({ content: [{ type: 'text', text: 'ok' }] });
          s.complete();
        });
      },
    });
    const served = await serve(server);
    await served.call('tools/call', { name: 'steps', _meta: { progressToken: 'tok-1' } });
    await served.call('tools/call', { name: 'steps', _meta: { progressToken: 42 } });
    await served.call('tools/call', { name: 'steps' });
    await flush();
    expect(served.received('notifications/progress').map((n) => n.params)).toEqual([
      { progressToken: 'tok-1', progress: 1, total: 2 },
      { progressToken: 'tok-1', progress: 2, total: 2, message: 'done' },
      { progressToken: 42, progress: 1, total: 2 },
      { progressToken: 42, progress: 2, total: 2, message: 'done' },
    ]);
  });

  it("[cancellation] runs a cancelled handler's teardown and aborts its signal", async () => {
    server = createServer({ name: 's', version: '1' });
    const torn: string[] = [];
    let aborted = false;
    server.tool({
      name: 'forever',
      description: 'never ends',
      handler: (_args, context) => {
        context.signal.addEventListener('abort', () => (aborted = true));
        return new Observable(() => () => torn.push('forever'));
      },
    });
    const { client, session } = await serve(server);
    const subscription = client.request('tools/call', { name: 'forever' }).subscribe();
    await flush();
    expect(session.connection.inFlightRequests).toBe(1);
    subscription.unsubscribe();
    await flush();
    expect(torn).toEqual(['forever']);
    expect(aborted).toBe(true);
    expect(session.connection.inFlightRequests).toBe(0);
  });

  it('[tools.list-changed] adds, disables, enables and removes tools at run time, notifying each change', async () => {
    server = demo();
    const served = await serve(server);
    const extra = server.tool({ name: 'extra', description: 'later', handler: () => ({ content: [] }) });
    const names = async () => ((await served.call('tools/list')).tools as Array<{ name: string }>).map((t) => t.name);
    expect(await names()).toContain('extra');
    extra.disable();
    expect(extra.enabled).toBe(false);
    expect(await names()).not.toContain('extra');
    await expect(served.call('tools/call', { name: 'extra' })).rejects.toMatchObject({ code: -32602 });
    extra.enable();
    await expect(served.call('tools/call', { name: 'extra' })).resolves.toEqual({ content: [] });
    expect(extra.remove()).toBe(true);
    expect(extra.remove()).toBe(false);
    expect(await names()).toEqual(['echo', 'raw', 'divide']);
    await flush();
    expect(served.received('notifications/tools/list_changed')).toHaveLength(4);
  });

  it('[tools.register] refuses a taken name and a non-object input schema', () => {
    server = demo();
    expect(() => server.tool({ name: 'echo', handler: () => ({ content: [] }) })).toThrow(/already registered/);
    expect(() =>
      server.tool({ name: 'bad', inputSchema: z.string() as never, handler: () => ({ content: [] }) }),
    ).toThrow(/object/);
  });

  it('[tools.handler-output] accepts a value, a Promise or an Observable with logs', async () => {
    server = createServer({ name: 's', version: '1' });
    const release = new Subject<void>();
    server.tool({
      name: 'promise',
      description: 'p',
      handler: async () => ({ content: [{ type: 'text', text: 'p' }] }),
    });
    server.tool({
      name: 'stream',
      description: 's',
      handler: () =>
        new Observable((s) => {
          s.next(log('info', { step: 1 }));
          const sub = release.subscribe(() => {
            s.next({ content: [{ type: 'text', text: 's' }] });
            s.complete();
          });
          return () => sub.unsubscribe();
        }),
    });
    const served = await serve(server);
    await expect(served.call('tools/call', { name: 'promise' })).resolves.toEqual({
      content: [{ type: 'text', text: 'p' }],
    });
    const pending = served.call('tools/call', { name: 'stream' });
    await flush();
    release.next();
    await expect(pending).resolves.toEqual({ content: [{ type: 'text', text: 's' }] });
    expect(served.received('notifications/message').map((n) => n.params)).toEqual([
      { level: 'info', data: { step: 1 } },
    ]);
  });

  describe('older revisions', () => {
    function rich() {
      server = createServer({ name: 's', version: '1' });
      server.tool({
        name: 'rich',
        title: 'Rich',
        description: 'every content type',
        outputSchema: z.object({ n: z.number() }),
        annotations: { readOnlyHint: true },
        icons: [{ src: 'https://example.com/i.png' }],
        handler: () => ({
          structuredContent: { n: 1 },
          content: [
            { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
            { type: 'resource_link', uri: 'test://a', name: 'a' },
          ],
        }),
      });
      return server;
    }

    it('[revisions.downgrade] strips what 2024-11-05 lacks and turns audio and links into text', async () => {
      const { call } = await serve(rich(), { protocolVersion: '2024-11-05' });
      const { tools } = (await call('tools/list')) as { tools: Array<Record<string, unknown>> };
      expect(Object.keys(tools[0]!).sort()).toEqual(['description', 'inputSchema', 'name']);
      const result = await call('tools/call', { name: 'rich' });
      expect(result).toEqual({
        content: [
          { type: 'text', text: expect.stringContaining('audio') },
          { type: 'text', text: 'Resource link: a <test://a>' },
        ],
      });
    });

    it('[revisions.downgrade] keeps annotations and audio for 2025-03-26 but no title, icons or structured output', async () => {
      const { call } = await serve(rich(), { protocolVersion: '2025-03-26' });
      const { tools } = (await call('tools/list')) as { tools: Array<Record<string, unknown>> };
      expect(Object.keys(tools[0]!).sort()).toEqual(['annotations', 'description', 'inputSchema', 'name']);
      const result = await call('tools/call', { name: 'rich' });
      expect(result).not.toHaveProperty('structuredContent');
      expect((result.content as Array<{ type: string }>).map((c) => c.type)).toEqual(['audio', 'text']);
    });

    it('[revisions.latest] sends everything to a 2025-11-25 client', async () => {
      const { call } = await serve(rich());
      const { tools } = (await call('tools/list')) as { tools: Array<Record<string, unknown>> };
      expect(tools[0]).toHaveProperty('icons');
      const result = await call('tools/call', { name: 'rich' });
      expect(result).toMatchObject({
        structuredContent: { n: 1 },
        content: [{ type: 'audio' }, { type: 'resource_link' }],
      });
    });
  });
});
