/**
 * One cold measurement, in a process of its own (started by cold.ts): connects one implementation's
 * client to a fresh server over one transport (the server in this process in memory, in a child
 * process otherwise), makes one `tools/call`, says so on stdout at once, then makes the next calls
 * one at a time and reports how fast the first 1,000 and the first 5,000 went. Nothing of it ran
 * before in this process: this is what a short-lived CLI, a serverless instance or a new session
 * sees, while V8 still runs the code in its lower tiers.
 *
 *   node dist/benchmarks/cold-client.js <implementation> <transport>
 */
import { performance } from 'node:perf_hooks';
import { COLD_MARKS, COLD_MAX_MS } from './cold-marks';
import type { ColdReport } from './cold-marks';
import type * as Floor from './impl/floor';
import type * as Official from './impl/official';
import type * as OfficialV2 from './impl/official-v2';
import type * as Rxmcp from './impl/rxmcp';
import type { CallTransport, Implementation } from './workload';

/** Loads only the implementation measured: another's modules would be load time of no one's. */
function implementation(name: string): Implementation {
  /* eslint-disable @typescript-eslint/no-require-imports */
  switch (name) {
    case 'rxmcp':
      return (require('./impl/rxmcp') as typeof Rxmcp).rxmcp;
    case 'official':
      return (require('./impl/official') as typeof Official).official;
    case 'official-v2':
      return (require('./impl/official-v2') as typeof OfficialV2).officialV2;
    case 'floor':
      return (require('./impl/floor') as typeof Floor).floor;
    default:
      throw new Error(`unknown implementation ${name}`);
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
}

async function main(): Promise<void> {
  const [name, transport] = process.argv.slice(2) as [string, CallTransport];
  const harness = await implementation(name).connect(transport);
  try {
    await harness.call();
    process.stdout.write('first\n');
    const perSecond: Record<string, number> = {};
    const durations: number[] = [];
    const started = performance.now();
    for (let n = 1; n <= COLD_MARKS[COLD_MARKS.length - 1]!; n++) {
      const before = performance.now();
      await harness.call();
      const now = performance.now();
      if (n <= COLD_MARKS[0]) durations.push(now - before);
      const rate = (n / (now - started)) * 1000;
      if ((COLD_MARKS as readonly number[]).includes(n)) perSecond[n] = rate;
      // An implementation this slow is timed over what it made in COLD_MAX_MS (the marks it missed
      // get that rate): its first calls are all it will show of its cold path anyway.
      if (now - started > COLD_MAX_MS) {
        for (const m of COLD_MARKS) perSecond[m] ??= rate;
        break;
      }
    }
    durations.sort((a, b) => a - b);
    const report: ColdReport = { perSecond, p50Ms: durations[Math.floor(durations.length / 2)]! };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await harness.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
