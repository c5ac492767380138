/**
 * What the gateway's policies and metrics cost the in-memory proxy, counted in machine
 * instructions rather than timed: on a machine whose speed moves by 10 to 20% from one second to
 * the next, a ratio of two timings cannot show a change of a few percent, and a count of the
 * instructions a call runs can. Each side (plain `proxy()`, and policed: see proxy-cost.ts) runs in
 * a fresh process under Valgrind (`cachegrind` without its cache simulation), once for a short run
 * and once for a long one, with V8 made as repeatable as it gets (`--predictable`: one thread, the
 * collector included, and fixed seeds); the difference of the two counts, over the difference of
 * the calls, is what a call costs once the process is warmed up (start-up and most compiling fall
 * in both runs alike). Each side is counted `--repeats` times: a call's cost is read from the
 * fewest instructions of each length (what one process runs once, a function deoptimized and
 * compiled again, only adds), and the spread of the pairs is what V8's choices and timers move.
 *
 * Needs `valgrind` (Debian: `apt-get install valgrind`); runs for some minutes on two cores.
 *
 *   npm run build:bench && node dist/benchmarks/proxy-instructions.js [--repeats=3] [--in-flight=64]
 *     [--short=30000] [--long=150000]
 */
import { execFileSync, spawn } from 'node:child_process';
import { proxyHarness } from './proxy-cost';
import type { ProxySide } from './proxy-cost';
import { spread } from './stats';
import { numberArg } from './args';

/** In a child: makes `calls` calls with `inFlight` at a time through the side's harness, then exits. */
async function child(side: ProxySide, calls: number, inFlight: number): Promise<void> {
  const harness = await proxyHarness('in-memory', side);
  let left = calls;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left-- > 0) await harness.call();
    }),
  );
  await harness.close();
}

/** The instructions a process making `calls` calls ran, as cachegrind counts them. */
function instructions(side: ProxySide, calls: number, inFlight: number): Promise<number> {
  const args = [
    '--tool=cachegrind',
    '--cache-sim=no',
    '--cachegrind-out-file=/dev/null',
    process.execPath,
    '--predictable',
    '--hash-seed=1',
    '--random-seed=1',
    __filename,
    '--child',
    side,
    String(calls),
    String(inFlight),
  ];
  return new Promise((resolve, reject) => {
    const valgrind = spawn('valgrind', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let report = '';
    valgrind.stderr.on('data', (chunk: Buffer) => (report += chunk.toString()));
    valgrind.on('error', reject);
    valgrind.on('exit', (code) => {
      const counted = /I\s+refs:\s+([\d,]+)/.exec(report);
      if (code !== 0 || counted === null) reject(new Error(`valgrind ${side} ${calls}: exit ${code}\n${report}`));
      else resolve(Number(counted[1]!.replace(/,/g, '')));
    });
  });
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    const [side, calls, inFlight] = process.argv.slice(3);
    await child(side as ProxySide, Number(calls), Number(inFlight));
    return;
  }
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('proxy-instructions needs valgrind (Debian: apt-get install valgrind)');
  }
  const repeats = numberArg('repeats', 3);
  const inFlight = numberArg('in-flight', 64);
  const [short, long] = [numberArg('short', 30_000), numberArg('long', 150_000)];
  /** Each side's counts: of its short runs, and of its long ones. */
  const counted = new Map<ProxySide, { few: number[]; many: number[] }>([
    ['proxied', { few: [], many: [] }],
    ['policed', { few: [], many: [] }],
  ]);
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const [side, { few, many }] of counted) {
      // The short and the long run of a side at once: one core each.
      const [shortCount, longCount] = await Promise.all([
        instructions(side, short, inFlight),
        instructions(side, long, inFlight),
      ]);
      few.push(shortCount);
      many.push(longCount);
      process.stderr.write(`${side}: ${Math.round((longCount - shortCount) / (long - short))} instructions a call\n`);
    }
  }
  // What a process runs once (a deoptimized function compiled again, a collection that falls in one
  // run only) only adds to its count: the fewest of each length are the runs it spared, and a
  // call's cost is read from those. The pairs' own figures show how far one-off work moves one.
  const perCall = (side: ProxySide) => {
    const { few, many } = counted.get(side)!;
    const pairs = spread(few.map((count, index) => (many[index]! - count) / (long - short)));
    return { figure: (Math.min(...many) - Math.min(...few)) / (long - short), ...pairs };
  };
  const [plain, policed] = [perCall('proxied'), perCall('policed')];
  const range = ({ min, max }: { min: number; max: number }) => `${Math.round(min)}–${Math.round(max)}`;
  process.stdout.write(
    `proxy in-memory, ${inFlight} in flight, instructions a call: plain ${Math.round(plain.figure)} ` +
      `(pairs ${range(plain)}), policed ${Math.round(policed.figure)} (pairs ${range(policed)}); ` +
      `the policies and metrics add ${Math.round(policed.figure - plain.figure)} ` +
      `(${((policed.figure / plain.figure - 1) * 100).toFixed(1)}%), plain over policed ` +
      `${(plain.figure / policed.figure).toFixed(3)}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
