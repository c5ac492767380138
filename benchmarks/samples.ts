/**
 * The raw samples of one run (written by run.ts to results/runs/), and how several runs are pooled
 * into the published figures.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Measurement } from './report-model';
import { median, spread } from './stats';

/** One sample of a workload: per second (or bytes, or sessions per second), p50 and p99 in ms. */
export interface Sample {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

/** The samples of one run by key `workload|transport|shape|implementation`, repetitions in order. */
export type Samples = Map<string, { perSecond: number[]; p50: number[]; p99: number[] }>;

export function record(samples: Samples, key: string, value: Sample): void {
  const entry = samples.get(key) ?? { perSecond: [], p50: [], p99: [] };
  entry.perSecond.push(value.perSecond);
  entry.p50.push(value.p50);
  entry.p99.push(value.p99);
  samples.set(key, entry);
}

/** When a run took place, and how busy the machine was. */
export interface RunInfo {
  readonly index: number;
  readonly startedAt: string;
  readonly durationMs: number;
  /** `os.loadavg()` (1, 5 and 15 minutes) as the run started and as it ended. */
  readonly loadAvgStart: readonly number[];
  readonly loadAvgEnd: readonly number[];
}

/** What one run writes: its settings and every repetition's sample. NaN is written as null. */
export interface RawRun extends RunInfo {
  readonly quick: boolean;
  readonly machine: string;
  readonly settings: Record<string, number | string>;
  readonly samples: Record<
    string,
    { perSecond: Array<number | null>; p50: Array<number | null>; p99: Array<number | null> }
  >;
}

export function writeRawRun(file: string, run: Omit<RawRun, 'samples'>, samples: Samples): void {
  const raw: RawRun = { ...run, samples: Object.fromEntries(samples) };
  writeFileSync(file, JSON.stringify(raw) + '\n');
}

export function readRawRun(file: string): RawRun {
  return JSON.parse(readFileSync(file, 'utf8')) as RawRun;
}

const numbers = (values: ReadonlyArray<number | null>) => values.map((v) => v ?? NaN);

/**
 * Every key's figures across the runs. One run: the median of its repetitions, [min – max] of
 * them. Several: each run's own median of its repetitions, then the median of those, [min – max]
 * of those run medians.
 */
export function pool(runs: readonly RawRun[]): Measurement[] {
  const keys = [...new Set(runs.flatMap((run) => Object.keys(run.samples)))];
  return keys.map((key) => {
    const [workload, transport, shape, implementation] = key.split('|') as [string, string, string, string];
    const of = (metric: 'perSecond' | 'p50' | 'p99') => {
      const present = runs.flatMap((run) => (run.samples[key] ? [numbers(run.samples[key][metric])] : []));
      return present.length === 1 ? spread(present[0]!) : spread(present.map((values) => runMedian(values)));
    };
    return {
      workload,
      transport,
      shape,
      implementation,
      runs: runs.filter((run) => run.samples[key]).length,
      perSecond: of('perSecond'),
      p50Ms: of('p50'),
      p99Ms: of('p99'),
    };
  });
}

/** A run's median of its repetitions' finite values (NaN when there are none). */
function runMedian(values: readonly number[]): number {
  return median(values.filter((v) => Number.isFinite(v)));
}
