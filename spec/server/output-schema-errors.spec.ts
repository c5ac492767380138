import { z } from 'zod';
import { createServer } from '../../lib/server/server';
import type { McpServer, ServerOptions } from '../../lib/server/server';
import type { ToolSchema } from '../../lib/server/tool-registry';
import { serve } from './harness';

// A tool whose handler returns structuredContent that breaks its outputSchema: the caller's error
// names each field that is wrong and what was expected, and the server logs it at warn with the
// tool's name, with or without a logger of its own.

interface Logged {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A console-like logger that records what it is given (the message first, then the record). */
function recordingLogger(logged: Logged[]) {
  const at = (level: string) => (message: string, fields: Record<string, unknown>) =>
    logged.push({ level, fields, message });
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), trace: at('trace') };
}

const OUTPUTS: Record<string, ToolSchema> = {
  zod: z.object({ city: z.string(), temperature: z.number(), unit: z.enum(['C', 'F']) }),
  'JSON Schema': {
    type: 'object',
    properties: { city: { type: 'string' }, temperature: { type: 'number' }, unit: { enum: ['C', 'F'] } },
    required: ['city', 'temperature', 'unit'],
  },
};

let server: McpServer | undefined;
afterEach(() => server?.close());

function weather(output: ToolSchema, options: Partial<ServerOptions> = {}): McpServer {
  server = createServer({ name: 'weather-server', version: '1.0.0', ...options });
  server.tool({
    name: 'weather',
    outputSchema: output,
    // Wrong on purpose: temperature as text, unit missing.
    handler: () => ({ structuredContent: { city: 'Paris', temperature: 'warm' } }),
  });
  return server;
}

describe.each(Object.entries(OUTPUTS))('a result that breaks an outputSchema written in %s', (_flavour, output) => {
  it('answers isError naming each wrong field of structuredContent and what was expected', async () => {
    const { call } = await serve(weather(output, { logger: recordingLogger([]) }));
    const result = await call('tools/call', { name: 'weather', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toMatch(/^Tool weather failed: its result did not match its output schema \(/);
    expect(text).toMatch(/structuredContent\.temperature: [^;]*number/i);
    expect(text).toMatch(/structuredContent\.unit: /);
  });

  it("logs the mismatch at warn through the server's logger, with the tool name and the fields", async () => {
    const logged: Logged[] = [];
    const { call } = await serve(weather(output, { logger: recordingLogger(logged) }));
    await call('tools/call', { name: 'weather', arguments: {} });
    const warning = logged.find((entry) => entry.fields.tool === 'weather');
    expect(warning).toMatchObject({ level: 'warn', fields: { tool: 'weather' } });
    expect([...(warning!.fields.fields as string[])].sort()).toEqual([
      'structuredContent.temperature',
      'structuredContent.unit',
    ]);
    expect(warning!.message).toMatch(/^tool weather returned structuredContent that does not match its outputSchema: /);
    expect(warning!.message).toMatch(/structuredContent\.temperature: [^;]*number/i);
  });
});

describe('an outputSchema mismatch on a server given no logger', () => {
  it('is written to stderr at warn, naming the tool and the field', async () => {
    const written: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const { call } = await serve(weather(OUTPUTS.zod!));
      await call('tools/call', { name: 'weather', arguments: {} });
    } finally {
      spy.mockRestore();
    }
    const line = written.map((text) => JSON.parse(text) as Record<string, unknown>).find((r) => r.tool === 'weather');
    expect(line).toMatchObject({ level: 40, tool: 'weather', server: 'weather-server' });
    expect(String(line!.msg)).toContain('structuredContent.temperature');
  });

  it('keeps the details from the caller when the server hides error messages, and still logs them', async () => {
    const logged: Logged[] = [];
    const { call } = await serve(weather(OUTPUTS.zod!, { logger: recordingLogger(logged), hideErrorMessages: true }));
    const result = await call('tools/call', { name: 'weather', arguments: {} });
    expect(result.content).toEqual([
      { type: 'text', text: 'Tool weather failed: its result did not match its output schema' },
    ]);
    expect(logged.find((entry) => entry.fields.tool === 'weather')?.message).toContain('structuredContent.temperature');
  });
});
