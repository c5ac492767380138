import { lastValueFrom, of, throwError, timer, toArray } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { closedLoop, openLoop, timedCall } from '../../lib/bench/load';
import type { CallOutcome } from '../../lib/bench/load';
import { testScheduler } from '../support/test-scheduler';

/** A server whose answers take `serviceMs`, except that every `everyMs` it stalls for `stallMs`. */
function stallingServer(serviceMs: number, everyMs: number, stallMs: number) {
  let busyUntil = 0;
  return () => {
    const now = asyncScheduler.now();
    const phase = now % everyMs;
    const stallEnds = phase >= everyMs - stallMs ? now - phase + everyMs : now;
    busyUntil = Math.max(busyUntil, stallEnds) + serviceMs;
    return timer(busyUntil - now);
  };
}

const p99 = (outcomes: readonly CallOutcome[]) => {
  const sorted = outcomes.map((o) => o.latencyMs).sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.99) - 1]!;
};

describe('timedCall', () => {
  it('times a call from its subscription to its last value', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const answer = cold('---a-b|');
      expectObservable(timedCall(() => answer, { scheduler: asyncScheduler, timeoutMs: 100, atMs: 0 })).toBe(
        '------(o|)',
        { o: { atMs: 0, latencyMs: 6 } },
      );
      expectSubscriptions(answer.subscriptions).toBe('^-----!');
    });
  });

  it('records a timeout and unsubscribes the call at its deadline', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const answer = cold('----------a|');
      expectObservable(timedCall(() => answer, { scheduler: asyncScheduler, timeoutMs: 4, atMs: 2 })).toBe('----(o|)', {
        o: { atMs: 2, latencyMs: 4, error: 'timeout' },
      });
      expectSubscriptions(answer.subscriptions).toBe('^---!');
    });
  });

  it('records a JSON-RPC error by its code and a failed tool as tool-error', async () => {
    const failing = () => throwError(() => JsonRpcError.methodNotFound('tools/call'));
    const failedTool = () => of({ type: 'result', result: { content: [], isError: true } });
    const options = { scheduler: asyncScheduler, timeoutMs: 100, atMs: 0 };
    await expect(lastValueFrom(timedCall(failing, options))).resolves.toMatchObject({ error: '-32601' });
    await expect(lastValueFrom(timedCall(failedTool, options))).resolves.toMatchObject({ error: 'tool-error' });
  });
});

describe('closedLoop', () => {
  it('keeps `concurrency` calls in flight until the duration is over, then waits for the last', () => {
    testScheduler().run(({ expectObservable }) => {
      const loop = closedLoop({ call: () => timer(10), concurrency: 2, durationMs: 25, timeoutMs: 100 });
      const o = (atMs: number) => ({ atMs, latencyMs: 10 });
      expectObservable(loop).toBe('10ms (ab) 6ms (cd) 6ms (ef|)', {
        a: o(0),
        b: o(0),
        c: o(10),
        d: o(10),
        e: o(20),
        f: o(20),
      });
    });
  });

  it('stops at maxCalls', async () => {
    const outcomes = await lastValueFrom(
      closedLoop({ call: () => of('x'), concurrency: 4, durationMs: 10_000, maxCalls: 1000, timeoutMs: 100 }).pipe(
        toArray(),
      ),
    );
    expect(outcomes).toHaveLength(1000);
  });
});

describe('openLoop', () => {
  it('starts calls at the rate whatever the answers, and counts latency from when each was due', () => {
    testScheduler().run(({ expectObservable }) => {
      // 100 calls per second: one due every 10 ms; each takes 25 ms, so three are in flight at once.
      const loop = openLoop({ call: () => timer(25), ratePerSecond: 100, durationMs: 40, timeoutMs: 100 });
      const o = (atMs: number) => ({ atMs, latencyMs: 25 });
      expectObservable(loop).toBe('25ms a 9ms b 9ms c 9ms (d|)', { a: o(0), b: o(10), c: o(20), d: o(30) });
    });
  });

  it('records due calls beyond maxInFlight as backlog rather than sending them', () => {
    testScheduler().run(({ expectObservable }) => {
      const loop = openLoop({
        call: () => timer(100),
        ratePerSecond: 1000,
        durationMs: 3,
        timeoutMs: 200,
        maxInFlight: 2,
      });
      expectObservable(loop).toBe('2ms a 97ms b 0ms (c|)', {
        a: { atMs: 2, latencyMs: 0, error: 'backlog' },
        b: { atMs: 0, latencyMs: 100 },
        c: { atMs: 1, latencyMs: 100 },
      });
    });
  });

  it('shows a stall in its p99 that a closed loop at the same throughput hides', () => {
    // 1 ms per call, and a 100 ms stall every second, over 3 s.
    testScheduler().run(({ flush }) => {
      const open: CallOutcome[] = [];
      const closed: CallOutcome[] = [];
      openLoop({ call: stallingServer(1, 1000, 100), ratePerSecond: 200, durationMs: 3000, timeoutMs: 1000 }).subscribe(
        (o) => open.push(o),
      );
      flush();
      closedLoop({ call: stallingServer(1, 1000, 100), concurrency: 1, durationMs: 3000, timeoutMs: 1000 }).subscribe(
        (o) => closed.push(o),
      );
      flush();
      expect(p99(open)).toBeGreaterThanOrEqual(50);
      expect(p99(closed)).toBeLessThanOrEqual(1);
    });
  });
});
