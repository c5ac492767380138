/** The options of a benchmark run, read from the command line, and what follows from them. */
import { IMPLEMENTATIONS } from './implementations';
import type { CallTransport, Implementation } from './workload';
import { listArg, numberArg } from './args';

const args = process.argv.slice(2);

export const quick = args.includes('--quick');
/** Which run of `npm run bench` this is (1 when run alone): the order of the implementations starts from it. */
export const RUN_INDEX = numberArg('run', 1);
const only = listArg('only');
const transports = listArg('transports');
/** Only some workloads or transports: the report is `partial`. */
export const narrowed = only !== undefined || transports !== undefined;
export const wanted = (workload: string): boolean => !only || only.includes(workload);

/**
 * Counts per connection (`warmup`, `calls`, scaled per transport below) and the least time each
 * phase lasts (`warmupMs`, `measureMs`), whatever the count; a phase ends at the count or at
 * `maxMs`, whichever comes first, once its least time has passed. A fresh connection (and a fresh
 * server process) spends its first few hundred milliseconds compiling its hot functions and growing
 * its heap; 64 calls in flight over stdio finish 10,000 calls in under 0.1 s, so without a time
 * floor their p99 would measure that start-up rather than the cost of a call. Every implementation
 * gets the same phases. A server in a process of its own (every transport but in-memory) is new for
 * each measurement, and its code is compiled as it runs: over Streamable HTTP rxmcp needs some
 * thousands of calls to reach the steady state a long-running server is in (after 300 calls its
 * median call took 0.77 ms, after 20,000 0.125 ms). So there the warm-up lasts `processWarmup`
 * calls, unscaled, or `processWarmupMaxMs` for an implementation too slow to make them. `repetitions` is per run (`npm run bench` pools three runs) for the call,
 * 1 MB and fan-out rows; `longRepetitions` for the rows whose measurements take long (1,000
 * sessions opened, a fresh process each, server processes behind a proxy or a cluster): the scale,
 * memory, proxy and cluster rows, where the runs' alternating order does the interleaving.
 */
export const SETTINGS = quick
  ? {
      repetitions: 2,
      longRepetitions: 1,
      calls: 2_000,
      warmup: 1_000,
      processWarmup: 1_000,
      processWarmupMaxMs: 1_000,
      warmupMs: 100,
      measureMs: 0,
      maxMs: 1_000,
      largeCalls: 20,
      sessions: 200,
      opened: 200,
      fanOutClients: 100,
      fanOutUpdates: 50,
      loadRuns: 3,
      scale: '1,10,100,1000',
    }
  : {
      repetitions: 2,
      longRepetitions: 1,
      calls: 20_000,
      warmup: 3_000,
      processWarmup: 5_000,
      processWarmupMaxMs: 6_000,
      warmupMs: 1_000,
      measureMs: 1_000,
      maxMs: 2_000,
      largeCalls: 100,
      sessions: 1_000,
      opened: 1_000,
      fanOutClients: 100,
      fanOutUpdates: 500,
      loadRuns: 7,
      scale: '1,10,100,1000',
    };

/** Concurrent sessions of the scale rows. */
export const SCALE_SESSIONS: readonly number[] = SETTINGS.scale.split(',').map(Number);

/** Calls per measurement, scaled to what each transport does in a few seconds. */
export const CALL_SCALE: Readonly<Record<CallTransport, number>> = {
  'in-memory': 1,
  stdio: 0.5,
  'http-stateful': 0.1,
  'http-stateless': 0.1,
  'http-2026': 0.1,
};

export const CALL_TRANSPORTS: readonly CallTransport[] = (
  ['in-memory', 'stdio', 'http-stateful', 'http-stateless', 'http-2026'] as const
).filter((transport) => !transports || transports.includes(transport));

/** The scale rows' transports (those of them asked for). */
export const SCALE_TRANSPORTS: readonly CallTransport[] = (['http-stateful', 'http-2026'] as const).filter(
  (transport) => !transports || transports.includes(transport),
);

/**
 * `items` in order or reversed, alternating between repetitions and between runs (so that machine
 * noise hits each alike).
 */
export function alternating<T>(repetition: number, items: readonly T[]): readonly T[] {
  return (repetition + RUN_INDEX - 1) % 2 === 0 ? items : [...items].reverse();
}

/** The implementations in the order of {@link alternating}. */
export function inOrder(repetition: number): readonly Implementation[] {
  return alternating(repetition, IMPLEMENTATIONS);
}

export function log(line: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}
