import { lastValueFrom, Observable } from 'rxjs';
import { runSweep, kneeOf } from '../../lib/bench/sweep';
import type { BenchTarget } from '../../lib/bench/engine';
import { createServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import { formatTable } from '../../lib/bench/table';
import { connected } from '../support/connected';

/** A server that works on at most `slots` calls at once, 10 ms each; the others wait their turn. */
function limitedTarget(slots: number): BenchTarget {
  return {
    name: 'limited',
    how: 'in memory',
    async open() {
      const server = createServer({ name: 'limited', version: '1.0.0' });
      let busy = 0;
      const waiting: Array<() => void> = [];
      const release = () => {
        busy--;
        waiting.shift()?.();
      };
      server.tool({
        name: 'work',
        handler: () =>
          new Observable<ReturnType<typeof textResult>>((subscriber) => {
            const start = () => {
              busy++;
              setTimeout(() => {
                release();
                subscriber.next(textResult('done'));
                subscriber.complete();
              }, 10);
            };
            if (busy < slots) start();
            else waiting.push(start);
          }),
      });
      const client = await connected(server, { protocolVersion: '2025-11-25' });
      return { client, close: async () => client.close() };
    },
  };
}

describe('kneeOf', () => {
  it('is the last concurrency whose step gained at least 10 % per doubling', () => {
    const points = [1, 2, 4, 8, 16].map((concurrency) => ({ concurrency, perSecond: Math.min(concurrency, 4) * 100 }));
    expect(kneeOf(points)).toBe(4);
    expect(
      kneeOf([
        { concurrency: 1, perSecond: 100 },
        { concurrency: 4, perSecond: 120 },
      ]),
    ).toBe(1);
    expect(
      kneeOf([
        { concurrency: 1, perSecond: 100 },
        { concurrency: 4, perSecond: 122 },
      ]),
    ).toBeUndefined();
  });
});

describe('runSweep', () => {
  it('measures each concurrency in turn and finds where throughput stops growing', async () => {
    const last = await lastValueFrom(
      runSweep(
        {
          targets: [limitedTarget(4)],
          workload: { kind: 'tool', name: 'work' },
          // Three repetitions: a moment of the machine's noise moves one, not the median.
          reps: 3,
          durationMs: 150,
          coldCalls: 5,
          warmUp: { windowMs: 50, maxMs: 100 },
        },
        [1, 2, 4, 16],
      ),
    );
    if (last.type !== 'report') throw new Error('no report');
    const { report } = last;
    expect(report.targets.map((t) => t.name)).toEqual(['limited ×1', 'limited ×2', 'limited ×4', 'limited ×16']);
    const rates = report.targets.map((t) => t.summary.perSecond.median);
    expect(rates[1]! / rates[0]!).toBeGreaterThan(1.6);
    // Past 4, the calls only queue: quadrupling them gains less than 10 % per doubling.
    expect(rates[3]! / rates[2]!).toBeLessThan(1.21);
    expect(report.knees).toEqual({ limited: 4 });
    expect(report.settings.load).toBe('closed loops of 1, 2, 4, 16 in flight');
    expect(formatTable(report)).toMatch(/^limited: the knee is at 4 in flight/m);
  });
});
