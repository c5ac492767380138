/**
 * One side of the in-memory proxy rows in a process of its own: the client, the proxy (plain or
 * policed, or none) and the server, all in this process, warmed up and then timed, each
 * measurement printed as one JSON line (a `Sample`, with the CPU time a call cost this process,
 * `cpuMicros`). A gateway process runs one configuration: with the three sides in one process,
 * the compiler sees three at every shared call site, and each side's figure then carries the
 * others' shapes.
 *
 *   node dist/benchmarks/proxy-side.js <direct|proxied|policed> <in flight> <warm-up calls> <warm-up ms> <calls> <ms> <rounds>
 *
 * With 0 rounds, the process takes turns (see proxy-turns.ts): it prints `ready` once warmed up,
 * then measures once for each `go` line on its standard input, and closes at `stop`.
 */
import { createInterface } from 'node:readline';
import { proxyHarness } from './proxy-cost';
import type { ProxySide } from './proxy-cost';
import { timeCalls } from './timing';
import type { CallHarness } from './workload';

const SIDES: readonly ProxySide[] = ['direct', 'proxied', 'policed'];

/** One measurement of `calls` (at least) for `ms` (at least), as a JSON line. */
async function measure(harness: CallHarness, inFlight: number, calls: number, ms: number): Promise<string> {
  const used = process.cpuUsage();
  const timing = await timeCalls(calls, ms, inFlight, harness.call);
  const cpu = process.cpuUsage(used);
  const { perSecond, p50, p99 } = timing;
  const cpuMicros = (cpu.user + cpu.system) / timing.calls;
  return `${JSON.stringify({ perSecond, p50, p99, cpuMicros })}\n`;
}

async function main(): Promise<void> {
  const [side, ...numbers] = process.argv.slice(2);
  const [inFlight, warmupCalls, warmupMs, calls, ms, rounds] = numbers.map(Number);
  if (!SIDES.includes(side as ProxySide) || rounds === undefined || numbers.some((n) => !(Number(n) >= 0)))
    throw new Error(
      'usage: proxy-side <direct|proxied|policed> <in flight> <warm-up calls> <warm-up ms> <calls> <ms> <rounds>',
    );
  const harness = await proxyHarness('in-memory', side as ProxySide);
  await timeCalls(warmupCalls!, warmupMs!, inFlight!, harness.call);
  if (rounds > 0) {
    for (let round = 0; round < rounds; round++) process.stdout.write(await measure(harness, inFlight!, calls!, ms!));
  } else {
    process.stdout.write('ready\n');
    for await (const line of createInterface({ input: process.stdin })) {
      if (line !== 'go') break;
      process.stdout.write(await measure(harness, inFlight!, calls!, ms!));
    }
  }
  await harness.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
