/** Timing of calls, shared by the benchmark runner and the profiler. */
import { performance } from 'node:perf_hooks';
import { percentile } from './stats';

/** What {@link timeCalls} measured. */
export interface CallTiming {
  /** How many calls were made (at least the count asked for). */
  readonly calls: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

/** Makes at least `count` calls, `inFlight` at a time, for at least `minMs`; throughput and latency percentiles. */
export async function timeCalls(count: number, minMs: number, inFlight: number, call: () => Promise<unknown>): Promise<CallTiming> {
  const latencies: number[] = [];
  const started = performance.now();
  const more = () => latencies.length < count || performance.now() - started < minMs;
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
