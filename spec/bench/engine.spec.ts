import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { runBench } from '../../lib/bench/engine';
import type { BenchEvent, BenchOptions, BenchTarget } from '../../lib/bench/engine';
import { createServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import { connected } from '../support/connected';

/** An in-memory rxmcp server with an echo tool and one resource; a fresh one per connection. */
function target(name: string): BenchTarget & { opened: number } {
  const t = {
    name,
    how: 'in memory',
    opened: 0,
    async open() {
      t.opened++;
      const server = createServer({ name, version: '1.0.0' });
      server.tool({
        name: 'echo',
        inputSchema: z.object({ text: z.string() }),
        handler: ({ text }) => textResult(text),
      });
      server.resource({ uri: 'bench://doc', name: 'doc', text: 'hello' });
      const client = await connected(server, { protocolVersion: '2025-11-25' });
      return { client, close: async () => client.close() };
    },
  };
  return t;
}

const SHORT: Omit<BenchOptions, 'targets' | 'workload' | 'load'> = {
  reps: 2,
  durationMs: 150,
  coldCalls: 20,
  warmUp: { windowMs: 50, maxMs: 300 },
};

describe('runBench', () => {
  it('interleaves the targets rep by rep, a fresh connection each, and reports each median [min-max]', async () => {
    const a = target('a');
    const b = target('b');
    const events = await lastValueFrom(
      runBench({
        ...SHORT,
        targets: [a, b],
        workload: { kind: 'tool', name: 'echo', arguments: { text: 'hi' } },
        load: { kind: 'closed', concurrency: 4 },
      }).pipe(toArray()),
    );
    const reps = events.flatMap((e) => (e.type === 'rep' ? [`${e.target}${e.rep}`] : []));
    expect(reps).toEqual(['a1', 'b1', 'b2', 'a2']);
    expect([a.opened, b.opened]).toEqual([2, 2]);
    const last = events.at(-1) as Extract<BenchEvent, { type: 'report' }>;
    expect(last.type).toBe('report');
    const [ra, rb] = last.report.targets;
    expect(ra!.served).toEqual({ tools: ['echo'], resources: ['bench://doc'], prompts: [] });
    for (const t of [ra!, rb!]) {
      expect(t.reps).toHaveLength(2);
      expect(t.summary.perSecond.median).toBeGreaterThan(0);
      expect(t.summary.perSecond.min).toBeLessThanOrEqual(t.summary.perSecond.median);
      expect(t.summary.perSecond.max).toBeGreaterThanOrEqual(t.summary.perSecond.median);
      expect(t.summary.p99Ms.median).toBeGreaterThanOrEqual(t.summary.p50Ms.median);
      expect(t.reps[0]!.cold.calls).toBe(20);
      expect(t.reps[0]!.warmUp.windows.length).toBeGreaterThan(0);
      expect(t.summary.errors).toEqual({});
      // Two repetitions are too few to quote.
      expect(t.summary.noisy).toMatch(/2 repetitions/);
    }
    expect(last.report.settings).toMatchObject({
      workload: 'tools/call echo',
      load: 'closed loop, 4 in flight',
      reps: 2,
    });
    expect(last.report.loadAvgStart).toHaveLength(3);
  });

  it('counts failed calls by code in a weighted mix', async () => {
    const report = await lastValueFrom(
      runBench({
        ...SHORT,
        reps: 1,
        targets: [target('a')],
        workload: {
          kind: 'mix',
          entries: [
            { weight: 3, operation: { kind: 'read', uri: 'bench://doc' } },
            { weight: 1, operation: { kind: 'read', uri: 'bench://missing' } },
          ],
        },
        load: { kind: 'closed', concurrency: 2 },
      }),
    );
    if (report.type !== 'report') throw new Error('no report');
    const { calls, errors } = report.report.targets[0]!.summary;
    const failed = errors['-32002'] ?? 0;
    expect(Object.keys(errors)).toEqual(['-32002']);
    expect(failed / calls).toBeGreaterThan(0.15);
    expect(failed / calls).toBeLessThan(0.35);
  });

  it('fails before any load when a target does not serve the tool, naming what it serves', async () => {
    await expect(
      firstValueFrom(
        runBench({
          ...SHORT,
          targets: [target('a')],
          workload: { kind: 'tool', name: 'nope' },
          load: { kind: 'closed', concurrency: 1 },
        }).pipe(toArray()),
      ),
    ).rejects.toThrow('a serves no tool "nope" (it serves: echo)');
  });

  it('spreads calls over --sessions connections, and opens one per call under churn', async () => {
    const spread = target('a');
    const many = await lastValueFrom(
      runBench({
        ...SHORT,
        reps: 1,
        sessions: 5,
        targets: [spread],
        workload: { kind: 'ping' },
        load: { kind: 'closed', concurrency: 5 },
      }),
    );
    expect(spread.opened).toBe(5);
    if (many.type !== 'report') throw new Error('no report');
    expect(many.report.targets[0]!.summary.calls).toBeGreaterThan(0);

    const churned = target('b');
    const churn = await lastValueFrom(
      runBench({
        ...SHORT,
        reps: 1,
        churn: true,
        targets: [churned],
        workload: { kind: 'ping' },
        load: { kind: 'closed', concurrency: 2 },
      }),
    );
    if (churn.type !== 'report') throw new Error('no report');
    const rep = churn.report.targets[0]!.reps[0]!;
    // One connection to ask what it serves, then one per call of every phase.
    expect(churned.opened).toBe(1 + rep.cold.calls + rep.warmUp.calls + rep.steady.calls);
    expect(churn.report.targets[0]!.summary.errors).toEqual({});
  });

  it('gives a server that lacks the tool at first a moment to add it, as a gateway whose upstreams are joining', async () => {
    const late: BenchTarget = {
      name: 'late',
      how: 'in memory',
      async open() {
        const server = createServer({ name: 'late', version: '1.0.0' });
        server.tool({ name: 'early', handler: () => textResult('early') });
        const client = await connected(server, { protocolVersion: '2025-11-25' });
        setTimeout(() => server.tool({ name: 'joined', handler: () => textResult('joined') }), 400);
        return { client, close: async () => client.close() };
      },
    };
    const last = await lastValueFrom(
      runBench({
        ...SHORT,
        reps: 1,
        targets: [late],
        workload: { kind: 'tool', name: 'joined' },
        load: { kind: 'closed', concurrency: 1 },
      }),
    );
    if (last.type !== 'report') throw new Error('no report');
    expect(last.report.targets[0]!.served.tools).toEqual(['early', 'joined']);
    expect(last.report.targets[0]!.summary.errors).toEqual({});
  });
});
