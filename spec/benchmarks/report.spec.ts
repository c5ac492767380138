import { renderChart, renderReport } from '../../benchmarks/report';
import type { Measurement, RunReport } from '../../benchmarks/report';
import type { RunInfo } from '../../benchmarks/samples';
import type { Spread } from '../../benchmarks/stats';
import { targets } from '../../benchmarks/targets';
import type { Target } from '../../benchmarks/targets';

const at = (n: number): Spread => ({ median: n, min: n, max: n });

function row(
  workload: string,
  transport: string,
  shape: string,
  implementation: string,
  perSecond: number,
  p99Ms = NaN,
  p50Ms = NaN,
): Measurement {
  return {
    workload,
    transport,
    shape,
    implementation,
    runs: 1,
    perSecond: at(perSecond),
    p50Ms: at(p50Ms),
    p99Ms: at(p99Ms),
  };
}

/** A sequential tools/call row over `transport`. */
const calls = (implementation: string, perSecond: number, p99Ms = 1, transport = 'stdio'): Measurement =>
  row('calls', transport, '1', implementation, perSecond, p99Ms);

const perClient = (implementation: string, bytes: number) =>
  row('memory', 'in-memory', 'idle-per-client', implementation, bytes);
const shared = (implementation: string, bytes: number) =>
  row('memory', 'in-memory', 'idle-shared', implementation, bytes);
const opened = (implementation: string, perSecond: number) =>
  row('open', 'in-memory', '1000', implementation, perSecond);

function report(measurements: Measurement[], extra: Partial<RunReport> = {}): RunReport {
  return {
    date: '2026-01-01T00:00:00.000Z',
    quick: false,
    partial: false,
    machine: 'test machine',
    settings: { repetitions: 2 },
    runs: [],
    measurements,
    ...extra,
  };
}

/** The targets of `measurements` as `[measure, value, met, bounded]`. */
const outcomes = (measurements: Measurement[]) =>
  targets(report(measurements)).map((t) => [t.measure, t.value, t.met, t.bounded]);

