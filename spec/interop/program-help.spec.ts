import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { parseServerCommandLine, ServerUsageError } from '../../examples/conformance/server-command-line';
import { asksForHelp, parseCommandLine, UnknownOptionError } from '../../examples/conformance/mcp-client';

// Every program of the package, built: `--help` and `-h` print usage, options, examples and the
// environment on stdout and exit 0 without serving; an unknown option is one line on stderr naming
// it and pointing to --help, with exit code 2.

const DIST = resolve(__dirname, '../../dist');
const RXMCP = resolve(DIST, 'lib/cli/rxmcp.js');
const SERVER = resolve(DIST, 'examples/conformance/everything-server.js');
const CLIENT = resolve(DIST, 'examples/conformance/mcp-client.js');

function run(script: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.on('close', (code) => done({ code, stdout, stderr })),
  );
}

describe('--help on every program', () => {
  it.each([
    ['rxmcp', RXMCP, [], 'Usage: rxmcp <command> [options]'],
    ['rxmcp proxy', RXMCP, ['proxy'], 'Usage: rxmcp proxy --config <servers.json>'],
    ['rxmcp connect', RXMCP, ['connect'], 'Usage: rxmcp connect <url>'],
    ['rxmcp completion', RXMCP, ['completion'], 'Usage: rxmcp completion <bash | zsh>'],
    ['the example server', SERVER, [], 'Usage: node dist/examples/conformance/everything-server.js'],
    ['the example client', CLIENT, [], 'usage: mcp-client'],
  ])(
    '%s prints its usage, options, examples and environment on stdout, and exits 0',
    async (_name, script, words, usage) => {
      for (const flag of ['--help', '-h']) {
        const { code, stdout, stderr } = await run(script, [...words, flag]);
        expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
        expect(stdout.startsWith(usage)).toBe(true);
        expect(stdout).toMatch(/\nOptions:\n/);
        expect(stdout).toMatch(/\nExamples:\n/);
        expect(stdout).toMatch(/\nEnvironment:/);
      }
    },
  );

  it("documents the example server's environment variables and options", async () => {
    const { stdout } = await run(SERVER, ['--help']);
    for (const part of [
      'PORT',
      'LOG_LEVEL',
      '--http [port]',
      '--port <port>',
      '--auth',
      '--scopes',
      '--cors',
      '--redis',
    ])
      expect(stdout).toContain(part);
  });

  it('the example server prints help and exits even with other options, without serving', async () => {
    const { code, stdout } = await run(SERVER, ['--http', '0', '--help']);
    expect(code).toBe(0);
    expect(stdout).not.toContain('rxmcp everything-server: Streamable HTTP at');
  });
});

describe('an unknown option', () => {
  it.each([
    ['rxmcp', RXMCP, ['--verbose'], 'rxmcp: unknown option --verbose (see rxmcp --help)'],
    [
      'rxmcp proxy',
      RXMCP,
      ['proxy', '-c', 's.json', '--bogus'],
      'rxmcp proxy: unknown option --bogus (see rxmcp proxy --help)',
    ],
    [
      'rxmcp connect',
      RXMCP,
      ['connect', 'http://127.0.0.1:1/mcp', '--bogus'],
      'rxmcp connect: unknown option --bogus (see rxmcp connect --help)',
    ],
    ['the example server', SERVER, ['--bogus'], 'rxmcp everything-server: unknown option --bogus (see --help)'],
    [
      'the example server over HTTP',
      SERVER,
      ['--http', '0', '--bogus=1'],
      'rxmcp everything-server: unknown option --bogus (see --help)',
    ],
    [
      'the example client',
      CLIENT,
      ['--bogus', 'http://127.0.0.1:1/mcp'],
      'mcp-client: unknown option --bogus (see mcp-client --help)',
    ],
    [
      'the example client (short)',
      CLIENT,
      ['-x', 'http://127.0.0.1:1/mcp'],
      'mcp-client: unknown option -x (see mcp-client --help)',
    ],
  ])('is refused by %s in one line naming it, with exit code 2', async (_name, script, args, line) => {
    const { code, stdout, stderr } = await run(script, args);
    expect({ code, stdout, stderr }).toEqual({ code: 2, stdout: '', stderr: `${line}\n` });
  });
});

