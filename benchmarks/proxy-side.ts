/**
 * One side of the in-memory proxy rows in a process of its own: the client, the proxy (plain or
 * policed, or none) and the server, all in this process, warmed up and then timed for `rounds`
 * measurements, each printed as one JSON line (a `Sample`, with the CPU time a call cost this
 * process, `cpuMicros`). A gateway process runs one
 * configuration: with the three sides in one process, the compiler sees three at every shared call
 * site, and each side's figure then carries the others' shapes.
 *
 *   node dist/benchmarks/proxy-side.js <direct|proxied|policed> <in flight> <warm-up calls> <warm-up ms> <calls> <ms> <rounds>
 */
import { proxyHarness } from './proxy-cost';
import type { ProxySide } from './proxy-cost';
import { timeCalls } from './timing';

const SIDES: readonly ProxySide[] = ['direct', 'proxied', 'policed'];

async function main(): Promise<void> {
  const [side, ...numbers] = process.argv.slice(2);
  const [inFlight, warmupCalls, warmupMs, calls, ms, rounds] = numbers.map(Number);
  if (!SIDES.includes(side as ProxySide) || rounds === undefined || numbers.some((n) => !(Number(n) >= 0)))
    throw new Error(
      'usage: proxy-side <direct|proxied|policed> <in flight> <warm-up calls> <warm-up ms> <calls> <ms> <rounds>',
    );
  const harness = await proxyHarness('in-memory', side as ProxySide);
  await timeCalls(warmupCalls!, warmupMs!, inFlight!, harness.call);
  for (let round = 0; round < rounds; round++) {
    const used = process.cpuUsage();
    const timing = await timeCalls(calls!, ms!, inFlight!, harness.call);
    const cpu = process.cpuUsage(used);
    const { perSecond, p50, p99 } = timing;
    const cpuMicros = (cpu.user + cpu.system) / timing.calls;
    process.stdout.write(`${JSON.stringify({ perSecond, p50, p99, cpuMicros })}\n`);
  }
  await harness.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
