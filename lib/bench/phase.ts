/**
 * A phase of load, summed up: the latency histogram of its calls, how many there were, how long
 * the phase lasted, the errors by code and a timeline (calls and p99 per slice of time, for the
 * report's latency-over-time chart). And the warm-up that repeats a short phase until its rate
 * settles.
 */
import { concatMap, Observable, of } from '../rx/rxjs';
import type { SchedulerLike } from '../rx/rxjs';
import { LatencyHistogram } from './histogram';
import type { CallOutcome } from './load';

/** One slice of a phase's timeline. */
export interface TimelinePoint {
  /** The slice's start, in ms from the phase's start. */
  readonly atMs: number;
  /** Calls due in the slice. */
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** What a phase measured. */
export interface PhaseResult {
  /** Every call's latency, errors included (a failure's latency is how long it took to fail). */
  readonly histogram: LatencyHistogram;
  readonly calls: number;
  /** From the phase's start to its last call's end. */
  readonly durationMs: number;
  /** Settled calls per second: `calls / durationMs`. */
  readonly perSecond: number;
  /** Failed calls by code (`-32601`, `timeout`, `tool-error`...). */
  readonly errors: Readonly<Record<string, number>>;
  readonly timeline: readonly TimelinePoint[];
}

/** Options of {@link collectPhase}. */
export interface CollectOptions {
  readonly scheduler: SchedulerLike;
  /** The timeline's slice. Default 100 ms. */
  readonly sliceMs?: number;
}

/**
 * Subscribes to `outcomes$` and emits one {@link PhaseResult} when it completes. Cold; unsubscribing
 * unsubscribes the load (cancelling its calls).
 */
export function collectPhase(outcomes$: Observable<CallOutcome>, options: CollectOptions): Observable<PhaseResult> {
  const { scheduler, sliceMs = 100 } = options;
  return new Observable<PhaseResult>((subscriber) => {
    const started = scheduler.now();
    const histogram = new LatencyHistogram();
    const errors: Record<string, number> = {};
    const slices: LatencyHistogram[] = [];
    return outcomes$.subscribe({
      next: (outcome) => {
        histogram.recordMs(outcome.latencyMs);
        if (outcome.error !== undefined) errors[outcome.error] = (errors[outcome.error] ?? 0) + 1;
        const slice = Math.floor(outcome.atMs / sliceMs);
        (slices[slice] ??= new LatencyHistogram()).recordMs(outcome.latencyMs);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        const durationMs = scheduler.now() - started;
        const timeline = [...slices.entries()]
          .filter((entry): entry is [number, LatencyHistogram] => entry[1] !== undefined)
          .map(([slice, h]) => ({
            atMs: slice * sliceMs,
            calls: h.count,
            p50Ms: h.percentileMs(50),
            p99Ms: h.percentileMs(99),
            maxMs: h.maxMs,
          }));
        const perSecond = durationMs > 0 ? (histogram.count / durationMs) * 1000 : NaN;
        subscriber.next({ histogram, calls: histogram.count, durationMs, perSecond, errors, timeline });
        subscriber.complete();
      },
    });
  });
}

/** How a warm-up decides the rate has settled. */
export interface WarmUpOptions {
  /** Each window of load lasts this long. Default 500 ms. */
  readonly windowMs?: number;
  /** The last this many windows must agree. Default 3. */
  readonly windows?: number;
  /** ... to within this fraction of their mean. Default 0.1. */
  readonly tolerance?: number;
  /** The warm-up ends here, settled or not (and says so). Default 15 s. */
  readonly maxMs?: number;
  /**
   * What must settle: `rate` (calls per second, for a closed loop) or `latency` (the median, for
   * an open loop, whose rate is fixed). Default `rate`.
   */
  readonly measure?: 'rate' | 'latency';
}

/** What a warm-up did: how long it took, each window's figure, and whether it settled. */
export interface WarmUpReport {
  readonly durationMs: number;
  readonly calls: number;
  /** Each window's calls per second (`rate`) or median latency in ms (`latency`). */
  readonly windows: readonly number[];
  readonly measure: 'rate' | 'latency';
  readonly settled: boolean;
}

/** Whether the last `count` figures lie within `tolerance` of their mean. */
export function hasSettled(figures: readonly number[], count: number, tolerance: number): boolean {
  if (figures.length < count) return false;
  const last = figures.slice(-count);
  if (!last.every((f) => Number.isFinite(f) && f > 0)) return false;
  const mean = last.reduce((a, b) => a + b, 0) / count;
  return last.every((f) => Math.abs(f - mean) <= tolerance * mean);
}

/**
 * Runs `window(windowMs)` again and again until the last `windows` figures agree to within
 * `tolerance`, or `maxMs` has passed; emits the report and completes. Cold.
 */
export function warmUp(
  window: (windowMs: number) => Observable<PhaseResult>,
  options: WarmUpOptions = {},
): Observable<WarmUpReport> {
  const { windowMs = 500, windows = 3, tolerance = 0.1, maxMs = 15_000, measure = 'rate' } = options;
  const step = (figures: readonly number[], spentMs: number, calls: number): Observable<WarmUpReport> =>
    window(windowMs).pipe(
      concatMap((result) => {
        const figure = measure === 'rate' ? result.perSecond : result.histogram.percentileMs(50);
        const seen = [...figures, figure];
        const spent = spentMs + result.durationMs;
        const settled = hasSettled(seen, windows, tolerance);
        if (settled || spent >= maxMs || result.calls === 0)
          return of({ durationMs: spent, calls: calls + result.calls, windows: seen, measure, settled });
        return step(seen, spent, calls + result.calls);
      }),
    );
  return step([], 0, 0);
}
