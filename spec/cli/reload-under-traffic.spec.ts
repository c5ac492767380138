import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import type { StreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { assertBuilt, runCli, stopAll, textOf, writeServers } from './cli-process';

// A SIGHUP reload of the built `rxmcp proxy` while calls flow: clients each call in a loop while
// the servers file gains a server, then changes one (it restarts). Every call ends, with a result
// or an error that names what happened; none hangs; each downstream session stays; each client is
// told the list changed and sees the new tools.

const STDIO_SERVER = resolve(__dirname, '../../dist/examples/stdio-server.js');
const stdio = { command: process.execPath, args: [STDIO_SERVER] };
const CLIENTS = 4;
/** A call not settled this long after it was made has hung. */
const HANG_MS = 5_000;

beforeAll(assertBuilt);
afterAll(stopAll);

/** Which reload a call was made after. */
type Phase = 'first' | 'joined' | 'restarting';

/** A call's end: its result's text, its error's message, or `hung`; with its tool, and the phases it began and ended in. */
type Outcome = { readonly tool: string; readonly phase: Phase; readonly ended: Phase } & (
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string }
);

function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('hung')), HANG_MS);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** One downstream client calling `tool` in a loop until `stop` is set; what each call ended with. */
class Caller {
  readonly outcomes: Outcome[] = [];
  readonly lists: string[][] = [];
  tool = 'alpha_add';
  phase: Phase = 'first';
  private stopped = false;
  private loop: Promise<void> | undefined;

  private constructor(
    readonly client: McpClient,
    readonly transport: StreamableHttpClientTransport,
  ) {
    client.tools$.subscribe((tools) => this.lists.push(tools.map((tool) => tool.name).sort()));
  }

  static async open(url: string): Promise<Caller> {
    const transport = createStreamableHttpClientTransport({ url });
    const client = await connect(transport, { name: 'traffic', version: '1.0.0', protocolVersion: '2025-11-25' });
    return new Caller(client, transport);
  }

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        const { tool, phase } = this;
        try {
          const result = await bounded(this.client.promises.callTool(tool, { a: 2, b: 3 }));
          this.outcomes.push({ tool, phase, ended: this.phase, ok: true, text: textOf(result) });
        } catch (error) {
          this.outcomes.push({ tool, phase, ended: this.phase, ok: false, error: (error as Error).message });
          // As a client would, wait a moment before calling again.
          await new Promise((done) => setTimeout(done, 10));
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

describe('rxmcp proxy reloaded on SIGHUP under traffic', () => {
  it('ends every call, keeps every session, and shows the added tools with list_changed', async () => {
    const servers = writeServers({ mcpServers: { alpha: stdio } });
    const callers: Caller[] = [];
    try {
      const cli = runCli(['proxy', '--config', servers.file, '--http', '0']);
      const [, url] = await cli.stderrMatch(/serving 1 upstream at (\S+)\n/);
      for (let i = 0; i < CLIENTS; i++) callers.push(await Caller.open(url!));
      const sessions = callers.map((caller) => caller.transport.sessionId);
      expect(new Set(sessions).size).toBe(CLIENTS);
      callers.forEach((caller) => caller.start());
      await until('calls to flow', () => callers.every((caller) => caller.outcomes.length >= 5));

      // beta joins.
      writeFileSync(servers.file, JSON.stringify({ mcpServers: { alpha: stdio, beta: stdio } }));
      process.kill(cli.child.pid!, 'SIGHUP');
      await cli.stderrMatch(/SIGHUP: reloaded .*\(\+beta\)/);
      callers.forEach((caller) => (caller.phase = 'joined'));
      await until('every client to be told of beta_add', () =>
        callers.every((caller) => caller.lists.at(-1)?.includes('beta_add') === true),
      );
      const marks = callers.map((caller) => caller.outcomes.length);
      await until('calls to go on', () => callers.every((caller, i) => caller.outcomes.length >= marks[i]! + 5));
      // Half the clients move to beta's tool; alpha changes and restarts under the others' calls.
      callers.slice(0, CLIENTS / 2).forEach((caller) => (caller.tool = 'beta_add'));
      callers.forEach((caller) => (caller.phase = 'restarting'));
      writeFileSync(
        servers.file,
        JSON.stringify({ mcpServers: { alpha: { ...stdio, env: { RELOADED: '1' } }, beta: stdio } }),
      );
      process.kill(cli.child.pid!, 'SIGHUP');
      await cli.stderrMatch(/SIGHUP: reloaded .*\(~alpha\)/);
      const after = callers.map((caller) => caller.outcomes.length);
      await until('alpha to answer again', () =>
        callers.every((caller, i) => caller.outcomes.slice(after[i]).filter((o) => o.ok).length >= 5),
      );
      await Promise.all(callers.map((caller) => caller.stop()));

      const outcomes = callers.flatMap((caller) => caller.outcomes);
      const failures = outcomes.filter((outcome): outcome is Extract<Outcome, { ok: false }> => !outcome.ok);
      expect(failures.filter((failure) => failure.error === 'hung')).toEqual([]);
      // Only calls to alpha in flight while it restarts fail, each with an error naming it; all others
      // answer. A call made just before the restart began may end after it: it counts as in flight.
      for (const failure of failures) {
        expect(failure).toMatchObject({ tool: 'alpha_add', ended: 'restarting' });
        expect(failure.error).toMatch(
          /^Upstream "alpha" (is unavailable|went away while the request was in flight; it may have run)/,
        );
      }
      const answered = outcomes.filter((outcome) => outcome.ok);
      expect(answered.every((outcome) => outcome.ok && outcome.text === '5')).toBe(true);
      expect(new Set(answered.map((outcome) => `${outcome.tool} ${outcome.phase}`))).toEqual(
        new Set(['alpha_add first', 'alpha_add joined', 'alpha_add restarting', 'beta_add restarting']),
      );
      expect(callers.map((caller) => caller.transport.sessionId)).toEqual(sessions);
      expect(callers.every((caller) => caller.lists.length >= 2)).toBe(true);
      expect(cli.stderr().match(/✓ alpha/g)).toHaveLength(2);
      expect(outcomes.length).toBeGreaterThan(CLIENTS * 15);
    } finally {
      await Promise.all(callers.map((caller) => caller.stop()));
      callers.forEach((caller) => caller.client.close());
      await stopAll();
      servers.remove();
    }
  }, 60_000);
});
