import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from '../../lib/cli/args';
import { benchOptions, parseDuration, splitCommandLine, targetUpstream } from '../../lib/cli/bench-command';
import type { CliIo } from '../../lib/cli/io';
import { main } from '../../lib/cli/main';
import type { BenchReport } from '../../lib/bench/report';
import { createServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { startWebSocketServer } from '../../lib/transport/websocket/websocket-server';
import { z } from 'zod';
import { EXAMPLE_SERVER, startExample, stopExample } from '../support/example-server';
import type { RunningExample } from '../support/example-server';

// rxmcp bench measures servers given as a command line or a URL, side by side, and writes the table,
// JSON and HTML it is asked for; its command line is checked before any server is started.

function run(
  argv: string[],
  { tty = false, interrupted = new Promise<string>(() => undefined) } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  let err = '';
  const io: CliIo = {
    stdin: new PassThrough(),
    stdout,
    stderr: { isTTY: tty, write: (text: string) => (err += text) },
    env: {},
    interrupted,
  };
  return main(argv, io).then((code) => ({ code, stdout: out, stderr: err }));
}

const bench = (...argv: string[]) => parseArgs(['bench', ...argv]);
const options = (...argv: string[]) => {
  const command = bench('x', ...argv);
  if (command.kind !== 'bench') throw new Error('not bench');
  return benchOptions(command);
};
/** Short runs: one repetition of 200 ms after a warm-up of at most 300 ms. */
const SHORT = ['-d', '200ms', '--reps', '1', '--cold', '10', '--warmup-max', '300ms'];
const STDIO_EXAMPLE = `example=${process.execPath} ${EXAMPLE_SERVER}`;

describe('rxmcp bench: the command line', () => {
  it('reads targets as command lines or URLs, named with name=', () => {
    expect(targetUpstream('a=node "my server.js" --flag', {})).toEqual({
      kind: 'stdio',
      name: 'a',
      command: 'node',
      args: ['my server.js', '--flag'],
      env: {},
      cwd: undefined,
    });
    expect(targetUpstream('http://127.0.0.1:3000/mcp', { 'x-team': 'blue' })).toEqual({
      kind: 'http',
      name: 'http://127.0.0.1:3000/mcp',
      url: new URL('http://127.0.0.1:3000/mcp'),
      headers: { 'x-team': 'blue' },
    });
    expect(targetUpstream('old=sse+http://127.0.0.1:3000/sse', {})).toMatchObject({ kind: 'sse', name: 'old' });
    expect(targetUpstream('w=ws://127.0.0.1:3000/mcp', {})).toMatchObject({ kind: 'ws', name: 'w' });
    expect(splitCommandLine(`node -e 'a b' "c \\"d\\"" e\\ f`)).toEqual(['node', '-e', 'a b', 'c "d"', 'e f']);
  });

  it('makes the engine options: a tool with arguments, a closed or an open loop, durations', () => {
    expect(options('-t', 'echo', '--args', '{"text":"hi"}', '-c', '8', '-d', '2s', '--timeout', '500ms')).toEqual({
      workload: { kind: 'tool', name: 'echo', arguments: { text: 'hi' } },
      load: { kind: 'closed', concurrency: 8 },
      durationMs: 2000,
      timeoutMs: 500,
    });
    expect(options('--rate', '250')).toEqual({
      workload: { kind: 'ping' },
      load: { kind: 'open', ratePerSecond: 250 },
    });
    expect(parseDuration('--duration', '1.5m')).toBe(90_000);
  });

  it.each([
    [['-c', '2', '--rate', '10'], '--concurrency (closed loop) and --rate (open loop) are exclusive'],
    [['--args', '{}'], '--args are the arguments of --tool'],
    [['-t', 'echo', '--args', '[1]'], '--args wants a JSON object'],
    [['-t', 'echo', '--args', '{'], '--args is not JSON'],
    [['-d', 'soon'], '--duration wants a time such as 5s, 500ms or 1m, not "soon"'],
    [['--reps', '0'], '--reps wants a whole number from 1, not "0"'],
    [['--rate', '-3'], '--rate wants calls per second'],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => options(...argv)).toThrow(message);
  });

  it('ends with exit code 2 and one line for a bad command line, starting nothing', async () => {
    await expect(run(['bench'])).resolves.toMatchObject({ code: 2, stderr: expect.stringMatching(/name a target/) });
    const { code, stderr } = await run(['bench', 'node nothing.js', '--rate', 'x']);
    expect(code).toBe(2);
    expect(stderr).toBe('rxmcp bench: --rate wants calls per second, not "x" (see rxmcp bench --help)\n');
  });
});