describe("the example server's command line", () => {
  const usage = (argv: string[]): string => {
    try {
      parseServerCommandLine(argv);
    } catch (error) {
      expect(error).toBeInstanceOf(ServerUsageError);
      return (error as Error).message;
    }
    throw new Error('no error');
  };

  it('keeps the flags the conformance runs, the README and npm start use', () => {
    expect(parseServerCommandLine([])).toEqual({ kind: 'stdio' });
    expect(parseServerCommandLine(['--http', '0'])).toEqual({ kind: 'http', port: 0 });
    expect(parseServerCommandLine(['--http'], { PORT: '4000' })).toEqual({ kind: 'http', port: 4000 });
    expect(parseServerCommandLine(['--http'])).toEqual({ kind: 'http', port: 3000 });
    expect(parseServerCommandLine(['--port', '5'])).toEqual({ kind: 'http', port: 5 });
    expect(parseServerCommandLine(['--http', '--port', '5'])).toEqual({ kind: 'http', port: 5 });
    expect(parseServerCommandLine(['--http', '3001', '--redis', 'redis://127.0.0.1:6379'])).toEqual({
      kind: 'http',
      port: 3001,
      redis: 'redis://127.0.0.1:6379',
    });
    expect(
      parseServerCommandLine(['--http', '0', '--auth', 'http://127.0.0.1:9/', '--scopes', 'a b', '--cors', '*']),
    ).toEqual({
      kind: 'http',
      port: 0,
      auth: { issuer: 'http://127.0.0.1:9/', scopes: ['a', 'b'] },
      cors: { origins: '*' },
    });
    expect(parseServerCommandLine(['--http=0', '--cors=http://localhost:5173,http://a:1'])).toEqual({
      kind: 'http',
      port: 0,
      cors: { origins: ['http://localhost:5173', 'http://a:1'] },
    });
  });

  it('names what is wrong', () => {
    expect(usage(['serve'])).toBe('rxmcp everything-server: unexpected argument "serve"');
    expect(usage(['--http', 'abc'])).toBe('rxmcp everything-server: --http wants a port from 0 to 65535, not "abc"');
    expect(usage(['--port'])).toBe('rxmcp everything-server: --port needs a value');
    expect(usage(['--auth', 'http://x/'])).toBe('rxmcp everything-server: --auth serves over HTTP: add --http [port]');
    expect(usage(['--http', '0', '--scopes', 'a'])).toBe('rxmcp everything-server: --scopes goes with --auth');
    expect(usage(['--http', '0', '--redis', 'localhost'])).toMatch(/--redis wants a Redis URL/);
    expect(usage(['--http', '0', '--cors', 'localhost'])).toMatch(/--cors wants \* or web origins/);
    expect(usage(['--http', '0', '--http', '1'])).toBe('rxmcp everything-server: --http is given more than once');
    expect(usage(['--help=yes'])).toBe('rxmcp everything-server: --help takes no value');
  });
});

describe("the example client's command line", () => {
  it('asks for help only with its own words, not the server command line', () => {
    expect(asksForHelp(['--help'])).toBe(true);
    expect(asksForHelp(['--call', 'x', '-h', 'http://h/mcp'])).toBe(true);
    expect(asksForHelp(['node', 'server.js', '--help'])).toBe(false);
    expect(asksForHelp(['--call', '--help', 'http://h/mcp'])).toBe(false);
  });

  it('refuses an unknown option before the server, and passes any after a command to it', () => {
    expect(() => parseCommandLine(['-v', 'http://h/mcp'])).toThrow(UnknownOptionError);
    expect(parseCommandLine(['node', 'server.js', '-v'])).toEqual({
      target: { command: 'node', args: ['server.js', '-v'] },
    });
  });
});
