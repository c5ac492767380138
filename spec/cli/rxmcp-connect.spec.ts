import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { s256 } from '../../lib/auth/pkce';
import { createResourceServer, InvalidTokenError } from '../../lib/auth/resource-server';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { startAuthorizationServer } from './authorization-server';
import { assertBuilt, CLI, runCli, stopAll, textOf } from './cli-process';

// `rxmcp connect <url>`, the built command, end to end: the official SDK's stdio client reaches an
// rxmcp server over Streamable HTTP through it, every message passing both ways; with OAuth, the
// user signs in through the printed URL and the loopback redirect.

beforeAll(assertBuilt);

/** A server with a tool of each kind the bridge must carry: plain, header-reading, progress, a request to the client. */
function remoteServer(): McpServer {
  const server = createServer({ name: 'remote', version: '1.0.0' });
  server.tool({
    name: 'greet',
    inputSchema: z.object({ name: z.string() }),
    handler: ({ name }) => textResult(`hello ${name}`),
  });
  server.tool({
    name: 'header',
    handler: (_args, context) => textResult(String(context.headers?.['x-test'] ?? 'none')),
  });
  server.tool({
    name: 'steps',
    handler: async (_args, context) => {
      context.progress(1, 2);
      context.progress(2, 2);
      return textResult('done');
    },
  });
  server.tool({
    name: 'roots',
    handler: async (_args, context) => {
      const { roots } = await firstValueFrom(context.listRoots());
      return textResult(roots.map((root) => root.uri).join(','));
    },
  });
  return server;
}

/** The official SDK client, over stdio, to `rxmcp connect ...args`. */
function sdkThroughCli(args: readonly string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'connect', ...args],
    stderr: 'pipe',
  });
  let stderr = '';
  const lines: Array<() => void> = [];
  transport.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const check of lines) check();
  });
  const client = new Client({ name: 'sdk-through-cli', version: '1.0.0' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  const stderrMatch = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((done) => {
      const check = () => {
        const match = pattern.exec(stderr);
        if (match) done(match);
      };
      lines.push(check);
      check();
    });
  return { client, transport, stderr: () => stderr, stderrMatch };
}

/** A closed port on 127.0.0.1: nothing listens there. */
async function closedPort(): Promise<number> {
  const probe = createHttpServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

describe('rxmcp connect', () => {
  let running: RunningStreamableHttpServer | undefined;

  afterEach(async () => {
    await stopAll();
    await running?.close();
    running = undefined;
  });

  it('bridges the official SDK stdio client to the server: calls, headers and the server’s requests to the client', async () => {
    running = await startStreamableHttpServer({ server: remoteServer(), port: 0 });
    const { client, transport, stderr } = sdkThroughCli([
      running.url.href,
      '--header',
      'X-Test: from-the-command-line',
    ]);
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: 'remote' });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet', 'header', 'steps', 'roots']);
      expect(textOf(await client.callTool({ name: 'greet', arguments: { name: 'ada' } }))).toBe('hello ada');
      expect(textOf(await client.callTool({ name: 'header', arguments: {} }))).toBe('from-the-command-line');
      expect(textOf(await client.callTool({ name: 'roots', arguments: {} }))).toBe('file:///work');
      expect(stderr()).toContain(`rxmcp: bridging stdio to ${running.url.href}`);
    } finally {
      await client.close();
    }
  });

  it('reaches a server on a Unix socket through an http+unix URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxmcp-connect-'));
    running = await startStreamableHttpServer({ server: remoteServer(), socketPath: join(dir, 'mcp.sock') });
    const { client, transport } = sdkThroughCli([running.url.href]);
    try {
      await client.connect(transport);
      expect(textOf(await client.callTool({ name: 'greet', arguments: { name: 'unix' } }))).toBe('hello unix');
    } finally {
      await client.close();
      await running.close();
      running = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 naming the server when a request piped in cannot reach it, rather than 0 in silence', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const cli = runCli(['connect', url]);
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'piped', version: '1' } },
    };
    cli.child.stdin.end(`${JSON.stringify(initialize)}\n`);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain(`rxmcp: ${url}: `);
    expect(cli.stderr()).toMatch(/ECONNREFUSED/);
  });

  it('carries progress before the result, holds what follows initialize until it is answered, and exits 0 when stdin ends', async () => {
    running = await startStreamableHttpServer({ server: remoteServer(), port: 0 });
    const cli = runCli(['connect', running.url.href]);
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      // Sent at once, before the initialize answer: over HTTP they need the session it opens.
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'steps', arguments: {}, _meta: { progressToken: 'p' } },
      },
    ];
    cli.child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    await cli.stdoutMatch(/"id":2,"result"/);
    const answers = cli
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(answers).toEqual([
      expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-11-25' }) }),
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 2, total: 2 } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
    expect(running.handler.sessions.size).toBe(1);
    cli.child.stdin.end();
    expect(await cli.exited).toBe(0);
    expect(running.handler.sessions.size).toBe(0);
  });

  it('exits 1 naming the server and the cause when the server cannot be reached', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const cli = runCli(['connect', url]);
    cli.child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(new RegExp(`rxmcp: ${url}: [^\\n]*ECONNREFUSED`));
    expect(cli.stdout()).toBe('');
  });

  it('signs in with the authorization code flow and PKCE when the server answers 401, then serves the client', async () => {
    const authorization = await startAuthorizationServer();
    try {
      running = await startStreamableHttpServer({
        server: remoteServer(),
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
      const { client, transport, stderrMatch } = sdkThroughCli([running.url.href]);
      try {
        const connecting = client.connect(transport);
        const [, signIn] = await stderrMatch(/asks you to sign in: open (\S+)\n/);
        // The user's browser: the authorization server approves and sends it back to the loopback redirect.
        const landing = await fetch(signIn!);
        expect(landing.status).toBe(200);
        await connecting;
        expect(textOf(await client.callTool({ name: 'greet', arguments: { name: 'signed in' } }))).toBe(
          'hello signed in',
        );
        const [asked] = authorization.seen.authorize;
        const [exchanged] = authorization.seen.token;
        expect(asked!.get('code_challenge_method')).toBe('S256');
        expect(await s256(exchanged!.get('code_verifier')!)).toBe(asked!.get('code_challenge'));
        expect(exchanged!.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
        expect(exchanged!.get('resource')).toBe(running.url.href);
      } finally {
        await client.close();
      }
    } finally {
      await authorization.close();
    }
  });
});