const only = (all: Target[], measure: string): Target => {
  const found = all.filter((t) => t.measure === measure);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('benchmark targets: call and scale rows against the floor', () => {
  it('meets the floor targets at 0.95 of its throughput on a call row, 0.85 on a scale row, and 1.2 times its p99', () => {
    const scale = (implementation: string, perSecond: number, p99Ms: number) =>
      row('scale', 'http-2026', '100', implementation, perSecond, p99Ms);
    const all = targets(
      report([calls('rxmcp', 950, 12), calls('floor', 1000, 10), scale('rxmcp', 850, 11), scale('floor', 1000, 10)]),
    );
    expect(all).toEqual([
      expect.objectContaining({
        row: 'tools/call, stdio, sequential',
        measure: 'throughput, rxmcp / floor',
        value: 0.95,
        target: 0.95,
        kind: 'min',
        met: true,
      }),
      expect.objectContaining({
        row: 'tools/call, stdio, sequential',
        measure: 'p99, rxmcp / floor',
        value: 1.2,
        target: 1.2,
        kind: 'max',
        met: true,
      }),
      expect.objectContaining({
        row: 'tools/call, http-2026, 100 sessions, one call each in flight',
        measure: 'throughput, rxmcp / floor',
        value: 0.85,
        target: 0.85,
        met: true,
      }),
      expect.objectContaining({
        row: 'tools/call, http-2026, 100 sessions, one call each in flight',
        measure: 'p99, rxmcp / floor',
        value: 1.1,
        met: true,
      }),
    ]);
  });

  it('misses them below those shares of the floor throughput or above 1.2 times its p99, and never calls that bounded', () => {
    expect(outcomes([calls('rxmcp', 940, 12.5), calls('floor', 1000, 10)])).toEqual([
      ['throughput, rxmcp / floor', 0.94, false, false],
      ['p99, rxmcp / floor', 1.25, false, false],
    ]);
    const scale = (implementation: string, perSecond: number) =>
      row('scale', 'http-stateful', '10', implementation, perSecond, 1);
    expect(outcomes([scale('rxmcp', 840), scale('floor', 1000)])[0]).toEqual([
      'throughput, rxmcp / floor',
      0.84,
      false,
      false,
    ]);
    // Each target on its own: a fast rxmcp with a slow tail, a slow one with a short tail.
    expect(outcomes([calls('rxmcp', 2000, 30), calls('floor', 1000, 10)]).map(([, , met]) => met)).toEqual([
      true,
      false,
    ]);
    expect(outcomes([calls('rxmcp', 500, 5), calls('floor', 1000, 10)]).map(([, , met]) => met)).toEqual([false, true]);
  });
});

describe('benchmark targets: call rows against the official SDKs', () => {
  it('wants at least 2 times the throughput of the official SDK and of v2', () => {
    expect(outcomes([calls('rxmcp', 1000), calls('official', 400), calls('official-v2', 500)])).toEqual([
      ['throughput, rxmcp / official', 2.5, true, false],
      ['throughput, rxmcp / official-v2', 2, true, false],
    ]);
    expect(outcomes([calls('rxmcp', 1000), calls('official', 400), calls('official-v2', 550)])).toEqual([
      ['throughput, rxmcp / official', 2.5, true, false],
      ['throughput, rxmcp / official-v2', 1000 / 550, false, false],
    ]);
  });

  it('calls a miss bounded by the floor when the floor itself is not 2 times that peer over a transport', () => {
    const all = targets(
      report([calls('rxmcp', 1400), calls('official', 1000), calls('official-v2', 500), calls('floor', 1500)]),
    );
    // Against official the floor reaches 1.5 only: the miss is bounded. Against v2 the floor
    // reaches 3 and rxmcp 2.8: met, so not bounded either.
    expect(only(all, 'throughput, rxmcp / official')).toMatchObject({
      value: 1.4,
      met: false,
      bounded: true,
      note: 'floor / official: 1.50',
    });
    expect(only(all, 'throughput, rxmcp / official-v2')).toMatchObject({
      value: 2.8,
      met: true,
      bounded: false,
      note: 'floor / official-v2: 3.00',
    });
  });

  it('does not call a miss bounded when the floor reaches 2 times the peer', () => {
    const all = targets(
      report([calls('rxmcp', 1400), calls('official', 1000), calls('official-v2', 1250), calls('floor', 2000)]),
    );
    // The floor is exactly 2 times official: rxmcp's miss is its own. It is 1.6 times v2: bounded.
    expect(only(all, 'throughput, rxmcp / official')).toMatchObject({
      met: false,
      bounded: false,
      note: 'floor / official: 2.00',
    });
    expect(only(all, 'throughput, rxmcp / official-v2')).toMatchObject({
      value: 1.12,
      met: false,
      bounded: true,
      note: 'floor / official-v2: 1.60',
    });
  });

  it('does not take the floor for a bound in memory, where the SDKs skip its serializing', () => {
    const all = targets(
      report([
        calls('rxmcp', 1400, 1, 'in-memory'),
        calls('official', 1000, 1, 'in-memory'),
        calls('floor', 1500, 1, 'in-memory'),
      ]),
    );
    const official = only(all, 'throughput, rxmcp / official');
    expect(official).toMatchObject({ met: false, bounded: false });
    expect(official.note).toBeUndefined();
  });

  it('leaves out the comparisons whose peer or floor was not measured, rather than inventing them', () => {
    expect(targets(report([calls('rxmcp', 1400), calls('official', 1000)]))).toEqual([
      expect.objectContaining({ measure: 'throughput, rxmcp / official', bounded: false, note: undefined }),
    ]);
    expect(outcomes([calls('rxmcp', 1400), calls('official-v2', 1000), calls('floor', 1500)]).map(([m]) => m)).toEqual([
      'throughput, rxmcp / floor',
      'p99, rxmcp / floor',
      'throughput, rxmcp / official-v2',
    ]);
    // Without rxmcp there is nothing to compare.
    expect(targets(report([calls('official', 1000), calls('official-v2', 900), calls('floor', 5000)]))).toEqual([]);
    // Rows are matched by transport and shape: an official row on another transport is no peer.
    expect(targets(report([calls('rxmcp', 1400, 1, 'stdio'), calls('official', 100, 1, 'http-legacy')]))).toEqual([]);
  });
});

describe('benchmark targets: memory per idle session and new sessions per second', () => {
  it('compares the bytes per idle session with the lightest peer, below 1 and aiming below 0.5', () => {
    const all = targets(
      report([perClient('rxmcp', 3200), perClient('official', 10_000), perClient('official-v2', 8000)]),
    );
    expect(all).toEqual([
      {
        row: 'memory per idle session, a server per client',
        measure: 'bytes, rxmcp / official-v2',
        value: 0.4,
        target: 1,
        kind: 'below',
        met: true,
        bounded: false,
        note: 'aim below 0.5: reached',
      },
      {
        row: 'memory per idle session, a server per client',
        measure: 'KB per session, rxmcp',
        value: 3.2,
        target: 7.3,
        kind: 'max',
        met: true,
        bounded: false,
        note: undefined,
      },
    ]);
    expect(
      targets(report([perClient('rxmcp', 6000), perClient('official', 10_000), perClient('official-v2', 8000)]))[0],
    ).toEqual(expect.objectContaining({ value: 0.75, met: true, note: 'aim below 0.5: not yet' }));
    const aim = (bytes: number) =>
      targets(report([perClient('rxmcp', bytes), perClient('official-v2', 8000)]))[0]?.note;
    expect(aim(4000)).toBe('aim below 0.5: not yet');
    expect(aim(3600)).toBe('aim below 0.5: reached');
  });

  it('misses the memory target at or above the lightest peer, and above 7.3 KB a session', () => {
    expect(outcomes([perClient('rxmcp', 9000), perClient('official', 6000), perClient('official-v2', 8000)])).toEqual([
      ['bytes, rxmcp / official', 1.5, false, false],
      ['KB per session, rxmcp', 9, false, false],
    ]);
    // `below`: equal is not below; at most 7.3 KB: 7.3 is met, 7.301 is not.
    expect(outcomes([perClient('rxmcp', 6000), perClient('official', 6000)])).toEqual([
      ['bytes, rxmcp / official', 1, false, false],
      ['KB per session, rxmcp', 6, true, false],
    ]);
    expect(outcomes([perClient('rxmcp', 7300)])).toEqual([['KB per session, rxmcp', 7.3, true, false]]);
    expect(outcomes([perClient('rxmcp', 7301)])).toEqual([['KB per session, rxmcp', 7.301, false, false]]);
  });

  it("compares one shared server with a peer's shared server, or its server per client where it cannot share", () => {
    const sharing = targets(
      report([
        perClient('rxmcp', 4000),
        shared('rxmcp', 1000),
        perClient('official', 10_000),
        shared('official', 5000),
        perClient('official-v2', 8000),
        shared('official-v2', 4000),
      ]),
    );
    expect(only(sharing, 'bytes, rxmcp / official-v2 (shared)')).toMatchObject({
      row: 'memory per idle session, one shared server',
      value: 0.25,
      met: true,
    });

    // official has no shared figure: its server per client stands in, and is the lightest here.
    const notSharing = targets(
      report([
        shared('rxmcp', 6000),
        perClient('official', 5000),
        perClient('official-v2', 8000),
        shared('official-v2', 7000),
      ]),
    );
    expect(notSharing).toEqual([
      expect.objectContaining({
        row: 'memory per idle session, one shared server',
        measure: 'bytes, rxmcp / official (a server per client)',
        value: 1.2,
        met: false,
        note: 'aim below 0.5: not yet',
      }),
    ]);
  });

  it('leaves out the memory targets against peers when rxmcp or every peer is missing', () => {
    expect(outcomes([perClient('rxmcp', 3000), shared('rxmcp', 1000)])).toEqual([
      ['KB per session, rxmcp', 3, true, false],
    ]);
    expect(targets(report([perClient('official', 3000), shared('official-v2', 1000)]))).toEqual([]);
  });

  it('wants at least 2 times the new sessions per second of the official SDK v2 (and of no other peer)', () => {
    expect(targets(report([opened('rxmcp', 2000), opened('official', 100), opened('official-v2', 1000)]))).toEqual([
      expect.objectContaining({
        row: 'new sessions per second, in memory, 1,000 at a time',
        measure: 'sessions per second, rxmcp / official-v2',
        value: 2,
        target: 2,
        kind: 'min',
        met: true,
      }),
    ]);
    expect(outcomes([opened('rxmcp', 1900), opened('official-v2', 1000)])).toEqual([
      ['sessions per second, rxmcp / official-v2', 1.9, false, false],
    ]);
    expect(targets(report([opened('rxmcp', 2000), opened('official', 100)]))).toEqual([]);
  });

  it('wants 2 times v2 on the cold rate of new sessions too, and shows it beside the steady one', () => {
    const cold = (implementation: string, perSecond: number) =>
      row('open-cold', 'in-memory', '1000', implementation, perSecond);
    const measurements = [
      opened('rxmcp', 2000),
      cold('rxmcp', 1300),
      opened('official-v2', 1000),
      cold('official-v2', 900),
    ];
    expect(outcomes(measurements)).toEqual([
      ['sessions per second, rxmcp / official-v2', 2, true, false],
      ['sessions per second, rxmcp / official-v2', 1300 / 900, false, false],
    ]);
    expect(targets(report(measurements))[1]?.row).toBe(
      'new sessions per second, in memory, 1,000 at a time, second batch (cold)',
    );
    const markdown = renderReport(report(measurements));
    expect(markdown).toContain('| new sessions per second, steady | cold |');
    expect(markdown).toMatch(/\| rxmcp \|[^\n]*\| 2,000 \[2,000 – 2,000\] \| 1,300 \[1,300 – 1,300\] \|/);
    // The cold rate is a target row, and a column of the sessions table: no table of its own.
    expect(markdown).toContain(
      '| new sessions per second, in memory, 1,000 at a time, second batch (cold) | sessions per second, rxmcp / official-v2 | 1.44 | ≥ 2.00 | **no** |  |',
    );
    expect(markdown.slice(markdown.indexOf('## Memory and connection cost'))).not.toContain('second batch (cold)');
  });

  it('keeps the earlier targets (1 MB results, fan-out, load time) and wants 0.8 of a direct call through a proxy in memory', () => {
    const measurements = [
      row('large', 'stdio', '1', 'rxmcp', 90),
      row('large', 'stdio', '1', 'official', 80),
      row('fanout', 'in-memory', '100', 'rxmcp', 5000),
      row('fanout', 'in-memory', '100', 'official-v2', 1000),
      row('load', 'stdio', 'stdio-server', 'rxmcp', NaN, NaN, 120),
      row('load', 'stdio', 'stdio-server', 'official', NaN, NaN, 100),
      row('proxy', 'in-memory', '1', 'direct', 1000),
      row('proxy', 'in-memory', '1', 'proxied', 790),
    ];
    expect(targets(report(measurements)).map((t) => [t.row, t.measure, t.value, t.kind, t.met])).toEqual([
      ['1 MB result, stdio', 'throughput, rxmcp / official', 90 / 80, 'min', true],
      ['fan-out to 100 clients', 'deliveries per second, rxmcp / official-v2', 5, 'min', true],
      ['load time, stdio server', 'load time, rxmcp / official', 1.2, 'max', false],
      [
        'tools/call through a proxy / direct, in memory, sequential',
        'throughput, proxied / direct',
        0.79,
        'min',
        false,
      ],
    ]);
    const inMemory = (proxied: number) =>
      targets(
        report([row('proxy', 'in-memory', '64', 'direct', 1000), row('proxy', 'in-memory', '64', 'proxied', proxied)]),
      );
    expect(inMemory(800)).toEqual([expect.objectContaining({ target: 0.8, met: true })]);
  });

  it('calls a proxy miss bounded only when the bare relay keeps less than the target too', () => {
    const stdio = (relay: number) => [
      row('proxy', 'stdio-to-http', '1', 'direct', 1000),
      row('proxy', 'stdio-to-http', '1', 'proxied', 600),
      row('proxy', 'stdio-to-http', '1', 'relay', relay),
    ];
    expect(targets(report(stdio(650)))).toEqual([
      expect.objectContaining({
        measure: 'throughput, proxied / direct',
        value: 0.6,
        met: false,
        bounded: true,
        note: 'relay / direct: 0.65; proxied / relay: 0.92',
      }),
    ]);
    // The relay keeps 0.8: the proxy's miss is its own.
    expect(targets(report(stdio(800)))).toEqual([expect.objectContaining({ met: false, bounded: false })]);
  });

  it("states the proxy's hop in microseconds on the sequential rows, beside the Rust mcp-proxy's 50 µs", () => {
    const markdown = renderReport(
      report([
        row('proxy', 'in-memory', '1', 'direct', 250_000),
        row('proxy', 'in-memory', '1', 'proxied', 200_000),
        row('proxy', 'in-memory', '1', 'policed', 160_000),
        row('proxy', 'in-memory', '64', 'direct', 400_000),
        row('proxy', 'in-memory', '64', 'proxied', 300_000),
        row('proxy', 'stdio-to-http', '1', 'direct', 10_000),
        row('proxy', 'stdio-to-http', '1', 'proxied', 6_250),
        row('proxy', 'stdio-to-http', '1', 'relay', 5_000),
      ]),
    );
    const section = markdown.slice(markdown.indexOf("## The proxy's hop"));
    expect(section).toContain('The Rust mcp-proxy publishes 50 µs for its own hop.');
    // In memory: 4 µs direct, 5 through the proxy, 6.25 policed; no relay there.
    expect(section).toContain('| in memory | 4.00 µs | 1.00 µs | 2.25 µs | – |');
    // From stdio to HTTP: 100 µs direct, 160 proxied, 200 through the relay; no policed row.
    expect(section).toContain('| from stdio to HTTP | 100.0 µs | 60.0 µs | – | 100.0 µs |');
    // Only the sequential rows: with 64 in flight 1 / throughput is not a call's latency.
    expect(section.split('\n').filter((line) => line.startsWith('| in memory'))).toHaveLength(1);
  });

  it('leaves the hop out of a report without a direct proxy row', () => {
    expect(renderReport(report([row('proxy', 'in-memory', '1', 'proxied', 1000)]))).not.toContain("## The proxy's hop");
  });
});

describe('benchmark report', () => {
  const runs: RunInfo[] = [
    {
      index: 1,
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 450_000,
      loadAvgStart: [0.5, 1.25, 2],
      loadAvgEnd: [3.456, 2, 1],
    },
    {
      index: 2,
      startedAt: '2026-01-01T00:08:00.000Z',
      durationMs: 462_000,
      loadAvgStart: [4, 3.5, 3],
      loadAvgEnd: [0.111, 0.2, 0.3],
    },
    {
      index: 3,
      startedAt: '2026-01-01T00:16:00.000Z',
      durationMs: 444_000,
      loadAvgStart: [1, 1, 1],
      loadAvgEnd: [2, 2, 2],
    },
  ];
  const measured = [calls('rxmcp', 1400), calls('official', 1000), calls('floor', 1500)];

  it('marks a quick run "quick run: not for claims" in the markdown and in the chart title', () => {
    const quick = report(measured, { quick: true, partial: true, notice: 'quick run: not for claims', runs });
    const text = renderReport(quick);
    expect(text.split('\n')[0]).toBe('# rxmcp benchmarks (quick run: not for claims)');
    expect(text).toContain('**quick run: not for claims**: short phases and few samples;');
    expect(renderChart(quick)).toContain('font-weight="bold">rxmcp benchmarks (quick run: not for claims)</text>');

    const full = report(measured, { runs });
    expect(renderReport(full)).not.toContain('quick run');
    expect(renderReport(full).split('\n')[0]).toBe('# rxmcp benchmarks');
    expect(renderChart(full)).not.toContain('quick run');
    expect(renderChart(full)).toContain('>rxmcp benchmarks, 3 runs, 2026-01-01</text>');
    expect(renderReport(report(measured, { partial: true, runs })).split('\n')[0]).toBe(
      '# rxmcp benchmarks (partial run)',
    );
  });

  it('prints the load averages recorded as each run started and ended', () => {
    const lines = renderReport(report(measured, { runs })).split('\n');
    const section = lines.indexOf('## Machine load');
    expect(section).toBeGreaterThanOrEqual(0);
    expect(lines.slice(section + 4, section + 9)).toEqual([
      '| run | started | duration | load at start | load at end |',
      '| --- | --- | --- | --- | --- |',
      '| 1 | 2026-01-01T00:00:00.000Z | 7.5 min | 0.50 / 1.25 / 2.00 | 3.46 / 2.00 / 1.00 |',
      '| 2 | 2026-01-01T00:08:00.000Z | 7.7 min | 4.00 / 3.50 / 3.00 | 0.11 / 0.20 / 0.30 |',
      '| 3 | 2026-01-01T00:16:00.000Z | 7.4 min | 1.00 / 1.00 / 1.00 | 2.00 / 2.00 / 2.00 |',
    ]);
  });

  it('renders each target as a row of the targets table', () => {
    const text = renderReport(
      report([...measured, perClient('rxmcp', 3200), perClient('official', 10_000), perClient('official-v2', 8000)], {
        runs,
      }),
    );
    expect(text).toContain(
      '| tools/call, stdio, sequential | throughput, rxmcp / official | 1.40 | ≥ 2.00 | **no**, bounded by the floor | floor / official: 1.50 |',
    );
    expect(text).toContain('| tools/call, stdio, sequential | throughput, rxmcp / floor | 0.93 | ≥ 0.95 | **no** |  |');
    expect(text).toContain('| tools/call, stdio, sequential | p99, rxmcp / floor | 1.00 | ≤ 1.20 | yes |  |');
    expect(text).toContain(
      '| memory per idle session, a server per client | bytes, rxmcp / official-v2 | 0.40 | < 1.00 | yes | aim below 0.5: reached |',
    );
    // A miss that the floor does not excuse is a plain no.
    expect(renderReport(report([calls('rxmcp', 1400), calls('official', 1000), calls('floor', 5000)]))).toContain(
      '| tools/call, stdio, sequential | throughput, rxmcp / official | 1.40 | ≥ 2.00 | **no** | floor / official: 5.00 |',
    );
  });
});
