/** Turns pooled benchmark runs into a markdown report (the SVG chart is in chart.ts). */
import { describe, find, fmt, groups, QUICK_NOTICE, SERIES } from './report-model';
import type { Measurement, RunReport } from './report-model';
import type { RunInfo } from './samples';
import type { Spread } from './stats';
import { targets } from './targets';
import type { Target } from './targets';

export { renderChart } from './chart';
export type { Measurement, RunReport } from './report-model';

/** How long a full `npm run bench` (three runs) takes on two cores (estimated: see bench.ts). */
export const FULL_BENCH_ESTIMATE = 'about 45 minutes (three runs of about 15)';

const range = (s: Spread, scale = 1, digits = 0) =>
  `${fmt(s.median / scale, digits)} [${fmt(s.min / scale, digits)} – ${fmt(s.max / scale, digits)}]`;

function header(report: RunReport): string[] {
  const runs = report.runs.length;
  const lines = [
    `# rxmcp benchmarks${report.quick ? ` (${QUICK_NOTICE})` : report.partial ? ' (partial run)' : ''}`,
    '',
  ];
  if (report.quick)
    lines.push(`**${QUICK_NOTICE}**: short phases and few samples; the figures only show that the workloads run.`, '');
  lines.push(
    `<!-- A full \`npm run bench\` (three runs) takes ${FULL_BENCH_ESTIMATE} on 2 cores; see the run durations below. -->`,
    '',
    `Run ${report.date} on ${report.machine}.`,
    `Settings of each run: ${Object.entries(report.settings)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    runs > 1
      ? `Each figure is the median of ${runs} runs' own medians (each run a fresh process measuring every workload, ` +
          'the implementations interleaved, their order alternating between repetitions and between runs), shown with ' +
          '[min – max] of those run medians.'
      : 'One run: each figure is the median of its repetitions, shown with [min – max] of them (rows measured once have no spread).',
    '',
  );
  return lines;
}

function machineLoad(runs: readonly RunInfo[]): string[] {
  const load = (values: readonly number[]) => values.map((v) => fmt(v, 2)).join(' / ');
  const lines = [
    '## Machine load',
    '',
    '`os.loadavg()` (1 / 5 / 15 minutes) as each run started and ended.',
    '',
    '| run | started | duration | load at start | load at end |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const run of runs) {
    const minutes = `${fmt(run.durationMs / 60_000, 1)} min`;
    lines.push(
      `| ${run.index} | ${run.startedAt} | ${minutes} | ${load(run.loadAvgStart)} | ${load(run.loadAvgEnd)} |`,
    );
  }
  return [...lines, ''];
}

