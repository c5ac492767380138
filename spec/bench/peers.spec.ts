import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { asyncScheduler, firstValueFrom, lastValueFrom } from 'rxjs';
import { collectPhase, closedLoop, runBench, spreadOf, transportTarget } from '../../lib/entries/bench';
import type { BenchReport, BenchTarget } from '../../lib/entries/bench';
import { connect } from '../../lib/client/client';
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import { timeCalls } from '../../benchmarks/timing';
import { bundlePrograms, ROOT } from './programs';

// rxmcp/bench against real peers, each a server process over stdio: the project's benchmark servers
// for rxmcp, the official SDK 1.32 and v2, the official server-everything, and an rxmcp gateway
// (rxmcp proxy) in front of the three. And its figures agree with the project's own
// benchmark's way of timing calls (benchmarks/timing.ts) on the same connection.

const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let programs: Record<string, string>;
let dir: string;

beforeAll(async () => {
  programs = await bundlePrograms([
    'benchmarks/servers/rxmcp-server.ts',
    'benchmarks/servers/official-server.ts',
    'benchmarks/servers/official-v2-server.ts',
    'lib/cli/rxmcp.ts',
  ]);
  dir = dirname(programs['rxmcp']!);
  writeFileSync(
    join(dir, 'servers.json'),
    JSON.stringify({
      mcpServers: {
        bench: { command: process.execPath, args: [programs['rxmcp-server']!] },
        sdk: { command: process.execPath, args: [programs['official-server']!] },
        v2: { command: process.execPath, args: [programs['official-v2-server']!] },
      },
    }),
  );
}, 30_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stdio = (name: string, command: string, args: string[]): BenchTarget =>
  transportTarget({
    name,
    how: `stdio: ${[command, ...args].join(' ')}`,
    transport: () => createStdioClientTransport({ command, args, stderr: 'ignore' }),
    client: { name: 'bench-spec', version: '1.0.0', protocolVersion: '2025-11-25' },
  });

const SHORT = { reps: 1, durationMs: 300, coldCalls: 10, warmUp: { windowMs: 100, maxMs: 400 } } as const;

async function report(targets: BenchTarget[], tool: string, args: Record<string, unknown>): Promise<BenchReport> {
  const last = await lastValueFrom(
    runBench({
      ...SHORT,
      targets,
      workload: { kind: 'tool', name: tool, arguments: args },
      load: { kind: 'closed', concurrency: 4 },
    }),
  );
  if (last.type !== 'report') throw new Error('no report');
  return last.report;
}

describe('rxmcp/bench against peers over stdio', () => {
  it('measures rxmcp, SDK 1.32 and SDK v2 side by side, with their CPU time and memory', async () => {
    const node = process.execPath;
    const { targets } = await report(
      [
        stdio('rxmcp', node, [programs['rxmcp-server']!]),
        stdio('sdk-1.32', node, [programs['official-server']!]),
        stdio('sdk-v2', node, [programs['official-v2-server']!]),
      ],
      'echo',
      { text: 'hello' },
    );
    expect(targets.map((t) => t.name)).toEqual(['rxmcp', 'sdk-1.32', 'sdk-v2']);
    for (const t of targets) {
      expect(t.served.tools).toEqual(expect.arrayContaining(['echo', 'large']));
      expect(t.summary.errors).toEqual({});
      expect(t.summary.calls).toBeGreaterThan(50);
      expect(t.summary.cpuMsPerCall!.median).toBeGreaterThan(0);
      expect(t.summary.rssMiB!.median).toBeGreaterThan(10);
    }
  }, 30_000);

  it('measures server-everything, and an rxmcp gateway in front of rxmcp, SDK 1.32 and SDK v2', async () => {
    const node = process.execPath;
    const config = join(dir, 'servers.json');
    const everything = await report([stdio('everything', node, [EVERYTHING, 'stdio'])], 'echo', { message: 'hi' });
    expect(everything.targets[0]!.summary.calls).toBeGreaterThan(50);
    expect(everything.targets[0]!.summary.errors).toEqual({});
    // The gateway in front of all three: a mix of calls to each through it.
    const echo = (name: string) => ({
      weight: 1,
      operation: { kind: 'tool' as const, name, arguments: { text: 'hi' } },
    });
    const last = await lastValueFrom(
      runBench({
        ...SHORT,
        targets: [stdio('gateway', node, [programs['rxmcp']!, 'proxy', '--config', config])],
        workload: { kind: 'mix', entries: [echo('bench_echo'), echo('sdk_echo'), echo('v2_echo')] },
        load: { kind: 'closed', concurrency: 4 },
      }),
    );
    if (last.type !== 'report') throw new Error('no report');
    const [gateway] = last.report.targets;
    expect(gateway!.served.tools).toEqual(expect.arrayContaining(['bench_echo', 'sdk_echo', 'v2_echo']));
    expect(gateway!.summary.calls).toBeGreaterThan(50);
    expect(gateway!.summary.errors).toEqual({});
  }, 30_000);

  it("agrees with the project's benchmark timing on the same connection, within their spread", async () => {
    const client = await connect(
      createStdioClientTransport({ command: process.execPath, args: [programs['official-server']!], stderr: 'ignore' }),
      { name: 'bench-spec', version: '1.0.0', protocolVersion: '2025-11-25' },
    );
    try {
      const call = () => client.promises.callTool('echo', { text: 'hello' });
      await timeCalls(500, 300, 4, call);
      const engine: number[] = [];
      const project: number[] = [];
      // Alternating rounds, so that the machine's moods fall on both alike.
      for (let round = 0; round < 5; round++) {
        const phase = await firstValueFrom(
          collectPhase(closedLoop({ call, concurrency: 4, durationMs: 250, timeoutMs: 5000 }), {
            scheduler: asyncScheduler,
          }),
        );
        engine.push(phase.perSecond);
        project.push((await timeCalls(0, 250, 4, call, 250)).perSecond);
      }
      const [ours, theirs] = [spreadOf(engine), spreadOf(project)];
      // Each median lies within the other's range widened by a fifth: the same figure, measured twice.
      expect(ours.median).toBeGreaterThan(theirs.min * 0.8);
      expect(ours.median).toBeLessThan(theirs.max * 1.2);
    } finally {
      client.close();
    }
  }, 30_000);
});
