/**
 * Where the time of a `tools/call` goes, client and server, for rxmcp, the official SDK 1.32 and
 * v2 and the floor: CPU profiles of a steady-state run (after the same warm-up as `run.ts`), summed
 * by self time into categories and per call. The client is this process (profiled through the
 * inspector); the server process (every transport but in-memory) is started with `--cpu-prof`, and
 * only its samples taken while the measured calls ran are counted (both processes read the same
 * monotonic clock). Writes
 * benchmarks/results/profile-<transport>-<in flight>.md.
 *
 *   node dist/benchmarks/profile.js [--transport=stdio] [--in-flight=1] [--calls=20000]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { IMPLEMENTATIONS } from './implementations';
import { timeCalls } from './timing';
import type { CallTransport, Implementation } from './workload';
import { numberArg, stringArg } from './args';

const transport = (stringArg('transport') ?? 'stdio') as CallTransport;
const inFlight = numberArg('in-flight', 1);
const calls = numberArg('calls', 20000);
const WARMUP_MS = 1_000;
/** Sampling interval of both profiles, µs (Node's default is 1,000). */
const SAMPLE_US = 100;

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

/** The parts of a `.cpuprofile` read here. */
interface CpuProfile {
  readonly nodes: ReadonlyArray<{ readonly id: number; readonly callFrame: CallFrame }>;
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const CATEGORIES = [
  'SDK and its libraries',
  'harness',
  'Node and V8 built-ins',
  'garbage collection',
  'start-up',
  'other',
  'idle',
] as const;
type Category = (typeof CATEGORIES)[number];

const START_UP = new Set([
  'wrapSafe',
  'compileForInternalLoader',
  'readFileUtf8',
  'internalModuleStat',
  'lstat',
  'realpathSync',
  'readPackage',
]);

function categorize(frame: CallFrame): Category {
  const { functionName: name, url } = frame;
  if (name === '(idle)') return 'idle';
  if (name === '(garbage collector)') return 'garbage collection';
  if (START_UP.has(name) || url.startsWith('node:internal/modules') || url.includes('source_map')) return 'start-up';
  if (url.includes('/dist/lib/') || url.includes('/node_modules/')) return 'SDK and its libraries';
  if (url.includes('/dist/benchmarks/')) return 'harness';
  // Node's own code, and native frames without a script (writeUtf8String is the write to the pipe).
  if (url.startsWith('node:') || (url === '' && !name.startsWith('('))) return 'Node and V8 built-ins';
  return 'other';
}

/** Self time in µs by category and by function, counting only samples taken in [from, to] (µs, monotonic). */
function summarize(profile: CpuProfile, from = -Infinity, to = Infinity) {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byCategory = new Map<Category, number>(CATEGORIES.map((c) => [c, 0]));
  const byFunction = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) return;
    const frame = frames.get(id)!;
    const category = categorize(frame);
    byCategory.set(category, byCategory.get(category)! + delta);
    if (category === 'idle') return;
    const where = frame.url
      ? `${frame.url.replace(/^.*\/(node_modules|dist)\//, '')}:${frame.lineNumber + 1}`
      : 'native';
    const key = `${frame.functionName || '(anonymous)'} (${where})`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + delta);
  });
  return { byCategory, byFunction };
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((done, fail) =>
    session.post(method, params, (error, result) => (error ? fail(error) : done(result as T))),
  );
}

/** The server writes its profile as it exits, which may come a little after the client sees it close. */
async function serverProfile(dir: string): Promise<CpuProfile | undefined> {
  for (let waited = 0; waited < 5_000; waited += 50) {
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (file) {
      try {
        return JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
      } catch {
        // Still being written.
      }
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  return undefined;
}

const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

async function profileOne(impl: Implementation, session: Session) {
  const dir = mkdtempSync(join(tmpdir(), `rxmcp-profile-${impl.name}-`));
  try {
    const h = await impl.connect(transport, {
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${SAMPLE_US}`],
    });
    await timeCalls(calls / 10, WARMUP_MS, inFlight, h.call);
    await post(session, 'Profiler.start');
    const from = monotonicMicros();
    const measured = await timeCalls(calls, 0, inFlight, h.call);
    const to = monotonicMicros();
    const { profile } = await post<{ profile: CpuProfile }>(session, 'Profiler.stop');
    await h.close();
    const server = await serverProfile(dir);
    return {
      made: measured.calls,
      perSecond: measured.perSecond,
      client: summarize(profile),
      server: server && summarize(server, from, to),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: SAMPLE_US });
  const lines = [
    `# Where a tools/call spends its time: ${transport}, ${inFlight === 1 ? 'sequential' : `${inFlight} in flight`}`,
    '',
    `Profiled ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version},`,
    `with \`node dist/benchmarks/profile.js --transport=${transport} --in-flight=${inFlight} --calls=${calls}\`:`,
    `${calls} calls after ${WARMUP_MS / 1000} s of warm-up, sampled every ${SAMPLE_US} µs. Self time per call in µs, by`,
    'where the code lives ("SDK" is the SDK\'s code and the libraries it runs on; for the floor, the',
    'JSON-RPC loop in benchmarks/ counts as harness). Idle is time the process waited for the other one;',
    'profiling slows both sides alike.',
    '',
  ];
  const top: string[] = [];
  for (const impl of IMPLEMENTATIONS) {
    if (!impl.transports.includes(transport)) continue;
    const { made, perSecond, client, server } = await profileOne(impl, session);
    lines.push(`## ${impl.name}: ${fmt(perSecond, 0)} calls/s while profiled`, '');
    lines.push('| µs per call | client | server |', '| --- | --- | --- |');
    for (const category of CATEGORIES) {
      const cell = (s: typeof client | undefined) => (s ? fmt(s.byCategory.get(category)! / made) : '–');
      lines.push(`| ${category} | ${cell(client)} | ${cell(server)} |`);
    }
    lines.push('');
    for (const [side, summary] of [
      ['client', client],
      ['server', server],
    ] as const) {
      if (!summary) continue;
      top.push(
        `### ${impl.name}, ${side}: the ten functions with the most self time`,
        '',
        '| µs per call | function |',
        '| --- | --- |',
      );
      const ranked = [...summary.byFunction].sort((a, b) => b[1] - a[1]).slice(0, 10);
      for (const [name, micros] of ranked) top.push(`| ${fmt(micros / made, 2)} | ${name.replace(/\|/g, '\\|')} |`);
      top.push('');
    }
  }
  session.disconnect();
  const report = [...lines, ...top].join('\n');
  const file = resolve(__dirname, `../../benchmarks/results/profile-${transport}-${inFlight}.md`);
  writeFileSync(file, report);
  process.stdout.write(report);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
