/**
 * Whether a change made rxmcp slower: the same `tools/call` workloads timed on two builds of the
 * repository, a baseline and a candidate (each a checkout whose `dist/` was built with
 * `npm run build:bench`), in memory, over stdio and over Streamable HTTP. The figure is the
 * CPU time a call costs, client and server together (the server's read from /proc on Linux; the
 * client's alone elsewhere), which what else the machine runs changes much less than calls per
 * second. Each measurement is a fresh process (this script with `--measure`), the two builds take
 * turns, and each figure is the median of the rounds, with [min – max]; the ratio is candidate over
 * baseline, so 1.00 or less is no loss.
 *
 *   npm run build:bench && node dist/benchmarks/compare-builds.js <baseline> [candidate] [--rounds=6]
 *     [--only=in-memory,stdio,http]
 *
 * A baseline checkout of an older commit: `git worktree add ../base <commit>`, link or install its
 * node_modules, and build it the same way.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpuOfProcess } from './process-cpu';

/** A workload: where the server runs, and how many calls are in flight. */
interface Workload {
  readonly transport: 'in-memory' | 'stdio' | 'http';
  readonly inFlight: number;
  /** The calls timed, after as many again to warm up (a fifth, over HTTP). */
  readonly calls: number;
}

const WORKLOADS: readonly Workload[] = [
  { transport: 'in-memory', inFlight: 1, calls: 100_000 },
  { transport: 'in-memory', inFlight: 64, calls: 200_000 },
  { transport: 'stdio', inFlight: 1, calls: 20_000 },
  { transport: 'stdio', inFlight: 64, calls: 60_000 },
  { transport: 'http', inFlight: 16, calls: 20_000 },
];

/** One measurement: calls per second, and microseconds of CPU per call. */
interface Measurement {
  readonly perSecond: number;
  readonly cpuMicros: number;
}

/** What the measuring process loads from a build: the public entry's few functions it calls. */
interface Library {
  connect(transport: unknown, options: object): Promise<Client>;
  createInMemoryPair(): [unknown, unknown];
  createStdioClientTransport(options: { command: string; args: string[] }): { readonly pid?: number };
  createStreamableHttpClientTransport(options: { url: string }): unknown;
}

interface Client {
  readonly promises: { callTool(name: string, args: object): Promise<unknown> };
  close(): void;
}

/** Starts the build's bench server over HTTP; resolves with its URL, its pid and how to stop it. */
async function httpServer(build: string): Promise<{ url: string; pid: number | undefined; stop(): void }> {
  const script = join(build, 'dist/benchmarks/servers/rxmcp-server.js');
  const child = spawn(process.execPath, [script, '--http=stateful'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((done) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) done(out.slice(0, out.indexOf('\n')).trim());
    });
  });
  return { url, pid: child.pid, stop: () => void child.stdin.end() };
}

/** Runs one workload on one build, in this process: the `--measure` side. */
async function measure(build: string, workload: Workload): Promise<Measurement> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = require(join(build, 'dist/lib/index.js')) as Library;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const bench = require(join(build, 'dist/benchmarks/servers/rxmcp-server.js')) as {
    createBenchServer(): { connect(transport: unknown): unknown };
  };
  const handshake = { name: 'compare-builds', version: '1.0.0', protocolVersion: '2025-11-25' };
  let serverPid: number | undefined;
  let stop = (): void => undefined;
  let client: Client;
  if (workload.transport === 'in-memory') {
    const [clientSide, serverSide] = lib.createInMemoryPair();
    bench.createBenchServer().connect(serverSide);
    client = await lib.connect(clientSide, handshake);
  } else if (workload.transport === 'stdio') {
    const script = join(build, 'dist/benchmarks/servers/rxmcp-server.js');
    const transport = lib.createStdioClientTransport({ command: process.execPath, args: [script] });
    client = await lib.connect(transport, handshake);
    serverPid = transport.pid;
  } else {
    const server = await httpServer(build);
    serverPid = server.pid;
    stop = server.stop;
    client = await lib.connect(lib.createStreamableHttpClientTransport({ url: server.url }), handshake);
  }
  const run = async (count: number): Promise<void> => {
    let left = count;
    const loop = async (): Promise<void> => {
      while (left-- > 0) await client.promises.callTool('echo', { text: 'hello' });
    };
    await Promise.all(Array.from({ length: workload.inFlight }, loop));
  };
  await run(workload.transport === 'http' ? workload.calls / 5 : workload.calls);
  const serverBefore = cpuOfProcess(serverPid);
  const used = process.cpuUsage();
  const started = performance.now();
  await run(workload.calls);
  const elapsedMs = performance.now() - started;
  const { user, system } = process.cpuUsage(used);
  const serverAfter = cpuOfProcess(serverPid);
  const serverCpu = serverBefore !== undefined && serverAfter !== undefined ? serverAfter - serverBefore : 0;
  client.close();
  stop();
  return { perSecond: (workload.calls / elapsedMs) * 1000, cpuMicros: (user + system + serverCpu) / workload.calls };
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const spread = (values: readonly number[]): string =>
  `${median(values).toFixed(2)} [${Math.min(...values).toFixed(2)} – ${Math.max(...values).toFixed(2)}]`;

function compare(builds: readonly [string, string], rounds: number, only: readonly string[] | undefined): void {
  const lines = [
    `baseline ${builds[0]}, candidate ${builds[1]}: CPU µs per call, median [min – max] of ${rounds} rounds`,
    '',
    '| workload | baseline | candidate | candidate / baseline | calls/s, baseline | calls/s, candidate |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const [index, workload] of WORKLOADS.entries()) {
    if (only !== undefined && !only.includes(workload.transport)) continue;
    const figures: [Measurement[], Measurement[]] = [[], []];
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const output = execFileSync(process.execPath, [__filename, '--measure', builds[side]!, String(index)]);
        figures[side]!.push(JSON.parse(output.toString()) as Measurement);
      }
    }
    const [base, candidate] = figures.map((side) => side.map((m) => m.cpuMicros)) as [number[], number[]];
    const speeds = figures.map((side) => Math.round(median(side.map((m) => m.perSecond))).toLocaleString('en-US'));
    const ratio = (median(candidate) / median(base)).toFixed(2);
    const name = `${workload.transport}, ${workload.inFlight} in flight`;
    lines.push(`| ${name} | ${spread(base)} | ${spread(candidate)} | ${ratio} | ${speeds[0]} | ${speeds[1]} |`);
    process.stderr.write(`${name}: ${ratio}\n`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--measure') {
    const measured = await measure(args[1]!, WORKLOADS[Number(args[2])]!);
    process.stdout.write(JSON.stringify(measured));
    process.exit(0);
  }
  const rounds = Number(args.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 6);
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const dirs = args.filter((a) => !a.startsWith('--'));
  if (dirs.length < 1 || dirs.length > 2 || !Number.isInteger(rounds) || rounds < 1)
    throw new Error('usage: compare-builds <baseline checkout> [candidate checkout] [--rounds=N]');
  const builds = [resolve(dirs[0]!), resolve(dirs[1] ?? '.')] as const;
  for (const build of builds)
    if (!existsSync(join(build, 'dist/lib/index.js')))
      throw new Error(`${build} has no dist/lib/index.js: build it with npm run build:bench`);
  compare(builds, rounds, only);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
