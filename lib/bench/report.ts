/**
 * The report of a `rxmcp bench` run, as JSON keeps it: each target's repetitions (warm-up, cold
 * calls, steady calls, timeline, server usage) and their summary, median [min – max] across the
 * repetitions, with a flag on a run too noisy to quote.
 */
import { LatencyHistogram } from './histogram';
import type { HistogramJson } from './histogram';
import type { PhaseResult, TimelinePoint, WarmUpReport } from './phase';
import type { Served } from './workload';

/** Repeated measurements of one figure: the median, and the least and greatest. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

/** The spread of the finite values (NaN throughout when there are none). */
export function spreadOf(values: readonly number[]): Spread {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { median: NaN, min: NaN, max: NaN };
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite) };
}

/** A phase, summed up for the report. */
export interface PhaseSummary {
  readonly calls: number;
  readonly durationMs: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly errors: Readonly<Record<string, number>>;
  readonly histogram: HistogramJson;
}

/** The summary of a phase. */
export function summarizePhase(phase: PhaseResult): PhaseSummary {
  const h = phase.histogram;
  return {
    calls: phase.calls,
    durationMs: phase.durationMs,
    perSecond: phase.perSecond,
    p50Ms: h.percentileMs(50),
    p90Ms: h.percentileMs(90),
    p99Ms: h.percentileMs(99),
    p999Ms: h.percentileMs(99.9),
    maxMs: h.maxMs,
    errors: phase.errors,
    histogram: h.toJSON(),
  };
}

/** What the server process spent, for a target whose PID is known (a stdio target, `--pid`). */
export interface ServerUsage {
  /** CPU time (user and system) per steady call, in ms. */
  readonly cpuMsPerCall: number;
  /** Its resident set at the end of the steady phase, in MiB. */
  readonly rssMiB: number;
  /** Sessions open on it while measured. */
  readonly sessions: number;
  /**
   * How much its resident set grew per session while the sessions beyond the first were opened, in
   * KiB: for sessions that all reach one process (an HTTP server named by `--pid`).
   */
  readonly rssPerSessionKiB?: number;
}

/** One repetition of one target: a fresh connection (and, for a command, a fresh process). */
export interface RepResult {
  readonly rep: number;
  readonly warmUp: WarmUpReport;
  /** The first calls of the fresh connection, one at a time: the cold regime, apart from the steady one. */
  readonly cold: PhaseSummary;
  readonly steady: PhaseSummary;
  readonly timeline: readonly TimelinePoint[];
  readonly server?: ServerUsage;
}

/** One target's repetitions, summed up: each figure median [min – max] across the repetitions. */
export interface TargetSummary {
  readonly perSecond: Spread;
  readonly p50Ms: Spread;
  readonly p90Ms: Spread;
  readonly p99Ms: Spread;
  readonly p999Ms: Spread;
  readonly maxMs: Spread;
  readonly coldP50Ms: Spread;
  readonly coldP99Ms: Spread;
  readonly calls: number;
  readonly errors: Readonly<Record<string, number>>;
  readonly cpuMsPerCall?: Spread;
  readonly rssMiB?: Spread;
  readonly rssPerSessionKiB?: Spread;
  /** Why these figures are not to be quoted; absent when they may be. */
  readonly noisy?: string;
}

/** One target of a run. */
export interface TargetResult {
  readonly name: string;
  /** How it was reached: `stdio: node server.js`, `http://127.0.0.1:3000/mcp`. */
  readonly how: string;
  readonly served: Served;
  readonly reps: readonly RepResult[];
  readonly summary: TargetSummary;
}

/** The settings of a run, as the report records them. */
export interface BenchSettings {
  readonly workload: string;
  /** `closed, 8 in flight` or `open, 500 calls/s`. */
  readonly load: string;
  readonly reps: number;
  readonly durationMs: number;
  readonly coldCalls: number;
  readonly timeoutMs: number;
  /** A spread of calls per second wider than this fraction of the median flags the target noisy. */
  readonly noiseThreshold: number;
}

