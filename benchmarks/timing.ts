/** Timing of calls, shared by the benchmark runner and the profiler. */
import { performance } from 'node:perf_hooks';
import { percentile } from './stats';

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
 * rather than for as long as `count` of its calls take); throughput and latency percentiles.
 */
export async function timeCalls(
  count: number,
  minMs: number,
  inFlight: number,
  call: () => Promise<unknown>,
  maxMs = Infinity,
): Promise<CallTiming> {
  const latencies: number[] = [];
  const started = performance.now();
  const more = () => {
    const elapsed = performance.now() - started;
    return elapsed < minMs || (latencies.length < count && elapsed < maxMs);
  };
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (more()) {
        const t0 = performance.now();
        await call();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  return {
    calls: latencies.length,
    perSecond: (latencies.length / elapsedMs) * 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
