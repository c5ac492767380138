import { ratios, renderChart, renderReport } from '../../benchmarks/report';
import type { Measurement, RunReport } from '../../benchmarks/report';

function calls(implementation: string, perSecond: number, p99Ms: number, transport = 'stdio'): Measurement {
  const at = (n: number) => ({ median: n, min: n, max: n });
  return {
    workload: 'calls',
    transport,
    shape: '1',
    implementation,
    perSecond: at(perSecond),
    p50Ms: at(p99Ms / 2),
    p99Ms: at(p99Ms),
  };
}

function run(measurements: Measurement[]): RunReport {
  return { date: '2026-01-01T00:00:00.000Z', quick: false, machine: 'test', settings: {}, measurements };
}

describe('benchmark ratios', () => {
  it('compares rxmcp with the official SDK v2 where v2 was measured (2026-07-28 calls)', () => {
    const found = ratios(run([calls('rxmcp', 2500, 2, 'http-2026'), calls('official-v2', 1000, 5, 'http-2026')]));
    expect(found).toEqual([
      expect.objectContaining({
        label: 'tools/call, http-2026, sequential (vs SDK v2): throughput',
        value: 2.5,
        target: 2,
        met: true,
      }),
      expect.objectContaining({
        label: 'tools/call, http-2026, sequential (vs SDK v2): p99 latency',
        value: 0.4,
        target: 0.5,
        met: true,
      }),
    ]);
    const missed = ratios(run([calls('rxmcp', 1500, 4, 'http-2026'), calls('official-v2', 1000, 5, 'http-2026')]));
    expect(missed.map((r) => r.met)).toEqual([false, false]);
    expect(
      renderReport(run([calls('rxmcp', 2500, 2, 'http-2026'), calls('official-v2', 1000, 5, 'http-2026')])),
    ).toContain('(vs SDK v2)');
  });

  it('compares rxmcp with the official SDK and the floor with both', () => {
    const [throughput, p99] = ratios(
      run([calls('rxmcp', 3000, 1), calls('official', 1000, 4), calls('floor', 6000, 0.5)]),
    );
    expect(throughput).toMatchObject({
      value: 3,
      target: 2,
      kind: 'min',
      met: true,
      bounded: false,
      floorValue: 0.5,
      floorOverOfficial: 6,
    });
    expect(p99).toMatchObject({
      value: 0.25,
      target: 0.5,
      kind: 'max',
      met: true,
      bounded: false,
      floorValue: 2,
      floorOverOfficial: 0.125,
    });
  });

  it('calls a missed target bounded only when the floor misses it too', () => {
    // The floor is 1.5 times the official SDK's throughput and has 0.8 of its p99: neither target is in reach.
    const bounded = ratios(run([calls('rxmcp', 1400, 0.9), calls('official', 1000, 1), calls('floor', 1500, 0.8)]));
    expect(bounded.map((r) => [r.met, r.bounded])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(
      renderReport(run([calls('rxmcp', 1400, 0.9), calls('official', 1000, 1), calls('floor', 1500, 0.8)])),
    ).toContain(
      '| tools/call, stdio, sequential: throughput | 1.40 | ≥ 2.00 | **no**, bounded by the floor | 0.93 | 1.50 |',
    );

    // The floor reaches both targets, so rxmcp's misses are its own.
    const missed = ratios(run([calls('rxmcp', 1400, 0.9), calls('official', 1000, 1), calls('floor', 5000, 0.2)]));
    expect(missed.map((r) => [r.met, r.bounded])).toEqual([
      [false, false],
      [false, false],
    ]);
  });

  it('does not take the floor for a limit in memory, where the SDKs do not serialize', () => {
    const inMemory = ratios(
      run([
        calls('rxmcp', 1400, 0.9, 'in-memory'),
        calls('official', 1000, 1, 'in-memory'),
        calls('floor', 1500, 0.8, 'in-memory'),
      ]),
    );
    expect(inMemory.map((r) => [r.met, r.floorIsLimit, r.bounded])).toEqual([
      [false, false, false],
      [false, false, false],
    ]);
  });

  it('does not take the floor for a limit on 1 MB results, where its line reading is the simplest there is', () => {
    const large = (implementation: string, perSecond: number): Measurement => ({
      ...calls(implementation, perSecond, 10),
      workload: 'large',
    });
    const [throughput] = ratios(run([large('rxmcp', 90), large('official', 100), large('floor', 50)]));
    expect(throughput).toMatchObject({ met: false, floorIsLimit: false, bounded: false });
  });

  it('draws the chart in colours by outcome, with the floor marked where it is a limit', () => {
    const bounded = renderChart(
      run([calls('rxmcp', 1400, 0.9), calls('official', 1000, 1), calls('floor', 1500, 0.8)]),
    );
    expect(bounded.match(/fill="#e9a23b"/g)).toHaveLength(2);
    expect(bounded.match(/stroke="#888"/g)).toHaveLength(2);
    const met = renderChart(
      run([
        calls('rxmcp', 3000, 0.2, 'in-memory'),
        calls('official', 1000, 1, 'in-memory'),
        calls('floor', 1500, 0.8, 'in-memory'),
      ]),
    );
    expect(met.match(/fill="#3a7"/g)).toHaveLength(2);
    expect(met).not.toContain('stroke="#888"');
  });

  it('cannot call a target bounded without a floor measurement', () => {
    const [throughput] = ratios(run([calls('rxmcp', 1400, 0.9), calls('official', 1000, 1)]));
    expect(throughput).toMatchObject({ met: false, bounded: false, floorOverOfficial: undefined });
  });
});

describe('load time ratios', () => {
  const load = (implementation: string, shape: string, ms: number): Measurement => ({
    workload: 'load',
    transport: shape === 'stdio-server' ? 'stdio' : 'http',
    shape,
    implementation,
    perSecond: { median: NaN, min: NaN, max: NaN },
    p50Ms: { median: ms, min: ms - 5, max: ms + 5 },
    p99Ms: { median: NaN, min: NaN, max: NaN },
  });

  it('compares the time to load each role with the official SDK, at most 1', () => {
    const report = run([
      load('rxmcp', 'stdio-server', 90),
      load('official', 'stdio-server', 100),
      load('rxmcp', 'http-client', 120),
      load('official', 'http-client', 100),
    ]);
    expect(ratios(report)).toEqual([
      expect.objectContaining({ label: 'load time, stdio server', value: 0.9, target: 1, kind: 'max', met: true }),
      expect.objectContaining({ label: 'load time, Streamable HTTP client', value: 1.2, target: 1, met: false }),
    ]);
    const text = renderReport(report);
    expect(text).toContain('| load time, stdio server | 0.90 | ≤ 1.00 | yes |');
    expect(text).toContain('| load time, Streamable HTTP client | rxmcp | 120.0 ms to load [115.0 – 125.0] |');
  });
});