/** A whole run. */
export interface BenchReport {
  readonly format: 'rxmcp-bench/1';
  readonly startedAt: string;
  readonly durationMs: number;
  readonly machine: string;
  /** `os.loadavg()` (1, 5 and 15 minutes) as the run started and as it ended. */
  readonly loadAvgStart: readonly number[];
  readonly loadAvgEnd: readonly number[];
  readonly settings: BenchSettings;
  readonly targets: readonly TargetResult[];
  /**
   * A concurrency sweep's knee per target: the concurrency past which throughput stops growing
   * (null: it still grew at the last level). Absent for a run that is no sweep.
   */
  readonly knees?: Readonly<Record<string, number | null>>;
}

/**
 * Why a machine was too busy for figures to be quoted: a 1-minute load average, as the run started
 * or ended, above its number of cores (other work then competed for them). Undefined when it was not.
 */
export function busyMachine(
  loadAvgStart: readonly number[],
  loadAvgEnd: readonly number[],
  cores: number,
): string | undefined {
  const load = Math.max(loadAvgStart[0] ?? 0, loadAvgEnd[0] ?? 0);
  return load > cores ? `the machine was busy (load average ${load.toFixed(2)} on ${cores} cores)` : undefined;
}

/** A target's summary with one more reason not to quote it. */
export function flagNoisy(summary: TargetSummary, why: string | undefined): TargetSummary {
  if (why === undefined) return summary;
  return { ...summary, noisy: summary.noisy ? `${summary.noisy}; ${why}` : why };
}

/** Why a target's repetitions are not to be quoted, if they are not. */
function noiseOf(reps: readonly RepResult[], perSecond: Spread, threshold: number): string | undefined {
  const why: string[] = [];
  if (reps.length < 3) why.push(`${reps.length} repetition${reps.length === 1 ? '' : 's'} (3 or more to quote)`);
  const width = (perSecond.max - perSecond.min) / perSecond.median;
  if (width > threshold)
    why.push(`calls per second spread ${(width * 100).toFixed(0)} % of the median (over ${threshold * 100} %)`);
  const unsettled = reps.filter((r) => !r.warmUp.settled).length;
  if (unsettled > 0) why.push(`warm-up did not settle in ${unsettled} of ${reps.length}`);
  return why.length > 0 ? why.join('; ') : undefined;
}

/** A target's summary over its repetitions. */
export function summarizeTarget(reps: readonly RepResult[], noiseThreshold: number): TargetSummary {
  const of = (pick: (r: RepResult) => number) => spreadOf(reps.map(pick));
  const errors: Record<string, number> = {};
  for (const rep of reps)
    for (const [code, n] of Object.entries(rep.steady.errors)) errors[code] = (errors[code] ?? 0) + n;
  const perSecond = of((r) => r.steady.perSecond);
  const usage = reps.flatMap((r) => (r.server ? [r.server] : []));
  const noisy = noiseOf(reps, perSecond, noiseThreshold);
  return {
    perSecond,
    p50Ms: of((r) => r.steady.p50Ms),
    p90Ms: of((r) => r.steady.p90Ms),
    p99Ms: of((r) => r.steady.p99Ms),
    p999Ms: of((r) => r.steady.p999Ms),
    maxMs: of((r) => r.steady.maxMs),
    coldP50Ms: of((r) => r.cold.p50Ms),
    coldP99Ms: of((r) => r.cold.p99Ms),
    calls: reps.reduce((n, r) => n + r.steady.calls, 0),
    errors,
    ...(usage.length > 0
      ? { cpuMsPerCall: spreadOf(usage.map((u) => u.cpuMsPerCall)), rssMiB: spreadOf(usage.map((u) => u.rssMiB)) }
      : {}),
    ...(usage.some((u) => u.rssPerSessionKiB !== undefined)
      ? { rssPerSessionKiB: spreadOf(usage.map((u) => u.rssPerSessionKiB ?? NaN)) }
      : {}),
    ...(noisy ? { noisy } : {}),
  };
}

/** Every steady call of a target's repetitions in one histogram (for the report's percentile chart). */
export function pooledHistogram(target: TargetResult): LatencyHistogram {
  const pooled = new LatencyHistogram();
  for (const rep of target.reps) pooled.add(LatencyHistogram.fromJSON(rep.steady.histogram));
  return pooled;
}
