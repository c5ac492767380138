/** Turns a benchmark run into a markdown report and an SVG chart of the ratios. */
import type { Spread } from './stats';

export interface Measurement {
  readonly workload: string; // calls | large | memory | fanout | load | proxy | cluster
  readonly transport: string;
  readonly shape: string; // calls in flight, 'idle', the number of clients, or the role loaded
  readonly implementation: string;
  /** Calls, results or deliveries per second; bytes per session for the memory workload. */
  readonly perSecond: Spread;
  /** For the load workload: milliseconds to load the role's modules in a fresh process. */
  readonly p50Ms: Spread;
  readonly p99Ms: Spread;
}

export interface RunReport {
  readonly date: string;
  readonly quick: boolean;
  readonly machine: string;
  readonly settings: Record<string, number>;
  readonly measurements: readonly Measurement[];
}

/** One comparison of rxmcp against the official SDK, with its target. */
export interface Ratio {
  readonly label: string;
  readonly value: number;
  readonly floorValue?: number;
  /**
   * The floor's own ratio to the official SDK (floor / official): how far past the official SDK a
   * client and server doing nothing but JSON-RPC get on this workload in this run.
   */
  readonly floorOverOfficial?: number;
  /**
   * Whether the floor is a limit here: for small calls over a transport. In memory the SDKs hand
   * objects over without serializing, and on 1 MB messages the floor is slower than either SDK (its
   * line reading is the simplest there is: a string grown chunk by chunk and searched again each time).
   */
  readonly floorIsLimit: boolean;
  readonly target: number;
  /** 'min' when the ratio must be at least the target, 'max' when at most. */
  readonly kind: 'min' | 'max';
  readonly met: boolean;
  /**
   * Not met, and the floor itself does not reach the target: the target is out of reach here.
   * Only where the floor is a limit (`floorIsLimit`).
   */
  readonly bounded: boolean;
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';

function find(report: RunReport, workload: string, transport: string, shape: string, implementation: string) {
  return report.measurements.find(
    (m) =>
      m.workload === workload && m.transport === transport && m.shape === shape && m.implementation === implementation,
  );
}

function groups(report: RunReport): Array<{ workload: string; transport: string; shape: string }> {
  const seen = new Map<string, { workload: string; transport: string; shape: string }>();
  for (const m of report.measurements) seen.set(`${m.workload}|${m.transport}|${m.shape}`, m);
  return [...seen.values()];
}

function describe(group: { workload: string; transport: string; shape: string }): string {
  switch (group.workload) {
    case 'calls':
      return `tools/call, ${group.transport}, ${group.shape === '1' ? 'sequential' : `${group.shape} in flight`}`;
    case 'large':
      return `1 MB result, ${group.transport}`;
    case 'memory':
      return group.shape === 'per-request' ? 'memory kept per stateless request' : 'memory per idle session';
    case 'load':
      return `load time, ${group.shape === 'stdio-server' ? 'stdio server' : 'Streamable HTTP client'}`;
    case 'proxy':
      return `tools/call through a proxy / direct, ${group.transport === 'in-memory' ? 'in memory' : 'stdio to HTTP'}, ${group.shape === '1' ? 'sequential' : `${group.shape} in flight`}`;
    case 'cluster':
      return group.shape === '1'
        ? 'tools/call on a cluster, sequential: sent to the session owner / forwarded by another process'
        : `tools/call on a cluster of 1, 2, 3 processes on Redis, ${group.shape} in flight over 8 sessions`;
    default:
      return `fan-out to ${group.shape} clients`;
  }
}

/**
 * The ratios the targets are stated in (benchmarks issue: throughput ≥ 2×, p99 ≤ ½, memory ≤ ⅓,
 * fan-out ≥ 5×; newcomer issue: load time ≤ 1×; composition issue: a proxied call ≥ 0.7 of direct).
 */
export function ratios(report: RunReport): Ratio[] {
  const out: Ratio[] = [];
  for (const group of groups(report)) {
    // The official SDK v2 is a second peer where it was measured: calls, throughput ≥ 2×, p99 ≤ ½.
    const ours2 = find(report, group.workload, group.transport, group.shape, 'rxmcp');
    const v2 = find(report, group.workload, group.transport, group.shape, 'official-v2');
    if (ours2 && v2 && group.workload === 'calls') {
      const label = `${describe(group)} (vs SDK v2)`;
      const throughput = ours2.perSecond.median / v2.perSecond.median;
      const p99 = ours2.p99Ms.median / v2.p99Ms.median;
      out.push({
        label: `${label}: throughput`,
        value: throughput,
        target: 2,
        kind: 'min',
        floorIsLimit: false,
        met: throughput >= 2,
        bounded: false,
      });
      out.push({
        label: `${label}: p99 latency`,
        value: p99,
        target: 0.5,
        kind: 'max',
        floorIsLimit: false,
        met: p99 <= 0.5,
        bounded: false,
      });
    }
    if (group.workload === 'proxy') {
      // Composition issue: a call through the proxy keeps at least 0.7 of the direct call's throughput.
      const proxied = find(report, group.workload, group.transport, group.shape, 'proxied');
      const direct = find(report, group.workload, group.transport, group.shape, 'direct');
      if (!proxied || !direct) continue;
      const value = proxied.perSecond.median / direct.perSecond.median;
      out.push({
        label: `${describe(group)}: throughput`,
        value,
        target: 0.7,
        kind: 'min',
        floorIsLimit: false,
        met: value >= 0.7,
        bounded: false,
      });
      continue;
    }
    const ours = find(report, group.workload, group.transport, group.shape, 'rxmcp');
    const theirs = find(report, group.workload, group.transport, group.shape, 'official');
    const bare = find(report, group.workload, group.transport, group.shape, 'floor');
    if (!ours || !theirs) continue;
    const label = describe(group);
    const floorIsLimit = group.workload === 'calls' && group.transport !== 'in-memory';
    const push = (
      suffix: string,
      value: number,
      target: number,
      kind: 'min' | 'max',
      floorValue?: number,
      floorOverOfficial?: number,
    ) => {
      const reaches = (v: number) => (kind === 'min' ? v >= target : v <= target);
      const met = reaches(value);
      const bounded = !met && floorIsLimit && floorOverOfficial !== undefined && !reaches(floorOverOfficial);
      out.push({
        label: `${label}${suffix}`,
        value,
        target,
        kind,
        floorValue,
        floorOverOfficial,
        floorIsLimit,
        met,
        bounded,
      });
    };
    const throughput = (target: number) =>
      push(
        ': throughput',
        ours.perSecond.median / theirs.perSecond.median,
        target,
        'min',
        bare && ours.perSecond.median / bare.perSecond.median,
        bare && bare.perSecond.median / theirs.perSecond.median,
      );
    if (group.workload === 'calls') {
      throughput(2);
      push(
        ': p99 latency',
        ours.p99Ms.median / theirs.p99Ms.median,
        0.5,
        'max',
        bare && ours.p99Ms.median / bare.p99Ms.median,
        bare && bare.p99Ms.median / theirs.p99Ms.median,
      );
    } else if (group.workload === 'large') {
      throughput(1);
    } else if (group.workload === 'load') {
      push('', ours.p50Ms.median / theirs.p50Ms.median, 1, 'max');
    } else if (group.workload === 'memory') {
      push('', ours.perSecond.median / theirs.perSecond.median, 1 / 3, 'max');
    } else {
      push(': deliveries per second', ours.perSecond.median / theirs.perSecond.median, 5, 'min');
    }
  }
  return out;
}

export function renderReport(report: RunReport): string {
  const lines: string[] = [];
  lines.push(`# rxmcp benchmarks${report.quick ? ' (quick run: indicative only)' : ''}`, '');
  lines.push(`Run ${report.date} on ${report.machine}.`);
  lines.push(
    `Settings: ${Object.entries(report.settings)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
  );
  lines.push(
    '## Ratios',
    '',
    'The floor is newline-delimited JSON-RPC with nothing but `JSON.parse`, `JSON.stringify` and a map of',
    'pending ids. Where it does not reach a target itself (floor / official), no SDK doing the same',
    'work over the same transport can: such a row says "bounded by the floor". That holds for the',
    '`tools/call` rows over stdio. In memory the SDKs hand objects over without serializing them while',
    'the floor still stringifies and parses, and on 1 MB messages the floor is slower than either SDK',
    '(its line reading is a string grown chunk by chunk and searched again each time): there it is a',
    'reference rather than a limit.',
    '',
    '| workload | rxmcp / official | target | met | rxmcp / floor | floor / official |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  const optional = (n: number | undefined) =>
    n === undefined ? '–' : n !== 0 && Math.abs(n) < 0.01 ? n.toPrecision(2) : fmt(n, 2);
  for (const r of ratios(report)) {
    const target = `${r.kind === 'min' ? '≥' : '≤'} ${fmt(r.target, 2)}`;
    const met = r.met ? 'yes' : r.bounded ? '**no**, bounded by the floor' : '**no**';
    lines.push(
      `| ${r.label} | ${fmt(r.value, 2)} | ${target} | ${met} | ${optional(r.floorValue)} | ${optional(r.floorOverOfficial)} |`,
    );
  }
  lines.push('', '## Measurements (median of the repetitions, [min – max])', '');
  lines.push('| workload | implementation | per second | p50 ms | p99 ms |', '| --- | --- | --- | --- | --- |');
  for (const group of groups(report)) {
    for (const implementation of [
      ...['rxmcp', 'official', 'official-v2', 'floor', 'direct', 'proxied'],
      ...['1 process', '2 processes', '3 processes', 'owner', 'forwarded'],
    ]) {
      const m = find(report, group.workload, group.transport, group.shape, implementation);
      if (!m) continue;
      const unit = group.shape === 'per-request' ? 'request' : 'session';
      const value =
        group.workload === 'load'
          ? `${fmt(m.p50Ms.median, 1)} ms to load [${fmt(m.p50Ms.min, 1)} – ${fmt(m.p50Ms.max, 1)}]`
          : group.workload === 'memory'
            ? `${fmt(m.perSecond.median / 1024, 1)} KiB/${unit} [${fmt(m.perSecond.min / 1024, 1)} – ${fmt(m.perSecond.max / 1024, 1)}]`
            : `${fmt(m.perSecond.median)} [${fmt(m.perSecond.min)} – ${fmt(m.perSecond.max)}]`;
      lines.push(
        `| ${describe(group)} | ${implementation} | ${value} | ${fmt(m.p50Ms.median, 3)} | ${fmt(m.p99Ms.median, 3)} |`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}

/** A horizontal bar chart of rxmcp / official, one bar per ratio, with the target marked. */
export function renderChart(report: RunReport): string {
  const rows = ratios(report);
  const rowHeight = 26;
  const labelWidth = 380;
  const barWidth = 420;
  const width = labelWidth + barWidth + 80;
  const height = 50 + rows.length * rowHeight;
  // Ratios where lower is better are drawn inverted (official / rxmcp), so longer is always better.
  const better = (r: Ratio, value: number) => (r.kind === 'min' ? value : 1 / value);
  const shown = rows.map((r) => ({
    ...r,
    better: better(r, r.value),
    goal: better(r, r.target),
    floorMark: r.floorOverOfficial === undefined || !r.floorIsLimit ? undefined : better(r, r.floorOverOfficial),
  }));
  const max = Math.max(6, ...shown.map((r) => Math.min(r.better, 12)), ...shown.map((r) => r.goal));
  const x = (v: number) => labelWidth + (Math.min(v, max) / max) * barWidth;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">rxmcp advantage over the official SDK (× better; black mark = target, grey = the floor's)</text>`,
    `<line x1="${x(1)}" y1="30" x2="${x(1)}" y2="${height - 10}" stroke="#999" stroke-dasharray="3,3"/>`,
  ];
  shown.forEach((r, i) => {
    const y = 40 + i * rowHeight;
    parts.push(`<text x="10" y="${y + 14}">${esc(r.label)}</text>`);
    // Green: met; amber: missed where the floor misses too; red: missed.
    const fill = r.met ? '#3a7' : r.bounded ? '#e9a23b' : '#d54';
    parts.push(`<rect x="${labelWidth}" y="${y}" width="${x(r.better) - labelWidth}" height="18" fill="${fill}"/>`);
    if (r.floorMark !== undefined) {
      parts.push(
        `<line x1="${x(r.floorMark)}" y1="${y - 2}" x2="${x(r.floorMark)}" y2="${y + 20}" stroke="#888" stroke-width="2"/>`,
      );
    }
    parts.push(
      `<line x1="${x(r.goal)}" y1="${y - 2}" x2="${x(r.goal)}" y2="${y + 20}" stroke="black" stroke-width="2"/>`,
    );
    parts.push(`<text x="${x(r.better) + 6}" y="${y + 14}">${fmt(r.better, 2)}×</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
