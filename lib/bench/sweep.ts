/**
 * A concurrency sweep: the same targets under closed loops of growing concurrency, one run of the
 * engine per level, merged into one report whose rows are `<target> ×<concurrency>`, with each
 * target's knee: the concurrency past which more calls in flight no longer buy throughput.
 */
import { concatMap, defer, filter, from, map } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import { runBench } from './engine';
import type { BenchEvent, BenchOptions } from './engine';
import type { BenchReport, TargetResult } from './report';

/** A target's throughput at one concurrency. */
export interface SweepPoint {
  readonly concurrency: number;
  readonly perSecond: number;
}

/**
 * The knee of a sweep: the last concurrency whose step up from the one before gained at least
 * `gain` (default 10 %) of throughput per doubling of the calls in flight, when a later step
 * gained less; undefined while every step still gains (no knee within the sweep).
 */
export function kneeOf(points: readonly SweepPoint[], gain = 0.1): number | undefined {
  const sorted = [...points].sort((a, b) => a.concurrency - b.concurrency);
  for (let i = 1; i < sorted.length; i++) {
    const [before, after] = [sorted[i - 1]!, sorted[i]!];
    const doublings = Math.log2(after.concurrency / before.concurrency);
    const perDoubling = (after.perSecond / before.perSecond) ** (1 / doublings) - 1;
    if (!(perDoubling >= gain)) return before.concurrency;
  }
  return undefined;
}

/** The reports of each level, as one: rows `<target> ×<concurrency>`, and each target's knee. */
export function mergeSweep(levels: ReadonlyArray<{ concurrency: number; report: BenchReport }>): BenchReport {
  const first = levels[0]!.report;
  const targets: TargetResult[] = levels.flatMap(({ concurrency, report }) =>
    report.targets.map((t) => ({ ...t, name: `${t.name} ×${concurrency}` })),
  );
  const knees: Record<string, number | null> = {};
  for (const t of first.targets) {
    const points = levels.map(({ concurrency, report }) => ({
      concurrency,
      perSecond: report.targets.find((r) => r.name === t.name)!.summary.perSecond.median,
    }));
    knees[t.name] = kneeOf(points) ?? null;
  }
  return {
    ...first,
    durationMs: levels.reduce((sum, l) => sum + l.report.durationMs, 0),
    loadAvgEnd: levels.at(-1)!.report.loadAvgEnd,
    settings: { ...first.settings, load: `closed loops of ${levels.map((l) => l.concurrency).join(', ')} in flight` },
    targets,
    knees,
  };
}

/**
 * Runs the engine once per concurrency (closed loops), in order; emits every level's events but
 * its report, then the merged report. Cold; unsubscribing stops the level under way.
 */
export function runSweep(
  options: Omit<BenchOptions, 'load'>,
  concurrencies: readonly number[],
): Observable<BenchEvent> {
  return defer(() => {
    const levels: Array<{ concurrency: number; report: BenchReport }> = [];
    const runs = concurrencies.map((concurrency) =>
      runBench({ ...options, load: { kind: 'closed', concurrency } }).pipe(
        filter((event) => {
          if (event.type !== 'report') return true;
          levels.push({ concurrency, report: event.report });
          return false;
        }),
      ),
    );
    const merged = defer(() => from([levels])).pipe(
      map((all): BenchEvent => ({ type: 'report', report: mergeSweep(all) })),
    );
    return from([...runs, merged]).pipe(concatMap((run$) => run$));
  });
}