function targetTable(all: readonly Target[]): string[] {
  const lines = [
    '## Targets',
    '',
    'Ratios of the medians. The floor is JSON-RPC with nothing but `JSON.parse`, `JSON.stringify` and a map',
    'of pending ids (over HTTP, a bare `node:http` server answering each POST with one JSON body and a',
    'keep-alive client). "Bounded by the floor": the floor itself is not 2 times that peer over this transport,',
    'so no client and server doing JSON-RPC over it can be. On the proxy rows the floor is a bare relay that',
    'passes each line on: a miss is bounded when the relay keeps less than 0.7 of the direct call too.',
    '',
    '| row | ratio | value | target | met | note |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  const sign = { min: '≥', max: '≤', below: '<' } as const;
  for (const t of all) {
    const met = t.met ? 'yes' : t.bounded ? '**no**, bounded by the floor' : '**no**';
    const value = t.value !== 0 && Math.abs(t.value) < 0.01 ? t.value.toPrecision(2) : fmt(t.value, 2);
    lines.push(
      `| ${t.row} | ${t.measure} | ${value} | ${sign[t.kind]} ${fmt(t.target, 2)} | ${met} | ${t.note ?? ''} |`,
    );
  }
  return [...lines, ''];
}

function callTable(report: RunReport): string[] {
  const rows = groups(report, 'calls', 'scale');
  if (rows.length === 0) return [];
  const lines = [
    '## Calls and concurrent sessions',
    '',
    'Servers run in a child process on every transport but in-memory. Scale rows: n client sessions of one',
    'server process, n calls in flight (one per session).',
    '',
    '| row | implementation | calls per second | p50 ms | p99 ms |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const group of rows) {
    for (const implementation of SERIES) {
      const m = find(report, group, implementation);
      if (!m) continue;
      lines.push(
        `| ${describe(group)} | ${implementation} | ${range(m.perSecond)} | ${range(m.p50Ms, 1, 3)} | ${range(m.p99Ms, 1, 3)} |`,
      );
    }
  }
  return [...lines, ''];
}

/** Cold and steady side by side: what a fresh process does in its first seconds. */
function coldTable(report: RunReport): string[] {
  const rows = groups(report, 'cold-start', 'cold');
  if (rows.length === 0) return [];
  const lines = [
    '## Cold: a fresh process per measurement',
    '',
    'Each measurement is a new client process (cold-client.ts) with a new server (in that process in memory, in',
    'a child process otherwise): the time from spawning it to its first answered `tools/call` (loading,',
    'connecting, the first call), then the throughput of its first 1,000 and first 5,000 calls, one at a time.',
    'The steady rows above measure the same call after thousands of warm-up calls.',
    '',
    '| row | implementation | figure |',
    '| --- | --- | --- |',
  ];
  for (const group of rows) {
    for (const implementation of SERIES) {
      const m = find(report, group, implementation);
      if (!m) continue;
      const value =
        group.workload === 'cold-start' ? `${range(m.p50Ms, 1, 1)} ms` : `${range(m.perSecond)} calls per second`;
      lines.push(`| ${describe(group)} | ${implementation} | ${value} |`);
    }
  }
  return [...lines, ''];
}

function memoryTable(report: RunReport): string[] {
  const figure = (workload: string, shape: string, implementation: string): Measurement | undefined =>
    find(report, { workload, transport: 'in-memory', shape }, implementation);
  const openShape = groups(report, 'open')[0]?.shape;
  const names = SERIES.filter(
    (name) => figure('memory', 'idle-per-client', name) || (openShape && figure('open', openShape, name)),
  );
  if (names.length === 0) return [];
  const lines = [
    '## Memory and connection cost',
    '',
    'Heap, external and array buffer bytes per idle connected session (client and server in one process, in',
    'memory, after garbage collection), one fresh process per measurement; "–" where the implementation cannot',
    'serve many sessions from one server. Idle sessions per GiB: 2^30 / the per-client figure. New sessions',
    `per second: batches of ${openShape ? Number(openShape).toLocaleString('en-US') : 'N'} sessions (a server per client) opened in one process; steady:`,
    'batches six to ten together, once the JIT has compiled the code of a connect; cold: the second batch.',
    '',
    '| implementation | KiB per idle session, a server per client | KiB, one shared server | idle sessions per GiB | new sessions per second, steady | cold |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const name of names) {
    const perClient = figure('memory', 'idle-per-client', name);
    const shared = figure('memory', 'idle-shared', name);
    const opened = openShape ? figure('open', openShape, name) : undefined;
    const cold = openShape ? figure('open-cold', openShape, name) : undefined;
    const perGiB = perClient ? fmt(2 ** 30 / perClient.perSecond.median) : '–';
    lines.push(
      `| ${name} | ${perClient ? range(perClient.perSecond, 1024, 1) : '–'} | ${shared ? range(shared.perSecond, 1024, 1) : '–'} | ${perGiB} | ${opened ? range(opened.perSecond) : '–'} | ${cold ? range(cold.perSecond) : '–'} |`,
    );
  }
  return [...lines, ''];
}

/** What the Rust mcp-proxy publishes as its own hop's latency, for comparison. */
export const RUST_MCP_PROXY_HOP_MICROS = 50;

/**
 * The proxy's own hop in microseconds: on each sequential proxy row, a call's mean time through the
 * proxy (1 / its calls per second) less the direct call's, and the same for the gateway's policed
 * proxy and the bare relay, beside the Rust mcp-proxy's published hop.
 */
function hopTable(report: RunReport): string[] {
  const rows = groups(report, 'proxy').filter((group) => group.shape === '1');
  const micros = (m: Measurement | undefined) => (m === undefined ? undefined : 1e6 / m.perSecond.median);
  const lines: string[] = [];
  for (const group of rows) {
    const direct = micros(find(report, group, 'direct'));
    if (direct === undefined) continue;
    const hop = (name: string) => {
      const through = micros(find(report, group, name));
      return through === undefined ? '–' : `${fmt(through - direct, through - direct < 10 ? 2 : 1)} µs`;
    };
    lines.push(
      `| ${group.transport === 'in-memory' ? 'in memory' : 'from stdio to HTTP'} | ${fmt(direct, direct < 10 ? 2 : 1)} µs | ${hop('proxied')} | ${hop('policed')} | ${hop('relay')} |`,
    );
  }
  if (lines.length === 0) return [];
  return [
    "## The proxy's hop",
    '',
    'What a proxy adds to one call, one at a time: the mean time of a call through it (1 / calls per second)',
    "less the direct call's. From stdio to HTTP the hop includes a third process (the benchmark's client talks",
    'stdio to the proxy process); the bare relay, which passes each line on and does nothing else, is that',
    `hop's floor. The Rust mcp-proxy publishes ${RUST_MCP_PROXY_HOP_MICROS} µs for its own hop.`,
    '',
    '| where | direct call | added by `proxy()` | by the policed proxy | by the bare relay |',
    '| --- | --- | --- | --- | --- |',
    ...lines,
    '',
  ];
}

function otherTable(report: RunReport): string[] {
  const rows = groups(report).filter(
    (g) =>
      !['calls', 'scale', 'cold', 'cold-start', 'open', 'open-cold'].includes(g.workload) &&
      !(g.workload === 'memory' && g.shape !== 'per-request'),
  );
  if (rows.length === 0) return [];
  const lines = [
    '## Other workloads',
    '',
    '| row | series | figure | p50 ms | p99 ms |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const group of rows) {
    for (const implementation of SERIES) {
      const m = find(report, group, implementation);
      if (!m) continue;
      const value =
        group.workload === 'load'
          ? `${range(m.p50Ms, 1, 1)} ms to load`
          : group.workload === 'memory'
            ? `${range(m.perSecond, 1024, 2)} KiB per request`
            : `${range(m.perSecond)} per second`;
      const latency = group.workload === 'load' ? ['–', '–'] : [fmt(m.p50Ms.median, 3), fmt(m.p99Ms.median, 3)];
      lines.push(`| ${describe(group)} | ${implementation} | ${value} | ${latency.join(' | ')} |`);
    }
  }
  return [...lines, ''];
}

export function renderReport(report: RunReport): string {
  return [
    ...header(report),
    ...machineLoad(report.runs),
    ...targetTable(targets(report)),
    ...callTable(report),
    ...coldTable(report),
    ...memoryTable(report),
    ...hopTable(report),
    ...otherTable(report),
  ].join('\n');
}
