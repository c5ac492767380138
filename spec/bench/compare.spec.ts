import { compareReports } from '../../lib/bench/compare';
import { busyMachine } from '../../lib/bench/report';
import type { BenchReport, Spread, TargetResult, TargetSummary } from '../../lib/bench/report';

const spread = (median: number, min: number, max: number): Spread => ({ median, min, max });

function report(summaries: Record<string, Partial<TargetSummary>>, load = 'closed loop, 8 in flight'): BenchReport {
  const base: TargetSummary = {
    perSecond: spread(1000, 950, 1050),
    p50Ms: spread(1, 0.9, 1.1),
    p90Ms: spread(2, 2, 2),
    p99Ms: spread(5, 4, 6),
    p999Ms: spread(9, 9, 9),
    maxMs: spread(20, 20, 20),
    coldP50Ms: spread(2, 2, 2),
    coldP99Ms: spread(8, 8, 8),
    calls: 10_000,
    errors: {},
  };
  const targets = Object.entries(summaries).map(([name, summary]): TargetResult => ({
    name,
    how: name,
    served: { tools: [], resources: [], prompts: [] },
    reps: [],
    summary: { ...base, ...summary },
  }));
  return {
    format: 'rxmcp-bench/1',
    startedAt: '2026-11-28T00:00:00.000Z',
    durationMs: 1,
    machine: 'm',
    loadAvgStart: [0, 0, 0],
    loadAvgEnd: [0, 0, 0],
    settings: {
      workload: 'tools/call echo',
      load,
      reps: 3,
      durationMs: 5000,
      coldCalls: 100,
      timeoutMs: 10_000,
      noiseThreshold: 0.15,
    },
    targets,
  };
}

describe('compareReports', () => {
  it('finds nothing worse where the ranges overlap, even with a lower median', () => {
    expect(compareReports(report({ a: {} }), report({ a: { perSecond: spread(960, 900, 1000) } }))).toEqual([]);
  });

  it('names each figure worse beyond both spreads: fewer calls per second, higher p50 or p99', () => {
    const now = report({
      a: { perSecond: spread(800, 780, 900), p50Ms: spread(1.3, 1.2, 1.4), p99Ms: spread(5, 4, 6) },
    });
    expect(compareReports(report({ a: {} }), now)).toEqual([
      "a: calls/s 800 [780 – 900] is worse than the baseline's 1,000 [950 – 1,050]",
      "a: p50 ms 1.30 [1.20 – 1.40] is worse than the baseline's 1.00 [0.900 – 1.10]",
    ]);
  });

  it('does not call a better figure worse', () => {
    expect(
      compareReports(report({ a: {} }), report({ a: { perSecond: spread(2000, 1900, 2100), p99Ms: spread(1, 1, 1) } })),
    ).toEqual([]);
  });

  it('names a target missing from the run, more failed calls, and a different workload', () => {
    const now = report({ a: { errors: { '-32603': 100 } } }, 'open loop, 100 calls/s');
    expect(compareReports(report({ a: {}, b: {} }), now)).toEqual([
      'the baseline measured tools/call echo, closed loop, 8 in flight; this run tools/call echo, open loop, 100 calls/s',
      'a: 1.00 % of calls failed, against 0.00 % in the baseline',
      'b: in the baseline, not in this run',
    ]);
  });
});

describe('busyMachine', () => {
  it('flags a run whose 1-minute load average passed the number of cores, as it started or ended', () => {
    expect(busyMachine([0.5, 0.4, 0.3], [1.9, 1, 1], 2)).toBeUndefined();
    expect(busyMachine([2.5, 1, 1], [1, 1, 1], 2)).toBe('the machine was busy (load average 2.50 on 2 cores)');
    expect(busyMachine([1, 1, 1], [9.75, 1, 1], 2)).toBe('the machine was busy (load average 9.75 on 2 cores)');
  });
});
