import pino from 'pino';
import { z } from 'zod';
import { createServer } from '../../lib/server/server';
import type { McpServer, ServerOptions } from '../../lib/server/server';
import { messageOf } from '../../lib/server/handler-failures';
import { serve } from './harness';

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

/** A server whose tool, resource, prompt and completer all fail with `new Error(message)`. */
function failing(options: Partial<ServerOptions> = {}, message = 'the index is corrupt'): McpServer {
  const fail = () => {
    throw new Error(message);
  };
  const server = createServer({ name: 'failing', version: '1', ...options });
  server.tool({ name: 'search', description: 'fails', handler: fail });
  server.resource({ uri: 'test://index', name: 'index', read: fail });
  server.prompt({
    name: 'summary',
    description: 'fails',
    arguments: [{ name: 'topic', complete: () => Promise.reject(new Error(message)) }],
    handler: fail,
  });
  return server;
}

const completeTopic = { ref: { type: 'ref/prompt', name: 'summary' }, argument: { name: 'topic', value: 'a' } };

describe('handler failures', () => {
  let server: McpServer;
  afterEach(() => {
    server.close();
    jest.restoreAllMocks();
  });

  it('[errors.handler] answers a failing read, prompt and completion with -32603 saying what failed and why', async () => {
    const { logger, lines } = captureLogger();
    server = failing({ logger });
    const { call } = await serve(server);
    await expect(call('resources/read', { uri: 'test://index' })).rejects.toMatchObject({
      code: -32603,
      message: 'Reading resource test://index failed: the index is corrupt',
    });
    await expect(call('prompts/get', { name: 'summary' })).rejects.toMatchObject({
      code: -32603,
      message: 'Prompt summary failed: the index is corrupt',
    });
    await expect(call('completion/complete', completeTopic)).rejects.toMatchObject({
      code: -32603,
      message: 'Completing argument topic failed: the index is corrupt',
    });
    expect(
      lines.filter((line) => line.level === 40).map((line) => [line.msg, line.uri ?? line.prompt ?? line.argument]),
    ).toEqual([
      ['resources/read handler failed', 'test://index'],
      ['prompts/get handler failed', 'summary'],
      ['completion/complete handler failed', 'topic'],
    ]);
  });

  it('[errors.handler] with hideErrorMessages, names only what failed and keeps the message in the log', async () => {
    const { logger, lines } = captureLogger();
    server = failing({ logger, hideErrorMessages: true }, 'password=hunter2');
    const { call } = await serve(server);
    const answers = await Promise.all([
      call('tools/call', { name: 'search' }),
      call('resources/read', { uri: 'test://index' }).catch((error: unknown) => error),
      call('prompts/get', { name: 'summary' }).catch((error: unknown) => error),
      call('completion/complete', completeTopic).catch((error: unknown) => error),
    ]);
    expect(answers).toEqual([
      { isError: true, content: [{ type: 'text', text: "Tool search failed; the details are in the server's log" }] },
      expect.objectContaining({
        code: -32603,
        message: "Reading resource test://index failed: the details are in the server's log",
      }),
      expect.objectContaining({ code: -32603, message: "Prompt summary failed: the details are in the server's log" }),
      expect.objectContaining({
        code: -32603,
        message: "Completing argument topic failed: the details are in the server's log",
      }),
    ]);
    expect(JSON.stringify(answers)).not.toContain('hunter2');
    expect(
      lines.filter((line) => (line.err as { message?: string } | undefined)?.message === 'password=hunter2'),
    ).toHaveLength(4);
  });

  it('[errors.default-log] logs handler failures at warn to stderr without a logger, and nothing else, and nothing to stdout', async () => {
    const stderr: string[] = [];
    const stdout: string[] = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout.push(String(chunk));
      return true;
    });
    server = failing();
    // Logged at warn to the server's `logger` only: the default logger is for handler failures.
    server.tool({
      name: 'badly named!',
      description: 'x',
      inputSchema: z.object({}),
      handler: () => ({ content: [] }),
    });
    const { call } = await serve(server);
    await expect(call('tools/call', { name: 'search' })).resolves.toMatchObject({ isError: true });
    await expect(call('resources/read', { uri: 'test://index' })).rejects.toMatchObject({ code: -32603 });
    jest.restoreAllMocks();
    const records = stderr.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'tool handler failed',
        server: 'failing',
        tool: 'search',
        err: expect.objectContaining({ message: 'the index is corrupt' }),
      }),
      expect.objectContaining({ level: 40, msg: 'resources/read handler failed', uri: 'test://index' }),
    ]);
    expect(stdout).toEqual([]);
  });

  it('[errors.default-log] sends handler failures to a console-like logger at warn', async () => {
    const warned: unknown[][] = [];
    const logger = {
      error: () => undefined,
      info: () => undefined,
      warn: (...data: unknown[]) => void warned.push(data),
    };
    server = failing({ logger });
    const { call } = await serve(server);
    await call('tools/call', { name: 'search' });
    expect(warned).toEqual([['tool handler failed', expect.objectContaining({ tool: 'search' })]]);
  });

  it('describes whatever was thrown', () => {
    expect(messageOf(new Error('boom'))).toBe('boom');
    expect(messageOf(new TypeError(''))).toBe('TypeError');
    expect(messageOf('text')).toBe('text');
    expect(messageOf({ code: 7 })).toBe('{"code":7}');
    expect(messageOf(undefined)).toBe('undefined');
  });
});