describe('rxmcp bench: help and completion', () => {
  it('prints its help on stdout: targets, options, examples, exit codes', async () => {
    for (const argv of [
      ['bench', '--help'],
      ['help', 'bench'],
    ]) {
      const { code, stdout } = await run(argv);
      expect(code).toBe(0);
      expect(stdout.startsWith('Usage: rxmcp bench <target>...')).toBe(true);
      for (const part of ['Targets', '--rate <calls/s>', '--sweep', '--compare <file>', 'Examples:', 'Exit codes:'])
        expect(stdout).toContain(part);
    }
    expect((await run(['--help'])).stdout).toMatch(/^ {2}bench {8}measure MCP servers side by side/m);
  });

  it('is completed with its options in bash and zsh', async () => {
    const bash = (await run(['completion', 'bash'])).stdout;
    expect(bash).toMatch(/ {4}bench\)\n[^]*--concurrency -c --rate -r/);
    const zsh = (await run(['completion', 'zsh'])).stdout;
    expect(zsh).toContain(`'*:target (a command line or URL):_urls'`);
  });
});

describe('rxmcp bench: measuring', () => {
  let http: RunningExample | undefined;
  let dir: string;
  beforeAll(async () => {
    http = await startExample();
  });
  afterAll(() => stopExample(http));
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'rxmcp-bench-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('measures a stdio command and a Streamable HTTP URL side by side: table, JSON, server CPU and memory', async () => {
    const json = join(dir, 'report.json');
    const { code, stdout, stderr } = await run([
      'bench',
      STDIO_EXAMPLE,
      `http=${http!.url}`,
      '-t',
      'echo',
      '--args',
      '{"text":"hi"}',
      '-c',
      '4',
      ...SHORT,
      '--json',
      json,
    ]);
    expect(stderr).toMatch(/^rxmcp: example, repetition 1: [\d,.]+ calls\/s, p99/m);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^tools\/call echo, closed loop, 4 in flight: 1 repetition of 0.2 s per target/);
    expect(stdout).toMatch(/^example\s+[\d,]+/m);
    expect(stdout).toMatch(/^http\s+[\d,]+/m);
    expect(stdout).toMatch(/not for quoting: 1 repetition/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    expect(report.targets.map((t) => [t.name, t.how])).toEqual([
      ['example', `stdio: ${process.execPath} ${EXAMPLE_SERVER}`],
      ['http', `http ${http!.url}`],
    ]);
    for (const target of report.targets) {
      expect(target.served.tools).toContain('echo');
      expect(target.summary.calls).toBeGreaterThan(0);
      expect(target.summary.errors).toEqual({});
      expect(target.reps[0]!.cold.calls).toBe(10);
    }
    // The stdio server is a child of this process: its CPU time and resident set are read.
    expect(report.targets[0]!.summary.cpuMsPerCall!.median).toBeGreaterThan(0);
    expect(report.targets[0]!.summary.rssMiB!.median).toBeGreaterThan(10);
    expect(report.targets[1]!.summary.cpuMsPerCall).toBeUndefined();
  });

  it("with --pid and --sessions, reads a URL target's server: CPU per call, memory per session", async () => {
    const json = join(dir, 'sessions.json');
    const argv = ['bench', `http=${http!.url}`, '--pid', String(http!.child.pid), '--sessions', '20', '-c', '20'];
    const { code, stdout } = await run([...argv, ...SHORT, '--json', json]);
    expect(code).toBe(0);
    const { summary, reps } = (JSON.parse(readFileSync(json, 'utf8')) as BenchReport).targets[0]!;
    expect(reps[0]!.server!.sessions).toBe(20);
    expect(summary.cpuMsPerCall!.median).toBeGreaterThan(0);
    expect(Number.isFinite(summary.rssPerSessionKiB!.median)).toBe(true);
    expect(stdout).toMatch(/^http: the server's memory grew -?[\d,.]+ KiB per session opened$/m);
  });

  it('sends a mix of requests from a weights file, and refuses a file it cannot read', async () => {
    const weights = join(dir, 'weights.json');
    writeFileSync(
      weights,
      JSON.stringify([
        { weight: 3, method: 'tools/call', name: 'echo', arguments: { text: 'hi' } },
        { method: 'tools/list' },
        { method: 'ping' },
      ]),
    );
    const json = join(dir, 'mix.json');
    expect((await run(['bench', `http=${http!.url}`, '--mix', weights, ...SHORT, '--json', json])).code).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    expect(report.settings.workload).toBe('mix of tools/call echo ×3, tools/list ×1, ping ×1');
    expect(report.targets[0]!.summary.errors).toEqual({});
    const missing = await run(['bench', `http=${http!.url}`, '--mix', join(dir, 'none.json')]);
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/cannot read the weights file .*none\.json/),
    });
  });

  it('measures an HTTP+SSE server (sse+http://), showing a live progress line on a terminal', async () => {
    const sse = http!.url.replace(/\/mcp$/, '/sse');
    const { code, stdout, stderr } = await run(['bench', `old=sse+${sse}`, ...SHORT], { tty: true });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^old\s+[\d,]+/m);
    // Each phase rewrites the line in place; each repetition's result stays.
    for (const phase of ['connect', 'cold', 'warm-up', 'measure'])
      expect(stderr).toContain(`\r\u001b[2Kold, repetition 1: ${phase}…`);
    expect(stderr).toMatch(/\r\u001b\[2Kold, repetition 1: [\d,.]+ calls\/s, p99 [\d.]+ ms/);
  });

  it('stops when interrupted: exit 0, no report, the stdio server ended', async () => {
    let interrupt: (signal: string) => void = () => undefined;
    const interrupted = new Promise<string>((resolve) => (interrupt = resolve));
    const running = run(['bench', STDIO_EXAMPLE, '-d', '60s', '--reps', '1', '--cold', '5'], { interrupted });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    interrupt('SIGINT');
    const { code, stdout, stderr } = await running;
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^rxmcp: stopped before the end: no report$/m);
    // The stdio server it started has ended (the HTTP example of these tests, started with --http, runs on).
    const children = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    expect(children.split('\n').filter((line) => line.includes(EXAMPLE_SERVER) && !line.includes('--http'))).toEqual(
      [],
    );
  });

  it('writes the JSON report on stdout with --json -, and the table on stderr', async () => {
    const { code, stdout, stderr } = await run(['bench', `http=${http!.url}`, ...SHORT, '--json', '-']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as BenchReport;
    expect(report.format).toBe('rxmcp-bench/1');
    expect(report.settings.workload).toBe('ping');
    expect(stderr).toMatch(/^ping, closed loop, 1 in flight: 1 repetition/m);
  });

  /** A server with an `echo` tool, for the targets reached by URL. */
  function echoServer(name: string) {
    const server = createServer({ name, version: '1.0.0' });
    server.tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => textResult(text) });
    return server;
  }

  /** Measures one target calling `echo`; resolves with its exit code and its result in the JSON report. */
  async function benchEcho(name: string, target: string) {
    const json = join(dir, `${name}.json`);
    const argv = ['bench', `${name}=${target}`, '-t', 'echo', '--args', '{"text":"hi"}', ...SHORT, '--json', json];
    const { code } = await run(argv);
    expect(code).toBe(0);
    return (JSON.parse(readFileSync(json, 'utf8')) as BenchReport).targets[0]!;
  }

  it('measures a WebSocket server', async () => {
    const ws = await startWebSocketServer({ server: echoServer('ws') });
    try {
      const target = await benchEcho('ws', ws.url.href);
      expect(target.how).toBe(`ws ${ws.url.href}`);
      expect(target.summary.calls).toBeGreaterThan(0);
      expect(target.summary.errors).toEqual({});
    } finally {
      await ws.close();
    }
  });

  it('measures a server on a Unix socket, given as an http+unix URL', async () => {
    const local = await startStreamableHttpServer({ server: echoServer('local'), socketPath: join(dir, 'bench.sock') });
    try {
      const target = await benchEcho('unix', local.url.href);
      expect(target.summary.calls).toBeGreaterThan(0);
      expect(target.summary.errors).toEqual({});
    } finally {
      await local.close();
    }
  });

  it('fails with exit code 1 when a target does not serve the tool, naming what it does', async () => {
    const { code, stderr } = await run(['bench', STDIO_EXAMPLE, '-t', 'nope', ...SHORT]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/rxmcp: example serves no tool "nope" \(it serves: .*echo/);
  });

  it('fails with exit code 1 when a command cannot be started', async () => {
    const { code, stderr } = await run(['bench', 'missing=/nonexistent/server', ...SHORT]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/rxmcp: missing: .*ENOENT/);
  });

  it('--compare exits 1 naming each figure worse than the baseline beyond its spread, 0 against a slower one', async () => {
    const json = join(dir, 'now.json');
    const argv = ['bench', `http=${http!.url}`, ...SHORT, '--json', json];
    expect((await run(argv)).code).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    const faster = join(dir, 'faster.json');
    const t = report.targets[0]!;
    const tenfold = {
      median: t.summary.perSecond.median * 10,
      min: t.summary.perSecond.min * 10,
      max: t.summary.perSecond.max * 10,
    };
    writeFileSync(
      faster,
      JSON.stringify({ ...report, targets: [{ ...t, summary: { ...t.summary, perSecond: tenfold } }] }),
    );
    const worse = await run([...argv.slice(0, -2), '--compare', faster]);
    expect(worse.code).toBe(1);
    expect(worse.stderr).toMatch(/rxmcp: http: calls\/s [\d,]+ is worse than the baseline's [\d,]+/);
    // One repetition is not for quoting: the comparison says so beside its verdict.
    expect(worse.stderr).toMatch(/^rxmcp: this run is not for quoting for http: compare runs made alike$/m);
    // Against a baseline ten times slower (a second run's own figures vary with the machine's load,
    // and one repetition has no spread to absorb that), nothing is worse.
    const scaled = (figure: { median: number; min: number; max: number }, by: number) => ({
      median: figure.median * by,
      min: figure.min * by,
      max: figure.max * by,
    });
    const slower = join(dir, 'slower.json');
    const summary = t.summary;
    writeFileSync(
      slower,
      JSON.stringify({
        ...report,
        targets: [
          {
            ...t,
            summary: {
              ...summary,
              perSecond: scaled(summary.perSecond, 0.1),
              p50Ms: scaled(summary.p50Ms, 10),
              p99Ms: scaled(summary.p99Ms, 10),
            },
          },
        ],
      }),
    );
    const better = await run([...argv.slice(0, -2), '--compare', slower]);
    expect(better.stderr).toMatch(/^rxmcp: no figure is worse than .*slower\.json beyond its spread$/m);
    expect(better.code).toBe(0);
  });
});
