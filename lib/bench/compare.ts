/**
 * `rxmcp bench --compare baseline.json`: which figures of a run are worse than a baseline run's,
 * beyond what either measured as its spread. A figure is worse when the two runs' ranges
 * ([min – max] across repetitions) do not overlap and the new one lies on the worse side: a change
 * smaller than the noise both runs showed is no regression.
 */
import type { BenchReport, Spread, TargetSummary } from './report';
import { formatSpread } from './table';

/** The figures compared, and which way is better. */
const FIGURES: ReadonlyArray<{ key: keyof TargetSummary; label: string; higherIsBetter: boolean }> = [
  { key: 'perSecond', label: 'calls/s', higherIsBetter: true },
  { key: 'p50Ms', label: 'p50 ms', higherIsBetter: false },
  { key: 'p99Ms', label: 'p99 ms', higherIsBetter: false },
];

function worse(baseline: Spread, current: Spread, higherIsBetter: boolean): boolean {
  if (![baseline.min, baseline.max, current.min, current.max].every(Number.isFinite)) return false;
  return higherIsBetter ? current.max < baseline.min : current.min > baseline.max;
}

const errorRate = (summary: TargetSummary) =>
  Object.values(summary.errors).reduce((a, b) => a + b, 0) / Math.max(1, summary.calls);

/**
 * One line per figure of `current` worse than `baseline`'s (targets matched by name), naming the
 * target, the figure and both spreads; a target of the baseline the run lacks is a line too. Empty
 * when nothing is worse.
 */
export function compareReports(baseline: BenchReport, current: BenchReport): string[] {
  const lines: string[] = [];
  if (baseline.format !== 'rxmcp-bench/1')
    return [`the baseline is not an rxmcp bench report (format ${String(baseline.format)})`];
  if (baseline.settings.workload !== current.settings.workload || baseline.settings.load !== current.settings.load)
    lines.push(
      `the baseline measured ${baseline.settings.workload}, ${baseline.settings.load}; this run ${current.settings.workload}, ${current.settings.load}`,
    );
  for (const before of baseline.targets) {
    const now = current.targets.find((t) => t.name === before.name);
    if (!now) {
      lines.push(`${before.name}: in the baseline, not in this run`);
      continue;
    }
    for (const { key, label, higherIsBetter } of FIGURES) {
      const b = before.summary[key] as Spread;
      const c = now.summary[key] as Spread;
      if (worse(b, c, higherIsBetter))
        lines.push(`${before.name}: ${label} ${formatSpread(c)} is worse than the baseline's ${formatSpread(b)}`);
    }
    const [rb, rc] = [errorRate(before.summary), errorRate(now.summary)];
    if (rc > rb * 2 && rc - rb > 0.001)
      lines.push(
        `${before.name}: ${(rc * 100).toFixed(2)} % of calls failed, against ${(rb * 100).toFixed(2)} % in the baseline`,
      );
  }
  return lines;
}
