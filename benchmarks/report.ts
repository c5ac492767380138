/** Turns a benchmark run into a markdown report and an SVG chart of the ratios. */
import type { Spread } from './stats';

export interface Measurement {
  readonly workload: string; // calls | large | memory | fanout
  readonly transport: string;
  readonly shape: string; // calls in flight, 'idle', or the number of clients
  readonly implementation: string;
  /** Calls, results or deliveries per second; bytes per session for the memory workload. */
  readonly perSecond: Spread;
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
  readonly target: number;
  /** 'min' when the ratio must be at least the target, 'max' when at most. */
  readonly kind: 'min' | 'max';
  readonly met: boolean;
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '–';

function find(report: RunReport, workload: string, transport: string, shape: string, implementation: string) {
  return report.measurements.find(
    (m) => m.workload === workload && m.transport === transport && m.shape === shape && m.implementation === implementation,
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
      return 'memory per idle session';
    default:
      return `fan-out to ${group.shape} clients`;
  }
}

/** The ratios the targets are stated in (benchmarks issue: throughput ≥ 2×, p99 ≤ ½, memory ≤ ⅓, fan-out ≥ 5×). */
export function ratios(report: RunReport): Ratio[] {
  const out: Ratio[] = [];
  for (const group of groups(report)) {
    const ours = find(report, group.workload, group.transport, group.shape, 'rxmcp');
    const theirs = find(report, group.workload, group.transport, group.shape, 'official');
    const bare = find(report, group.workload, group.transport, group.shape, 'floor');
    if (!ours || !theirs) continue;
    const label = describe(group);
    const push = (suffix: string, value: number, target: number, kind: 'min' | 'max', floorValue?: number) =>
      out.push({ label: `${label}${suffix}`, value, target, kind, floorValue, met: kind === 'min' ? value >= target : value <= target });
    if (group.workload === 'calls') {
      push(': throughput', ours.perSecond.median / theirs.perSecond.median, 2, 'min', bare && ours.perSecond.median / bare.perSecond.median);
      push(': p99 latency', ours.p99Ms.median / theirs.p99Ms.median, 0.5, 'max', bare && ours.p99Ms.median / bare.p99Ms.median);
    } else if (group.workload === 'large') {
      push(': throughput', ours.perSecond.median / theirs.perSecond.median, 1, 'min', bare && ours.perSecond.median / bare.perSecond.median);
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
  lines.push(`Settings: ${Object.entries(report.settings).map(([k, v]) => `${k} ${v}`).join(', ')}.`, '');
  lines.push('## Ratios', '', '| workload | rxmcp / official | target | met | rxmcp / floor |', '| --- | --- | --- | --- | --- |');
  for (const r of ratios(report)) {
    const target = `${r.kind === 'min' ? '≥' : '≤'} ${fmt(r.target, 2)}`;
    lines.push(`| ${r.label} | ${fmt(r.value, 2)} | ${target} | ${r.met ? 'yes' : '**no**'} | ${r.floorValue === undefined ? '–' : fmt(r.floorValue, 2)} |`);
  }
  lines.push('', '## Measurements (median of the repetitions, [min – max])', '');
  lines.push('| workload | implementation | per second | p50 ms | p99 ms |', '| --- | --- | --- | --- | --- |');
  for (const group of groups(report)) {
    for (const implementation of ['rxmcp', 'official', 'floor']) {
      const m = find(report, group.workload, group.transport, group.shape, implementation);
      if (!m) continue;
      const value =
        group.workload === 'memory'
          ? `${fmt(m.perSecond.median / 1024, 1)} KiB/session [${fmt(m.perSecond.min / 1024, 1)} – ${fmt(m.perSecond.max / 1024, 1)}]`
          : `${fmt(m.perSecond.median)} [${fmt(m.perSecond.min)} – ${fmt(m.perSecond.max)}]`;
      lines.push(`| ${describe(group)} | ${implementation} | ${value} | ${fmt(m.p50Ms.median, 3)} | ${fmt(m.p99Ms.median, 3)} |`);
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
  const shown = rows.map((r) => ({ ...r, better: r.kind === 'min' ? r.value : 1 / r.value, goal: r.kind === 'min' ? r.target : 1 / r.target }));
  const max = Math.max(6, ...shown.map((r) => Math.min(r.better, 12)), ...shown.map((r) => r.goal));
  const x = (v: number) => labelWidth + (Math.min(v, max) / max) * barWidth;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">rxmcp advantage over the official SDK (× better; mark = target)</text>`,
    `<line x1="${x(1)}" y1="30" x2="${x(1)}" y2="${height - 10}" stroke="#999" stroke-dasharray="3,3"/>`,
  ];
  shown.forEach((r, i) => {
    const y = 40 + i * rowHeight;
    parts.push(`<text x="10" y="${y + 14}">${esc(r.label)}</text>`);
    parts.push(`<rect x="${labelWidth}" y="${y}" width="${x(r.better) - labelWidth}" height="18" fill="${r.met ? '#3a7' : '#d54'}"/>`);
    parts.push(`<line x1="${x(r.goal)}" y1="${y - 2}" x2="${x(r.goal)}" y2="${y + 20}" stroke="black" stroke-width="2"/>`);
    parts.push(`<text x="${x(r.better) + 6}" y="${y + 14}">${fmt(r.better, 2)}×</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
