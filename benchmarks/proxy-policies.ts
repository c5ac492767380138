/**
 * What a production gateway's policies and metrics cost the proxy (issue #39): the same
 * `tools/call` through `proxy()`, plain and `policed` (a rate limit, a concurrency cap and a tool
 * policy per verified caller, and every request counted for `/metrics`), with 1 and 64 calls in
 * flight, in memory (nothing but the proxy's own work is timed: the worst case) and from stdio to
 * HTTP (a proxy process between a client and a server process, as a gateway runs). Each side's
 * figure is the median of its measurements, and the ratio is policed over plain (target: at least
 * 0.9), given with the spread of the ratios of measurements taken in the same turn.
 *
 * In memory, each side runs in a process of its own, as a gateway runs one configuration (see
 * proxy-side.ts), and the two processes take turns, `--turn-ms` each (proxy-turns.ts): what the
 * machine does meanwhile falls on both alike. Each measurement is timed by the wall clock (calls
 * per second) and by the CPU time the process used (calls per CPU second). Processes of one code
 * differ (each compiles the shared code its own way): `--processes=N` runs N sets of them, one
 * after another, `--turns` measurements per side each. From stdio to HTTP, the two sides stay open
 * in this process and take turns, `--rounds` of `--ms` each.
 *
 *   npm run build:bench && node dist/benchmarks/proxy-policies.js [--processes=3] [--turns=12]
 *     [--turn-ms=250] [--rounds=7] [--ms=1000] [--only=in-memory,stdio-to-http]
 */
import { cpuOfProcess } from './process-cpu';
import { PROXY_TRANSPORTS, proxyHarness } from './proxy-cost';
import type { ProxyHarness, ProxySide } from './proxy-cost';
import { inTurns } from './proxy-turns';
import type { SideSample } from './proxy-turns';
import { listArg, numberArg } from './args';

const ROUNDS = numberArg('rounds', 7);
const MEASURE_MS = numberArg('ms', 1000);

/**
 * One round's figures: calls per second of the wall clock, and per second of this process's CPU
 * time; from stdio to HTTP, also per second of the proxy process's CPU time (`gateway`: what one
 * gateway process can serve), where /proc has it.
 */
interface Figure {
  readonly wall: number;
  readonly cpu: number;
  readonly gateway?: number;
}

/** Calls per second: `inFlight` loops calling `call` for `ms`; `frontPid` is the proxy process's. */
async function throughput(
  call: () => Promise<unknown>,
  inFlight: number,
  ms: number,
  frontPid?: number,
): Promise<Figure> {
  let done = 0;
  const start = performance.now();
  const used = process.cpuUsage();
  const frontBefore = cpuOfProcess(frontPid);
  const end = start + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await call();
        done++;
      }
    }),
  );
  const cpu = process.cpuUsage(used);
  const frontAfter = cpuOfProcess(frontPid);
  const front = frontBefore === undefined || frontAfter === undefined ? undefined : frontAfter - frontBefore;
  return {
    wall: (done / (performance.now() - start)) * 1000,
    cpu: (done / (cpu.user + cpu.system)) * 1e6,
    ...(front === undefined || front === 0 ? {} : { gateway: (done / front) * 1e6 }),
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Processes per side in memory, one set after another. */
const PROCESSES = numberArg('processes', 3);
/** Measurements per side by each set of processes, and the length of each (in memory). */
const TURNS = numberArg('turns', 12);
const TURN_MS = numberArg('turn-ms', 250);

const figureOf = (sample: SideSample): Figure => ({ wall: sample.perSecond, cpu: 1e6 / sample.cpuMicros });

/**
 * Both sides in memory, each in processes of its own (a gateway runs one configuration):
 * `PROCESSES` sets of one process per side, each set measuring its sides in turns (proxy-turns.ts).
 */
async function apart(inFlight: number): Promise<Map<ProxySide, Figure[]>> {
  const figures = new Map<ProxySide, Figure[]>(SIDES.map((side) => [side, []]));
  for (let set = 0; set < PROCESSES; set++) {
    const order = set % 2 === 0 ? SIDES : [...SIDES].reverse();
    const settings = { inFlight, warmupCalls: 1000, warmupMs: MEASURE_MS, calls: 1, ms: TURN_MS };
    for (const [side, samples] of await inTurns(order, TURNS, settings))
      figures.get(side)!.push(...samples.map(figureOf));
  }
  return figures;
}

/** Both sides over `transport`'s harnesses, open together and taking turns. */
async function alongside(
  transport: (typeof PROXY_TRANSPORTS)[number],
  inFlight: number,
): Promise<Map<ProxySide, Figure[]>> {
  const harnesses = new Map<ProxySide, ProxyHarness>();
  for (const side of SIDES) harnesses.set(side, await proxyHarness(transport, side));
  // Warm up both, so that neither measures the compiler (across processes, some thousand calls).
  for (const side of SIDES) await throughput(harnesses.get(side)!.call, inFlight, MEASURE_MS * 4);
  const figures = new Map<ProxySide, Figure[]>(SIDES.map((side) => [side, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order)
      figures
        .get(side)!
        .push(await throughput(harnesses.get(side)!.call, inFlight, MEASURE_MS, harnesses.get(side)!.frontPid));
  }
  for (const harness of harnesses.values()) await harness.close();
  return figures;
}

const SIDES: readonly ProxySide[] = ['proxied', 'policed'];

async function main(): Promise<void> {
  if (!Number.isInteger(PROCESSES) || PROCESSES < 1) throw new Error('--processes wants a count of at least 1');
  const lines: string[] = [];
  const only = listArg('only');
  const transports = PROXY_TRANSPORTS.filter((transport) => only?.includes(transport) ?? true);
  for (const [transport, inFlight] of transports.flatMap((t) => [1, 64].map((n) => [t, n] as const))) {
    const figures = transport === 'in-memory' ? await apart(inFlight) : await alongside(transport, inFlight);
    const [plain, policed] = [figures.get('proxied')!, figures.get('policed')!];
    const of = (kind: keyof Figure) => {
      const value = (f: Figure) => f[kind] ?? NaN;
      const ratio = median(policed.map(value)) / median(plain.map(value));
      const rounds = policed.map((f, round) => value(f) / value(plain[round]!));
      const spread = `${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)}`;
      return `plain ${median(plain.map(value)).toFixed(0)}/s, policed ${median(policed.map(value)).toFixed(0)}/s, ratio ${ratio.toFixed(3)} (rounds ${spread})`;
    };
    // Across processes, this process's CPU time is the client's alone: not a figure of the proxy;
    // the proxy process's own CPU time is, where /proc has it.
    const cpu =
      transport === 'in-memory'
        ? `; cpu ${of('cpu')}`
        : plain.every((f) => f.gateway !== undefined) && policed.every((f) => f.gateway !== undefined)
          ? `; per CPU second of the proxy process ${of('gateway')}`
          : '';
    lines.push(`proxy ${transport}, ${String(inFlight).padStart(2)} in flight: wall ${of('wall')}${cpu}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
