/** Where runs and reports are written, and the writing of a report from pooled runs. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderChart, renderReport } from './report';
import { QUICK_NOTICE } from './report-model';
import type { RunReport } from './report-model';
import { pool } from './samples';
import type { RawRun } from './samples';

/** The published figures need this many full runs at least. */
export const PUBLISHED_RUNS = 3;

export const RESULTS_DIR = resolve(__dirname, '../../benchmarks/results');
/** Each run's raw samples (not published: the pooled report is). */
export const RUNS_DIR = join(RESULTS_DIR, 'runs');

export type ReportName = 'latest' | 'partial' | 'quick';

/** Only full runs, every workload and transport, at least three of them, replace the published results. */
export function reportName(quick: boolean, narrowed: boolean, runs: number): ReportName {
  return quick ? 'quick' : narrowed || runs < PUBLISHED_RUNS ? 'partial' : 'latest';
}

/** The raw samples of run `index` for a report named `name`. */
export function rawFile(name: ReportName, index: number): string {
  mkdirSync(RUNS_DIR, { recursive: true });
  return join(RUNS_DIR, `${name === 'latest' ? '' : `${name}-`}run-${index}.json`);
}

/** Pools the runs and writes `<name>.json`, `.md` and `.svg`; returns the markdown. */
export function publish(name: ReportName, runs: readonly RawRun[]): string {
  const first = runs[0];
  if (!first) throw new Error('no run to report');
  const report: RunReport = {
    date: first.startedAt,
    quick: first.quick,
    ...(first.quick ? { notice: QUICK_NOTICE } : {}),
    partial: name !== 'latest',
    machine: first.machine,
    settings: first.settings,
    runs: runs.map(({ index, startedAt, durationMs, loadAvgStart, loadAvgEnd }) => ({
      index,
      startedAt,
      durationMs,
      loadAvgStart,
      loadAvgEnd,
    })),
    measurements: pool(runs),
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const markdown = renderReport(report);
  writeFileSync(join(RESULTS_DIR, `${name}.json`), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(join(RESULTS_DIR, `${name}.md`), markdown);
  writeFileSync(join(RESULTS_DIR, `${name}.svg`), renderChart(report));
  return markdown;
}
