import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { TransportError } from '../../../lib/jsonrpc/errors';
import { MalformedFrame } from '../../../lib/transport/transport';
import { createStdioClientTransport } from '../../../lib/transport/stdio/stdio-client-transport';
import type { StdioClientTransportOptions } from '../../../lib/transport/stdio/stdio-client-transport';
import { describeExit, describeProgram } from '../../../lib/transport/stdio/stdio-client-diagnostics';

// What the stdio client says about its server process: why it ended (the command, the code or
// signal, the last lines of its stderr), and lines it wrote to stdout that are not MCP messages.

interface Logged {
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

function recordingLogger(logged: Logged[]) {
  const at = (level: string) => (message: string, fields: Record<string, unknown>) =>
    logged.push({ level, message, fields });
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** A server written inline: `node -e <script>`. */
function run(script: string, options: Partial<StdioClientTransportOptions> = {}) {
  return createStdioClientTransport({
    command: process.execPath,
    args: ['-e', script],
    shutdownTimeoutMs: { afterStdinCloseMs: 200, afterSigtermMs: 200 },
    ...options,
  });
}

const NODE = describeProgram(process.execPath, []);

describe('the error of a server process that exits on its own', () => {
  it('names the command line and the exit code, and quotes the last lines of stderr', async () => {
    const transport = run(
      "for (let i = 1; i <= 7; i++) console.error('line ' + i); console.error('Error: no API key'); process.exit(3)",
      { stderr: 'pipe' },
    );
    const close = await firstValueFrom(transport.closed$);
    expect(close.reason).toBe('process exited with code 3');
    expect(close.error).toBeInstanceOf(TransportError);
    expect(close.error!.message).toBe(
      `The MCP server process (${NODE} -e "for (let i = 1; i <= 7; i++) console.error('line ' + i); ` +
        `console.error('Error: no API key'); process.exit(3)") exited with code 3. Its last lines on stderr:\n` +
        '  line 4\n  line 5\n  line 6\n  line 7\n  Error: no API key',
    );
    expect(close.error!.message).not.toMatch(/process \S+ process exited/);
  });

  it('names the signal that killed it, and says nothing of stderr when it was not read', async () => {
    const transport = run("process.kill(process.pid, 'SIGKILL')", { stderr: 'ignore' });
    const close = await firstValueFrom(transport.closed$);
    expect(close.error!.message).toMatch(/^The MCP server process \(.+\) was killed by SIGKILL\.$/);
  });
});

describe('describeExit', () => {
  it('reads as a sentence with or without stderr lines', () => {
    expect(describeExit('my-server --port 1', 1, null, [])).toBe(
      'The MCP server process (my-server --port 1) exited with code 1.',
    );
    expect(describeExit('srv', null, 'SIGTERM', ['bye'])).toBe(
      'The MCP server process (srv) was killed by SIGTERM. Its last lines on stderr:\n  bye',
    );
  });

  it('quotes words of the command line that hold spaces', () => {
    expect(describeProgram('/opt/My Server/bin', ['--name', 'a b'])).toBe('"/opt/My Server/bin" --name "a b"');
  });
});

describe('a server that writes a line to stdout that is not an MCP message', () => {
  const SCRIPT = [
    "process.stdout.write('Server starting on stdio...\\n')",
    "process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/ready' }) + '\\n')",
    "setTimeout(() => process.stdout.write('x'.repeat(1000) + '\\n'), 20)",
    'setTimeout(() => {}, 60_000)',
  ].join(';');

  it('is reported at once, at warn, quoting the line, and the connection goes on', async () => {
    const logged: Logged[] = [];
    const transport = run(SCRIPT, { logger: recordingLogger(logged) });
    const frames = lastValueFrom(transport.incoming$.pipe(toArray()));
    // Two stray lines reported while the process still runs: nothing waits for it to exit.
    await until(() => logged.filter((entry) => entry.level === 'warn').length >= 2);
    expect(transport.exitCode).toBeNull();
    const warnings = logged.filter((entry) => entry.level === 'warn');
    expect(warnings[0]!.message).toBe(
      `the MCP server (${describeProgram(process.execPath, ['-e', SCRIPT])}) wrote a line to stdout that is not an MCP message: ` +
        '"Server starting on stdio...". A stdio server must write only protocol messages to stdout; its logs ' +
        'belong on stderr. The line is ignored and the connection goes on',
    );
    // A long line is cut.
    expect(warnings[1]!.fields.line).toBe(`${'x'.repeat(199)}…`);
    transport.close();
    const received = await frames;
    expect(received[0]).toBeInstanceOf(MalformedFrame);
    expect(received[1]).toEqual({ jsonrpc: '2.0', method: 'notifications/ready' });
    expect(received).toHaveLength(3);
    expect((await firstValueFrom(transport.closed$)).reason).toMatch(/^closed locally/);
  });

  it('reports the first ten lines one by one, then once that further ones are not reported', async () => {
    const logged: Logged[] = [];
    const transport = run("for (let i = 0; i < 25; i++) console.log('noise ' + i); setTimeout(() => {}, 60_000)", {
      logger: recordingLogger(logged),
    });
    const frames = lastValueFrom(transport.incoming$.pipe(toArray()));
    await until(() => logged.filter((entry) => entry.level === 'warn').length >= 11);
    transport.close();
    expect(await frames).toHaveLength(25);
    const warnings = logged.filter((entry) => entry.level === 'warn');
    expect(warnings).toHaveLength(11);
    expect(warnings[9]!.fields.line).toBe('noise 9');
    expect(warnings[10]!.message).toMatch(
      /keeps writing lines to stdout that are not MCP messages; further ones are not reported$/,
    );
  });

  it('goes to stderr at warn when the transport has no logger', async () => {
    const written: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const transport = run("console.log('hello from the server'); setTimeout(() => {}, 60_000)");
      await until(() => written.some((text) => text.includes('hello from the server')));
      transport.close();
      await firstValueFrom(transport.closed$);
    } finally {
      spy.mockRestore();
    }
    const record = JSON.parse(written.find((text) => text.includes('hello from the server'))!) as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({ level: 40, line: 'hello from the server', transport: 'stdio-client' });
  });
});

/** Resolves once `done()` holds, checking every few milliseconds (the child process runs in real time). */
async function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
