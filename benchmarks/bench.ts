/**
 * `npm run bench`: the full benchmark run three times, each a fresh `node dist/benchmarks/run.js`
 * process writing its raw samples to benchmarks/results/runs/run-<i>.json (not published), then
 * pooled: each figure is the median of the runs' own medians, with [min – max] of those, and the
 * machine's load as each run started and ended. Writes benchmarks/results/latest.{md,json,svg}.
 *
 * A full `npm run bench` takes about 45 minutes on a 2-core machine (three runs of 16 to 19 minutes
 * on 2026-11-29, load average 3 to 7, before the cold processes were capped at 8 s of calls): the
 * servers in processes of their own are warmed up with 5,000 calls (or 6 s) per measurement, which
 * the slow implementations spend in full, and the cold rows start a fresh process per measurement.
 *
 *   node dist/benchmarks/bench.js [--runs=3] [--quick] [--only=...] [--transports=...]
 *
 * `--runs=N` changes the count; `--only=` and `--transports=` (passed to each run) and fewer than
 * three full runs write `partial.*`. `--quick` (`npm run bench:quick`) is one short run by default
 * (`--runs=N` pools N short runs, to try the pooling) and writes `quick.*`, marked "quick run: not
 * for claims".
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PUBLISHED_RUNS, publish, rawFile, reportName, RUNS_DIR } from './publish';
import { readRawRun } from './samples';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runsArgument = args.find((a) => a.startsWith('--runs='));
const runs = runsArgument ? Number(runsArgument.slice('--runs='.length)) : quick ? 1 : PUBLISHED_RUNS;
const passed = args.filter((a) => a !== runsArgument);
const narrowed = passed.some((a) => a.startsWith('--only=') || a.startsWith('--transports='));

function log(line: string) {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

function main(): void {
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a count, not ${runsArgument}`);
  const name = reportName(quick, narrowed, runs);
  const files = Array.from({ length: runs }, (_, i) => rawFile(name, i + 1));
  // Samples of an earlier invocation with more runs are not pooled with these: remove them.
  const prefix = `${name === 'latest' ? '' : `${name}-`}run-`;
  for (const file of readdirSync(RUNS_DIR)) {
    if (file.startsWith(prefix) && !files.includes(join(RUNS_DIR, file))) rmSync(join(RUNS_DIR, file));
  }
  const started = performance.now();
  files.forEach((file, i) => {
    log(`run ${i + 1} of ${runs}`);
    const run = spawnSync(process.execPath, [join(__dirname, 'run.js'), ...passed, `--raw=${file}`, `--run=${i + 1}`], {
      stdio: 'inherit',
    });
    if (run.status !== 0) throw new Error(`run ${i + 1} failed (${run.status ?? run.signal})`);
  });
  process.stdout.write(publish(name, files.map(readRawRun)));
  log(`${runs} run${runs === 1 ? '' : 's'} in ${((performance.now() - started) / 60_000).toFixed(1)} min`);
}

main();
