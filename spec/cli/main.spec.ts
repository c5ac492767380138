import { PassThrough } from 'node:stream';
import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import type { CliIo } from '../../lib/cli/io';
import { main } from '../../lib/cli/main';
import { connect } from '../../lib/client/client';
import { toolResult } from '../../lib/client/tool-call';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { eventually } from '../support/until';
import { textOf, writeServers } from './cli-process';

// The command in this process, with buffers for its streams and a promise for Ctrl-C: upstreams
// reached over HTTP (Streamable HTTP and the 2024-11-05 HTTP+SSE transport), and what it prints.

/** An io whose stderr is collected and whose `stop()` plays the user's Ctrl-C. */
function testIo(options: { isTTY?: boolean; env?: Record<string, string> } = {}) {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  let err = '';
  let stop!: (signal: string) => void;
  const io: CliIo = {
    stdin: new PassThrough(),
    stdout,
    stderr: { isTTY: options.isTTY ?? false, write: (text: string) => (err += text) },
    env: options.env ?? {},
    interrupted: new Promise<string>((resolve) => (stop = resolve)),
  };
  return { io, stdout: () => out, stderr: () => err, stop: (signal = 'SIGINT') => stop(signal) };
}

let upstream: RunningStreamableHttpServer | undefined;
let servers: ReturnType<typeof writeServers> | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
  servers?.remove();
  servers = undefined;
});

async function startUpstream(): Promise<RunningStreamableHttpServer> {
  const server = createServer({ name: 'remote', version: '1.0.0' });
  server.tool({
    name: 'greet',
    inputSchema: z.object({ name: z.string() }),
    handler: ({ name }) => textResult(`hello ${name}`),
  });
  server.tool({
    name: 'team',
    handler: (_args, context) => textResult(String(context.headers?.['x-team'] ?? 'none')),
  });
  return startStreamableHttpServer({ server, port: 0, httpSse: true });
}

describe('main', () => {
  it('prints help and the version on stdout and exits 0', async () => {
    const help = testIo();
    await expect(main(['--help'], help.io)).resolves.toBe(0);
    expect(help.stdout()).toMatch(/^Usage: rxmcp <command> \[options\]\n/);
    expect(help.stderr()).toBe('');
    const version = testIo();
    await expect(main(['proxy', '-v'], version.io)).resolves.toBe(0);
    expect(version.stdout()).toMatch(/^rxmcp \d+\.\d+\.\d+\n$/);
  });

  it('proxies URL upstreams (Streamable HTTP and HTTP+SSE) with ${VAR} headers, and exits 0 when interrupted', async () => {
    upstream = await startUpstream();
    const sse = new URL('/sse', upstream.url).href;
    servers = writeServers({
      mcpServers: {
        remote: { url: upstream.url.href, headers: { 'x-team': '${TEAM}' } },
        legacy: { url: sse, type: 'sse' },
      },
    });
    const cli = testIo({ env: { TEAM: 'blue' } });
    const exit = main(['proxy', '--config', servers.file, '--http', '0'], cli.io);
    await eventually(() => /serving 2 upstreams at (\S+)\n/.test(cli.stderr()));
    const url = /serving 2 upstreams at (\S+)\n/.exec(cli.stderr())![1]!;
    expect(cli.stderr()).toContain(`✓ remote (http ${upstream.url.href}, 2 tools)\n`);
    expect(cli.stderr()).toContain(`✓ legacy (sse ${sse}, 2 tools)\n`);
    const client = await connect(createStreamableHttpClientTransport({ url }), { name: 'spec', version: '1.0.0' });
    try {
      const names = (await firstValueFrom(client.listTools())).map((tool) => tool.name);
      expect(names.sort()).toEqual(['legacy_greet', 'legacy_team', 'remote_greet', 'remote_team']);
      const call = (name: string, args: Record<string, unknown>) =>
        firstValueFrom(client.callTool(name, args).pipe(toolResult())).then(textOf);
      expect(await call('legacy_greet', { name: 'sse' })).toBe('hello sse');
      expect(await call('remote_greet', { name: 'http' })).toBe('hello http');
      expect(await call('remote_team', {})).toBe('blue');
    } finally {
      client.close();
    }
    cli.stop();
    await expect(exit).resolves.toBe(0);
    expect(cli.stderr()).toContain('rxmcp: shutting down (SIGINT)\n');
    expect(cli.stdout()).toBe('');
    await eventually(() => upstream!.handler.sessions.size === 0);
  });

  it('exits 1 naming the port when it cannot serve there', async () => {
    upstream = await startUpstream();
    servers = writeServers({ mcpServers: { remote: { url: upstream.url.href } } });
    const cli = testIo();
    await expect(main(['proxy', '--config', servers.file, '--http', String(upstream.port)], cli.io)).resolves.toBe(1);
    expect(cli.stderr()).toMatch(
      new RegExp(
        `\nrxmcp: cannot serve: port ${upstream.port} of 127\\.0\\.0\\.1 is in use; choose another with --http <port> \\(0: any free port\\)\n$`,
      ),
    );
  });

  it('colours the error line of a bad servers file on a terminal, and exits 2', async () => {
    servers = writeServers('[]');
    const cli = testIo({ isTTY: true });
    await expect(main(['proxy', '--config', servers.file], cli.io)).resolves.toBe(2);
    expect(cli.stderr()).toBe(
      `\u001b[31mrxmcp: ${servers.file}: expected an object with "mcpServers": { "<name>": {...} }\u001b[0m\n`,
    );
  });
});
