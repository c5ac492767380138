import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { toolResult } from '../../lib/client/tool-call';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { z } from 'zod';
import { createResourceServer, InvalidTokenError } from '../../lib/auth/resource-server';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertBuilt,
  CLI,
  EXAMPLE_SERVER,
  runCli,
  stopAll,
  textOf,
  THREE_UPSTREAMS,
  writeServers,
} from './cli-process';
import type { CliRun } from './cli-process';
import { startAuthorizationServer } from './authorization-server';

// `rxmcp proxy`, the built command, end to end: two stdio upstreams and one whose command does not
// exist, served over Streamable HTTP and over stdio to the official SDK's client.

const FAILED_LINE = '✗ search: spawn rxmcp-spec-nonexistent-command ENOENT';

beforeAll(assertBuilt);
afterAll(stopAll);

describe('rxmcp proxy --http', () => {
  let servers: ReturnType<typeof writeServers>;
  let cli: CliRun;
  let url: string;
  const pidFile = join(tmpdir(), `rxmcp-spec-upstream-${process.pid}.pid`);

  beforeAll(async () => {
    // The `files` upstream writes its process id, so the test can see it exit with the command.
    const files = {
      command: process.execPath,
      args: [
        '-e',
        // Then runs the example server as the main module, as `node <server>` would.
        `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));` +
          `process.argv[1] = ${JSON.stringify(EXAMPLE_SERVER)}; require('module').runMain();`,
      ],
      env: { LOG_LEVEL: 'error' },
    };
    servers = writeServers({ mcpServers: { ...THREE_UPSTREAMS.mcpServers, files } });
    cli = runCli(['proxy', '--config', servers.file, '--http', '0']);
    url = (await cli.stderrMatch(/rxmcp: serving 2 upstreams at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/))[1]!;
  });

  afterAll(async () => {
    await cli?.stop();
    servers?.remove();
    rmSync(pidFile, { force: true });
  });

  it('reports each upstream in one line, the one that cannot start with its cause, on stderr only', () => {
    const lines = cli.stderr().split('\n');
    expect(lines).toContain(FAILED_LINE);
    expect(lines).toContainEqual(expect.stringMatching(/^✓ files \(stdio, \d+ tools\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^✓ everything \(stdio, \d+ tools\)$/));
    expect(cli.stdout()).toBe('');
  });

  it('serves both upstreams to the official SDK client: namespaced tools, and a call to each', async () => {
    const client = new Client({ name: 'sdk-over-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['files_echo', 'files_add', 'everything_echo']));
      expect(names.some((name) => name.startsWith('search_'))).toBe(false);
      expect(textOf(await client.callTool({ name: 'files_add', arguments: { a: 2, b: 3 } }))).toBe('5');
      expect(textOf(await client.callTool({ name: 'everything_echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');
    } finally {
      await client.close();
    }
  });

  it('answers requests of the modern revision 2026-07-28 at the same endpoint', async () => {
    const client: McpClient = await connect(createStreamableHttpClientTransport({ url }), {
      name: 'modern',
      version: '1.0.0',
      protocolVersion: '2026-07-28',
    });
    try {
      expect(client.era).toBe('modern');
      const result = await firstValueFrom(client.callTool('files_echo', { text: 'modern' }).pipe(toolResult()));
      expect(textOf(result)).toBe('modern');
    } finally {
      client.close();
    }
  });

  it('starts an upstream server again when its process dies, and serves it as before', async () => {
    const crashed = Number(readFileSync(pidFile, 'utf8'));
    const connectedLines = () => cli.stderr().match(/^✓ files \(stdio, \d+ tools\)$/gm)?.length ?? 0;
    expect(connectedLines()).toBe(1);
    process.kill(crashed, 'SIGKILL');
    await cli.stderrMatch(/^✓ files \(stdio, \d+ tools\)\n[\s\S]*^✓ files \(stdio, \d+ tools\)$/m);
    expect(connectedLines()).toBe(2);
    expect(Number(readFileSync(pidFile, 'utf8'))).not.toBe(crashed);
    const client = new Client({ name: 'sdk-after-restart', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect(textOf(await client.callTool({ name: 'files_add', arguments: { a: 20, b: 22 } }))).toBe('42');
    } finally {
      await client.close();
    }
  });

  it('closes its upstreams and exits 0 on SIGINT', async () => {
    const upstreamPid = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(upstreamPid, 0)).not.toThrow();
    expect(await cli.stop('SIGINT')).toBe(0);
    expect(cli.stderr()).toContain('rxmcp: shutting down (SIGINT)\n');
    // The command waited for its upstream processes to exit.
    expect(() => process.kill(upstreamPid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });
});

describe('rxmcp proxy --stdio', () => {
  it('serves both upstreams to the official SDK stdio client; a closed stdin ends it', async () => {
    const servers = writeServers(THREE_UPSTREAMS);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'proxy', '--config', servers.file, '--stdio'],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'sdk-over-stdio', version: '1.0.0' });
    try {
      await client.connect(transport);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['files_echo', 'everything_echo']));
      expect(textOf(await client.callTool({ name: 'files_echo', arguments: { text: 'over stdio' } }))).toBe(
        'over stdio',
      );
      expect(textOf(await client.callTool({ name: 'everything_echo', arguments: { message: 'x' } }))).toBe('Echo: x');
      expect(stderr.split('\n')).toContain(FAILED_LINE);
      expect(stderr).toContain('rxmcp: serving 2 upstreams on stdio');
      // The client ends the command's stdin and waits for it to exit: it shuts down before any signal.
      await client.close();
      expect(stderr).toContain('rxmcp: shutting down (stdin ended)\n');
    } finally {
      await client.close();
      servers.remove();
    }
  });
});

describe('rxmcp proxy with a Streamable HTTP upstream that asks for authorization', () => {
  it('prints a sign-in line naming the upstream, and serves it once the user has signed in', async () => {
    const authorization = await startAuthorizationServer();
    const remote = createServer({ name: 'remote', version: '1.0.0' });
    remote.tool({
      name: 'greet',
      inputSchema: z.object({ name: z.string() }),
      handler: ({ name }) => textResult(`hello ${name}`),
    });
    const running = await startStreamableHttpServer({
      server: remote,
      port: 0,
      auth: (endpoint) =>
        createResourceServer({
          resource: endpoint.href,
          authorizationServers: [authorization.issuer],
          verify: (token) =>
            token === 'token-1'
              ? Promise.resolve({ subject: 'user', scopes: [], claims: {} })
              : Promise.reject(new InvalidTokenError('unknown token')),
        }),
    });
    const servers = writeServers({ mcpServers: { remote: { url: running.url.href } } });
    const cli = runCli(['proxy', '--config', servers.file, '--http', '0']);
    try {
      const [, signIn] = await cli.stderrMatch(/rxmcp: remote asks you to sign in: open (\S+)\n/);
      // The user's browser: the authorization server approves and sends it back to the loopback redirect.
      expect((await fetch(signIn!)).status).toBe(200);
      const url = (await cli.stderrMatch(/rxmcp: serving 1 upstream at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/))[1]!;
      const client = await connect(createStreamableHttpClientTransport({ url }), {
        name: 'proxy-spec',
        version: '1.0.0',
      });
      expect(textOf(await client.promises.callTool('remote_greet', { name: 'ada' }))).toBe('hello ada');
      client.close();
      const [exchanged] = authorization.seen.token;
      expect(exchanged!.get('resource')).toBe(running.url.href);
      expect(exchanged!.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    } finally {
      await cli.stop();
      servers.remove();
      await running.close();
      await authorization.close();
    }
  });
});

describe('rxmcp proxy exit codes', () => {
  const run = async (config: unknown, args: string[] = []) => {
    const servers = writeServers(config);
    try {
      const cli = runCli(['proxy', '--config', servers.file, '--http', '0', ...args]);
      return { code: await cli.exited, stderr: cli.stderr(), stdout: cli.stdout(), file: servers.file };
    } finally {
      servers.remove();
    }
  };

  it('exits 2 with one line naming a file that does not exist', async () => {
    const cli = runCli(['proxy', '--config', '/nonexistent/servers.json']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toBe('rxmcp: cannot read /nonexistent/servers.json: no such file\n');
  });

  it('exits 2 naming the file, the line and column where it is not JSON, and showing that line', async () => {
    const { code, stderr, file } = await run('{ "mcpServers": { ');
    expect(code).toBe(2);
    expect(stderr).toBe(
      `rxmcp: ${file} is not valid JSON: line 1, column 19: expected a property name in double quotes, ` +
        'found the end of the file\n' +
        '  1 | { "mcpServers": { \n' +
        '    |                   ^\n',
    );
  });

  it('exits 2 with one line naming the file and the entry of a bad entry', async () => {
    const { code, stderr, file } = await run({ mcpServers: { good: { command: 'x' }, bad: { command: 42 } } });
    expect(code).toBe(2);
    expect(stderr.split('\n')).toHaveLength(2);
    expect(stderr).toContain(`rxmcp: ${file}: mcpServers.bad: "command": `);
  });

  it('exits 2 naming an environment variable the file needs and the process lacks', async () => {
    const { code, stderr, file } = await run({
      mcpServers: { a: { command: 'x', env: { T: '${RXMCP_SPEC_UNSET}' } } },
    });
    expect(code).toBe(2);
    expect(stderr).toBe(`rxmcp: ${file}: mcpServers.a.env.T: the environment variable RXMCP_SPEC_UNSET is not set\n`);
  });

  it('exits 1 when no upstream starts, after a line for each', async () => {
    const { code, stderr, file } = await run({
      mcpServers: { one: { command: 'rxmcp-spec-nonexistent-1' }, two: { command: 'rxmcp-spec-nonexistent-2' } },
    });
    expect(code).toBe(1);
    expect(stderr.split('\n').filter((line) => line !== '')).toEqual(
      expect.arrayContaining([
        '✗ one: spawn rxmcp-spec-nonexistent-1 ENOENT',
        '✗ two: spawn rxmcp-spec-nonexistent-2 ENOENT',
        `rxmcp: none of the 2 upstreams of ${file} could be started`,
      ]),
    );
  });

  it('exits 2 for an unknown command or flag, 0 for --help and --version (on stdout)', async () => {
    const unknown = runCli(['serve']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toBe('rxmcp: unknown command "serve" (see rxmcp --help)\n');
    const flag = runCli(['proxy', '--config', 'x.json', '--port', '1']);
    expect(await flag.exited).toBe(2);
    expect(flag.stderr()).toBe('rxmcp proxy: unknown option --port (see rxmcp proxy --help)\n');
    const help = runCli(['proxy', '--help']);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toMatch(/^Usage: rxmcp proxy --config <servers.json>/);
    const version = runCli(['connect', '--version']);
    expect(await version.exited).toBe(0);
    expect(version.stdout()).toMatch(/^rxmcp \d+\.\d+\.\d+/);
  });
});
