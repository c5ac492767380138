/**
 * Timing of calls, shared by the benchmark runner and the profiler: the closed loop and histogram
 * of `rxmcp bench` (lib/bench), so that the repository has one benchmark engine.
 */
import { firstValueFrom } from 'rxjs';
import { closedLoop, collectPhase, performanceScheduler } from '../lib/entries/bench';

/** What {@link timeCalls} measured. */
export interface CallTiming {
  /** How many calls were made. */
  readonly calls: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

/**
 * Makes calls, `inFlight` at a time, for at least `minMs` and then until `count` calls are made or
 * `maxMs` has passed, whichever comes first (so a slow implementation is measured for `maxMs`
 * rather than for as long as `count` of its calls take); throughput and latency percentiles (from
 * the engine's histogram, to within 0.8 %). A failed call fails the measurement: these workloads
 * have none.
 */
export async function timeCalls(
  count: number,
  minMs: number,
  inFlight: number,
  call: () => Promise<unknown>,
  maxMs = Infinity,
): Promise<CallTiming> {
  const loop = closedLoop({
    call,
    concurrency: inFlight,
    durationMs: maxMs,
    maxCalls: count,
    minDurationMs: minMs,
    // No deadline: a timer per call would cost the fastest rows (in memory) a share of their figure.
    timeoutMs: Infinity,
    scheduler: performanceScheduler,
  });
  const phase = await firstValueFrom(collectPhase(loop, { scheduler: performanceScheduler }));
  const failed = Object.entries(phase.errors);
  if (failed.length > 0) throw new Error(`calls failed: ${failed.map(([code, n]) => `${code} ×${n}`).join(', ')}`);
  return {
    calls: phase.calls,
    perSecond: phase.perSecond,
    p50: phase.histogram.percentileMs(50),
    p99: phase.histogram.percentileMs(99),
  };
}
