import { LatencyHistogram, SUB_BUCKETS } from '../../lib/bench/histogram';

/** The exact p-th percentile by nearest rank, to hold the histogram's against. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

// A deterministic spread of latencies: most calls fast, a tail of slow ones, over six decades.
function latencies(count: number): number[] {
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  return Array.from({ length: count }, () => (random() < 0.98 ? 0.05 + random() * 2 : 10 + random() * 5000));
}

describe('LatencyHistogram', () => {
  it('reports every percentile within its precision of the exact nearest-rank value', () => {
    const values = latencies(20_000);
    const histogram = new LatencyHistogram();
    for (const v of values) histogram.recordMs(v);
    for (const p of [50, 90, 99, 99.9]) {
      const exact = percentile(values, p);
      const reported = histogram.percentileMs(p);
      expect(Math.abs(reported - exact) / exact).toBeLessThanOrEqual(1 / SUB_BUCKETS + 0.001);
    }
    expect(histogram.count).toBe(20_000);
    expect(histogram.maxMs).toBeCloseTo(Math.max(...values), 3);
    expect(histogram.minMs).toBeCloseTo(Math.min(...values), 3);
  });

  it('keeps small values exact and never reports a percentile above the maximum', () => {
    const histogram = new LatencyHistogram();
    for (const us of [1, 2, 3, 4, 100]) histogram.recordMs(us / 1000);
    expect(histogram.percentileMs(50)).toBe(0.003);
    expect(histogram.percentileMs(100)).toBe(0.1);
    histogram.recordMs(1234.567);
    expect(histogram.percentileMs(100)).toBe(1234.567);
  });

  it('adds another histogram and survives its JSON form', () => {
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    latencies(1000).forEach((v, i) => (i % 2 === 0 ? a : b).recordMs(v));
    const all = new LatencyHistogram();
    latencies(1000).forEach((v) => all.recordMs(v));
    a.add(b);
    expect(a.toJSON()).toEqual(all.toJSON());
    const back = LatencyHistogram.fromJSON(JSON.parse(JSON.stringify(all.toJSON())));
    expect(back.percentileMs(99)).toBe(all.percentileMs(99));
    expect(back.meanMs).toBeCloseTo(all.meanMs, 6);
  });

  it('is NaN throughout when empty', () => {
    const empty = new LatencyHistogram();
    expect([empty.percentileMs(50), empty.maxMs, empty.meanMs]).toEqual([NaN, NaN, NaN]);
  });
});
