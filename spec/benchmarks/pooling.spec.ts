import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { PUBLISHED_RUNS, publish, reportName } from '../../benchmarks/publish';
import type { RunReport } from '../../benchmarks/report-model';
import { pool, writeRawRun } from '../../benchmarks/samples';
import type { RawRun, Samples } from '../../benchmarks/samples';

// `publish` writes its report next to the benchmarks: here its writes are kept in memory.
jest.mock('node:fs', () => ({
  ...jest.requireActual<object>('node:fs'),
  mkdirSync: jest.fn(),
  writeFileSync: jest.fn(),
}));

const written = jest.mocked(writeFileSync);

/** What `publish` (or `writeRawRun`) wrote, by file name. */
function files(): Map<string, string> {
  return new Map(written.mock.calls.map(([file, data]) => [basename(String(file)), String(data)]));
}

const CALLS = 'calls|stdio|1|rxmcp';
const FLOOR = 'calls|stdio|1|floor';

type Series = Array<number | null>;

function info(index: number, quick = false): Omit<RawRun, 'samples'> {
  return {
    index,
    startedAt: `2026-01-0${index}T00:00:00.000Z`,
    durationMs: 60_000 * (index + 6),
    loadAvgStart: [index, index + 0.5, index + 1],
    loadAvgEnd: [index * 2, 0.25, 0.1],
    quick,
    machine: 'test machine',
    settings: { repetitions: 3 },
  };
}

const raw = (index: number, samples: RawRun['samples'], quick = false): RawRun => ({ ...info(index, quick), samples });

const series = (perSecond: Series, p50: Series, p99: Series) => ({ perSecond, p50, p99 });

/**
 * Three runs whose run medians (100, 210, 150 calls per second) differ from the median of all their
 * samples pooled together (145) and whose range of run medians (100 to 210) differs from the range of
 * all samples (90 to 220).
 */
const threeRuns = (quick = false): RawRun[] => [
  raw(1, { [CALLS]: series([100, 110, 90], [1, 2, 3], [10, 20, 30]) }, quick),
  raw(2, { [CALLS]: series([200, 220], [4, 6], [40, 60]), [FLOOR]: series([500, 700], [1, 1], [5, 5]) }, quick),
  raw(3, { [CALLS]: series([150, 140, 160], [0.5, 0.5, 9], [7, 8, 90]) }, quick),
];

describe('pooling benchmark runs', () => {
  it('takes each figure as the median of the runs’ own medians, with [min – max] of those medians', () => {
    const [calls] = pool(threeRuns());
    expect(calls).toEqual({
      workload: 'calls',
      transport: 'stdio',
      shape: '1',
      implementation: 'rxmcp',
      runs: 3,
      perSecond: { median: 150, min: 100, max: 210 },
      p50Ms: { median: 2, min: 0.5, max: 5 },
      p99Ms: { median: 20, min: 8, max: 50 },
    });
  });

  it('pools a figure over the runs that measured it, and counts them', () => {
    const floor = pool(threeRuns()).find((m) => m.implementation === 'floor');
    // Measured in one run only: the median of its repetitions, [min – max] of them.
    expect(floor).toMatchObject({ runs: 1, perSecond: { median: 600, min: 500, max: 700 } });

    const twoOfThree = pool([
      raw(1, { [CALLS]: series([100], [1], [1]) }),
      raw(2, {}),
      raw(3, { [CALLS]: series([300, 500], [1, 1], [1, 1]) }),
    ]);
    expect(twoOfThree).toEqual([expect.objectContaining({ runs: 2, perSecond: { median: 250, min: 100, max: 400 } })]);
  });

  it('leaves out samples written as null (NaN), and a run with none keeps out of the spread', () => {
    const [calls] = pool([
      raw(1, { [CALLS]: series([null, 300], [null, null], [1, 3]) }),
      raw(2, { [CALLS]: series([100, null], [null, null], [5, 5]) }),
      raw(3, { [CALLS]: series([null, null], [null, null], [7, 7]) }),
    ]);
    expect(calls?.perSecond).toEqual({ median: 200, min: 100, max: 300 });
    expect(calls?.p50Ms.median).toBeNaN();
    expect(calls?.p99Ms).toEqual({ median: 5, min: 2, max: 7 });
  });

  it('writes NaN as null in a raw run, and pools it back as a missing sample', () => {
    written.mockClear();
    const samples: Samples = new Map([[CALLS, { perSecond: [100, NaN, 300], p50: [NaN, NaN, NaN], p99: [1, 2, 3] }]]);
    writeRawRun('/nowhere/run-1.json', info(1), samples);
    const text = files().get('run-1.json');
    expect(text).toBeDefined();
    const back = JSON.parse(text!) as RawRun;
    expect(back.samples[CALLS]).toEqual(series([100, null, 300], [null, null, null], [1, 2, 3]));
    expect(back.loadAvgStart).toEqual([1, 1.5, 2]);
    expect(pool([back])[0]?.perSecond).toEqual({ median: 200, min: 100, max: 300 });
  });
});

