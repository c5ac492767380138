/**
 * The report as a terminal table: a row per target, each figure its median [min – max] across the
 * repetitions, then the notes (a target too noisy to quote, a warm-up that did not settle, errors).
 */
import type { BenchReport, Spread, TargetResult } from './report';

/** A number for people: thousands grouped, fewer decimals as it grows. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (value === 0) return '0';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `median [min – max]`, or the median alone when there was one repetition. */
export function formatSpread(spread: Spread): string {
  if (!Number.isFinite(spread.median)) return '–';
  if (spread.min === spread.max) return formatNumber(spread.median);
  return `${formatNumber(spread.median)} [${formatNumber(spread.min)} – ${formatNumber(spread.max)}]`;
}

const COLUMNS: ReadonlyArray<[string, (t: TargetResult) => string]> = [
  ['target', (t) => t.name],
  ['calls/s', (t) => formatSpread(t.summary.perSecond)],
  ['p50 ms', (t) => formatSpread(t.summary.p50Ms)],
  ['p90 ms', (t) => formatSpread(t.summary.p90Ms)],
  ['p99 ms', (t) => formatSpread(t.summary.p99Ms)],
  ['p99.9 ms', (t) => formatSpread(t.summary.p999Ms)],
  ['max ms', (t) => formatSpread(t.summary.maxMs)],
  ['cold p50 ms', (t) => formatSpread(t.summary.coldP50Ms)],
  ['errors', (t) => String(Object.values(t.summary.errors).reduce((a, b) => a + b, 0))],
  [
    'server CPU ms/call, RSS MiB',
    (t) =>
      t.summary.cpuMsPerCall && t.summary.rssMiB
        ? `${formatSpread(t.summary.cpuMsPerCall)}, ${formatSpread(t.summary.rssMiB)}`
        : '–',
  ],
];

/** The load average triple as `0.52 0.61 0.70`. */
const loads = (values: readonly number[]) => values.map((v) => v.toFixed(2)).join(' ');

/** The whole report as text for a terminal (no colours), ending with a newline. */
export function formatTable(report: BenchReport): string {
  const { settings } = report;
  const rows = [COLUMNS.map(([title]) => title), ...report.targets.map((t) => COLUMNS.map(([, cell]) => cell(t)))];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  const head = [
    `${settings.workload}, ${settings.load}: ${settings.reps} repetition${settings.reps === 1 ? '' : 's'} of ${settings.durationMs / 1000} s per target, interleaved`,
    `${report.machine}; load average ${loads(report.loadAvgStart)} at the start, ${loads(report.loadAvgEnd)} at the end`,
  ];
  const notes = report.targets.flatMap((t) => {
    const out: string[] = [];
    if (t.summary.rssPerSessionKiB)
      out.push(
        `${t.name}: the server's memory grew ${formatSpread(t.summary.rssPerSessionKiB)} KiB per session opened`,
      );
    if (t.summary.noisy) out.push(`${t.name}: not for quoting: ${t.summary.noisy}`);
    const errors = Object.entries(t.summary.errors);
    if (errors.length > 0)
      out.push(`${t.name}: errors by code: ${errors.map(([code, n]) => `${code} ×${n}`).join(', ')}`);
    const warm = t.reps.map(
      (r) => `${formatNumber(r.warmUp.durationMs / 1000)} s${r.warmUp.settled ? '' : ' (not settled)'}`,
    );
    out.push(
      `${t.name}: warm-up ${warm.join(', ')}; cold: first ${t.reps[0]?.cold.calls ?? 0} calls of each connection`,
    );
    return out;
  });
  const knees = Object.entries(report.knees ?? {}).map(([name, knee]) =>
    knee === null
      ? `${name}: throughput still grew at the last concurrency: no knee within the sweep`
      : `${name}: the knee is at ${knee} in flight (more calls in flight gain less than 10 % per doubling)`,
  );
  return `${[...head, '', ...lines, '', ...knees, ...notes].join('\n')}\n`;
}
