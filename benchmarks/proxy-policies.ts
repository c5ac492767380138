/**
 * What a production gateway's policies and metrics cost the proxy (issue #39): the same
 * `tools/call` through `proxy()` in memory, plain and `policed` (a rate limit, a concurrency cap
 * and a tool policy per verified caller, and every request counted for `/metrics`), with 1 and 64
 * calls in flight. The two sides stay open and take turns, round after round; each side's figure
 * is the median of its rounds, and the ratio is policed over plain (target: at least 0.9).
 *
 *   npx tsc -p tsconfig.bench.json && node dist/benchmarks/proxy-policies.js [--rounds=7] [--ms=1000]
 */
import { proxyHarness } from './proxy-cost';
import type { ProxySide } from './proxy-cost';
import type { CallHarness } from './workload';

const arg = (name: string, fallback: number): number => {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`));
  return given === undefined ? fallback : Number(given.slice(name.length + 3));
};
const ROUNDS = arg('rounds', 7);
const MEASURE_MS = arg('ms', 1000);

/** Calls per second: `inFlight` loops calling `call` for `ms`. */
async function throughput(call: () => Promise<unknown>, inFlight: number, ms: number): Promise<number> {
  let done = 0;
  const start = performance.now();
  const end = start + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await call();
        done++;
      }
    }),
  );
  return (done / (performance.now() - start)) * 1000;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  const sides: readonly ProxySide[] = ['proxied', 'policed'];
  const lines: string[] = [];
  for (const inFlight of [1, 64]) {
    const harnesses = new Map<ProxySide, CallHarness>();
    for (const side of sides) harnesses.set(side, await proxyHarness('in-memory', side));
    // Warm up both, so that neither measures the compiler.
    for (const side of sides) await throughput(harnesses.get(side)!.call, inFlight, MEASURE_MS);
    const figures = new Map<ProxySide, number[]>(sides.map((side) => [side, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order)
        figures.get(side)!.push(await throughput(harnesses.get(side)!.call, inFlight, MEASURE_MS));
    }
    for (const harness of harnesses.values()) await harness.close();
    const plain = median(figures.get('proxied')!);
    const policed = median(figures.get('policed')!);
    lines.push(
      `proxy in-memory, ${String(inFlight).padStart(2)} in flight: plain ${plain.toFixed(0)}/s, policed ${policed.toFixed(0)}/s, ratio ${(policed / plain).toFixed(3)}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
