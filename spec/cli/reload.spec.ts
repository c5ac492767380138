import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { firstValueFrom } from 'rxjs';
import type { Subscription } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { toolResult } from '../../lib/client/tool-call';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { assertBuilt, runCli, stopAll, textOf, writeServers } from './cli-process';

// `rxmcp proxy` reading its servers file again, the built command end to end: on SIGHUP a second
// server joins while the downstream session stays, an invalid file is refused and the running
// servers stay; with `--watch` a changed file is picked up without a signal.

const STDIO_SERVER = resolve(__dirname, '../../dist/examples/stdio-server.js');
const stdio = { command: process.execPath, args: [STDIO_SERVER] };
const ONE = { mcpServers: { alpha: stdio } };
const TWO = { mcpServers: { alpha: stdio, beta: stdio } };
const WAIT_MS = 8_000;

beforeAll(assertBuilt);

/** Resolves once `check` holds, polling; rejects with `what` after `ms`. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** Bounds `promise` by `ms`. */
function within<T>(what: string, promise: Promise<T>, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('rxmcp proxy reloads its servers file', () => {
  let servers: ReturnType<typeof writeServers> | undefined;
  let client: McpClient | undefined;
  let listening: Subscription | undefined;

  afterEach(async () => {
    listening?.unsubscribe();
    client?.close();
    await stopAll();
    servers?.remove();
    servers = listening = client = undefined;
  });

  /** Starts the proxy on the servers file and connects a 2025-11-25 client; `lists` gets each `tools$` emission. */
  async function start(extra: string[] = []) {
    servers = writeServers(ONE);
    const cli = runCli(['proxy', '--config', servers.file, '--http', '0', ...extra]);
    const url = (
      await within('the proxy to serve', cli.stderrMatch(/serving 1 upstream at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/))
    )[1]!;
    const transport = createStreamableHttpClientTransport({ url });
    client = await within(
      'the client to connect',
      connect(transport, { name: 'reload-spec', version: '1.0.0', protocolVersion: '2025-11-25' }),
    );
    const lists: string[][] = [];
    listening = client.tools$.subscribe((tools) => lists.push(tools.map((tool) => tool.name)));
    await eventually('the first tool list', () => lists.length > 0);
    expect(lists[0]).toEqual(['alpha_add']);
    return { cli, transport, client, lists };
  }

  const names = async (mcp: McpClient) =>
    (await within('tools/list', firstValueFrom(mcp.listTools()))).map((tool) => tool.name);

  const add = async (mcp: McpClient, tool: string) =>
    textOf(await within(`${tool}`, firstValueFrom(mcp.callTool(tool, { a: 2, b: 3 }).pipe(toolResult()))));

  it('on SIGHUP, adds a server to the same session with list_changed, and refuses an invalid file', async () => {
    const { cli, transport, client: mcp, lists } = await start();
    const session = transport.sessionId;
    expect(session).toBeDefined();

    writeFileSync(servers!.file, JSON.stringify(TWO));
    process.kill(cli.child.pid!, 'SIGHUP');
    await within('the reload line', cli.stderrMatch(/SIGHUP: reloaded .*servers\.json \(\+beta\)/));
    // list_changed arrived: tools$ fetched the list again.
    await eventually('list_changed', () => lists.length > 1);
    // The new upstream connects after the first list_changed: poll tools/list on the same session.
    let listed: string[] = [];
    await eventually('beta_add on tools/list', async () => (listed = await names(mcp)).includes('beta_add'));
    expect(listed.sort()).toEqual(['alpha_add', 'beta_add']);
    expect(transport.sessionId).toBe(session);
    expect(await add(mcp, 'beta_add')).toBe('5');
    expect(await add(mcp, 'alpha_add')).toBe('5');
    await eventually('tools$ with beta_add', () => lists.at(-1)!.includes('beta_add'));
    // alpha, unchanged, kept running: it was started once.
    expect(cli.stderr().match(/✓ alpha/g)).toHaveLength(1);
    expect(cli.stderr()).toMatch(/✓ beta/);

    writeFileSync(servers!.file, '{ this is not JSON');
    process.kill(cli.child.pid!, 'SIGHUP');
    const refused = await within('the refusal line', cli.stderrMatch(/^.*not reloaded.*$/m));
    expect(refused[0]).toMatch(/SIGHUP: .*servers\.json not reloaded, the running servers stay/);
    expect((await names(mcp)).sort()).toEqual(['alpha_add', 'beta_add']);
    expect(await add(mcp, 'beta_add')).toBe('5');
    expect(transport.sessionId).toBe(session);

    // Then beta leaves and alpha changes (restarts); the session carries on.
    const changed = { mcpServers: { alpha: { ...stdio, env: { RELOAD_SPEC: '1' } } } };
    writeFileSync(servers!.file, JSON.stringify(changed));
    process.kill(cli.child.pid!, 'SIGHUP');
    await within('the second reload line', cli.stderrMatch(/SIGHUP: reloaded .*servers\.json \(~alpha -beta\)/));
    await eventually('beta_add to leave', async () => !(listed = await names(mcp)).includes('beta_add'));
    await eventually('alpha_add back', async () => (listed = await names(mcp)).includes('alpha_add'));
    expect(listed).toEqual(['alpha_add']);
    expect(await add(mcp, 'alpha_add')).toBe('5');
    expect(transport.sessionId).toBe(session);
  });

  it('with --watch, picks up a changed file without a signal', async () => {
    const { cli, transport, client: mcp, lists } = await start(['--watch']);
    const session = transport.sessionId;

    writeFileSync(servers!.file, JSON.stringify(TWO));
    await within('the reload line', cli.stderrMatch(/servers\.json changed: reloaded .*\(\+beta\)/));
    await eventually('list_changed', () => lists.length > 1);
    await eventually('beta_add on tools/list', async () => (await names(mcp)).includes('beta_add'));
    expect(transport.sessionId).toBe(session);
    expect(await add(mcp, 'beta_add')).toBe('5');
  });
});