describe('naming a benchmark report', () => {
  it('publishes as latest only three or more full runs; fewer, or narrowed runs, are partial', () => {
    expect(PUBLISHED_RUNS).toBe(3);
    expect(reportName(false, false, 3)).toBe('latest');
    expect(reportName(false, false, 5)).toBe('latest');
    expect(reportName(false, false, 2)).toBe('partial');
    expect(reportName(false, false, 1)).toBe('partial');
    expect(reportName(false, true, 3)).toBe('partial');
    expect(reportName(false, true, 1)).toBe('partial');
    expect(reportName(true, false, 3)).toBe('quick');
    expect(reportName(true, true, 1)).toBe('quick');
  });
});

describe('publishing pooled runs', () => {
  beforeEach(() => written.mockClear());

  it('writes the pooled figures, each run’s load and the name’s files', () => {
    const markdown = publish('latest', threeRuns());
    const out = files();
    expect([...out.keys()].sort()).toEqual(['latest.json', 'latest.md', 'latest.svg']);
    expect(out.get('latest.md')).toBe(markdown);

    const report = JSON.parse(out.get('latest.json')!) as RunReport;
    expect(report).toMatchObject({ date: '2026-01-01T00:00:00.000Z', quick: false, partial: false });
    expect(report.notice).toBeUndefined();
    expect(report.runs).toEqual([
      {
        index: 1,
        startedAt: '2026-01-01T00:00:00.000Z',
        durationMs: 420_000,
        loadAvgStart: [1, 1.5, 2],
        loadAvgEnd: [2, 0.25, 0.1],
      },
      {
        index: 2,
        startedAt: '2026-01-02T00:00:00.000Z',
        durationMs: 480_000,
        loadAvgStart: [2, 2.5, 3],
        loadAvgEnd: [4, 0.25, 0.1],
      },
      {
        index: 3,
        startedAt: '2026-01-03T00:00:00.000Z',
        durationMs: 540_000,
        loadAvgStart: [3, 3.5, 4],
        loadAvgEnd: [6, 0.25, 0.1],
      },
    ]);
    expect(report.measurements.find((m) => m.implementation === 'rxmcp')?.perSecond).toEqual({
      median: 150,
      min: 100,
      max: 210,
    });

    expect(markdown).toContain("Each figure is the median of 3 runs' own medians");
    expect(markdown).toContain(
      '| tools/call, stdio, sequential | rxmcp | 150 [100 – 210] | 2.000 [0.500 – 5.000] | 20.000 [8.000 – 50.000] |',
    );
    expect(markdown).toContain('| 2 | 2026-01-02T00:00:00.000Z | 8.0 min | 2.00 / 2.50 / 3.00 | 4.00 / 0.25 / 0.10 |');
  });

  it('marks a partial report partial and a quick one with its notice', () => {
    publish('partial', threeRuns().slice(0, 2));
    const partial = JSON.parse(files().get('partial.json')!) as RunReport;
    expect(partial).toMatchObject({ quick: false, partial: true });
    expect(partial.runs).toHaveLength(2);
    expect(files().get('partial.md')!.split('\n')[0]).toBe('# rxmcp benchmarks (partial run)');

    written.mockClear();
    publish('quick', threeRuns(true).slice(0, 1));
    const quick = JSON.parse(files().get('quick.json')!) as RunReport;
    expect(quick).toMatchObject({ quick: true, partial: true, notice: 'quick run: not for claims' });
    expect(files().get('quick.svg')).toContain('rxmcp benchmarks (quick run: not for claims)');
  });

  it('refuses to publish without a run', () => {
    expect(() => publish('latest', [])).toThrow('no run to report');
    expect(written).not.toHaveBeenCalled();
  });
});
