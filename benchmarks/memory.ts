/**
 * Memory and connection cost, one measurement per fresh process (run with --expose-gc); prints one
 * number, or `n/a` when the implementation cannot do what is asked.
 *
 *   node --expose-gc dist/benchmarks/memory.js idle <implementation> <count> <perClient|shared>
 *
 * Bytes per idle connected session (client and server, in this process, in memory): heap, external
 * and array buffer memory after garbage collection, before and after opening `count` sessions,
 * divided by their number. `perClient`: a server built for each client; `shared`: one server
 * definition serving them all (`n/a` where the implementation throws for it).
 *
 *   node --expose-gc dist/benchmarks/memory.js open <implementation> <count>
 *
 * New sessions per second, with a server per client, in memory: ten batches of `count` sessions,
 * each opened, timed and closed, in one process. Prints two rates: the steady one (batches six to
 * ten together, once the JIT has compiled a connect's code, as a server accepting sessions runs
 * for most of its life) and the cold one (the second batch, while the JIT is still compiling).
 *
 *   node --expose-gc dist/benchmarks/memory.js stateless <implementation> <count>
 *
 * Bytes kept per 2026-07-28 request over Streamable HTTP, client and server process together: the
 * memory after garbage collection of this process and of the server process (read by
 * servers/memory-probe.ts), before and after `count` requests that follow a warm-up of the same
 * size, divided by their number; a server that keeps no state per request stays near 0. (A server
 * served in this process is counted with the client.)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { implementationNamed } from './implementations';
import type { IdleOptions } from './workload';

const gc = (globalThis as { gc?: () => void }).gc;

async function settle(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
}

async function idle(name: string | undefined, count: number, server: IdleOptions['server']): Promise<string> {
  const impl = implementationNamed(name);
  if (!impl.idleSessions) return 'n/a';
  let warm: { close(): Promise<void> };
  try {
    // One session first, so module-level caches are not counted as per-session cost.
    warm = await impl.idleSessions(1, { server });
  } catch (error) {
    if (server === 'shared') return 'n/a';
    throw error;
  }
  // As many sessions opened and closed first, so that the code the JIT compiles while sessions are
  // opened (some hundred kilobytes, made once per process) is not counted as theirs either.
  await (await impl.idleSessions(count, { server })).close();
  const before = await settle();
  const sessions = await impl.idleSessions(count, { server });
  const after = await settle();
  await sessions.close();
  await warm.close();
  return String(Math.round((after - before) / count));
}

/** Batches of sessions a measurement of `open` opens: the second is its cold figure, the last five its steady one. */
const OPEN_BATCHES = 10;
const STEADY_FROM = 6;

async function open(name: string | undefined, count: number): Promise<string> {
  const impl = implementationNamed(name);
  if (!impl.idleSessions) return 'n/a';
  let cold = NaN;
  let steadyMs = 0;
  for (let batch = 1; batch <= OPEN_BATCHES; batch++) {
    // One collection, so that a batch does not pay for the last one's sessions. Not settle(): after
    // several forced collections in a row, V8 runs the next batch slower (it shrinks its young
    // generation and ages out code), which no server accepting sessions would see.
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    const sessions = await impl.idleSessions(count, { server: 'perClient' });
    const elapsedMs = performance.now() - started;
    await sessions.close();
    if (batch === 2) cold = (count / elapsedMs) * 1000;
    if (batch >= STEADY_FROM) steadyMs += elapsedMs;
  }
  const steady = ((OPEN_BATCHES - STEADY_FROM + 1) * count * 1000) / steadyMs;
  return `${steady} ${cold}`;
}

/** Asks the server process's probe for its settled memory. */
async function serverBytes(dir: string, pid: string, n: number): Promise<number> {
  process.kill(Number(pid), 'SIGUSR2');
  const file = `${pid}.${n}.bytes`;
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (readdirSync(dir).includes(file)) return Number(readFileSync(join(dir, file), 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the server process did not report its memory');
}

async function stateless(name: string | undefined, count: number): Promise<string> {
  const impl = implementationNamed(name);
  if (!impl.transports.includes('http-2026')) return 'n/a';
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-memory-probe-'));
  process.env['BENCH_MEMORY_PROBE_DIR'] = dir;
  try {
    const probe = join(__dirname, 'servers/memory-probe.js');
    const harness = await impl.connect('http-2026', { nodeArgs: ['--expose-gc', '--require', probe] });
    try {
      // No server process: the implementation serves in this process, measured with the client.
      const pids = readdirSync(dir).filter((f) => f.endsWith('.pid'));
      if (pids.length > 1) throw new Error(`expected one server process, found ${pids.length}`);
      const pid = pids[0]?.slice(0, -'.pid'.length);
      const server = async (n: number) => (pid === undefined ? 0 : serverBytes(dir, pid, n));
      for (let i = 0; i < count; i++) await harness.call();
      const before = (await settle()) + (await server(1));
      for (let i = 0; i < count; i++) await harness.call();
      const after = (await settle()) + (await server(2));
      return String(Math.round((after - before) / count));
    } finally {
      await harness.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<string> {
  if (!gc) throw new Error('run with --expose-gc');
  const [mode, name, countText, server] = process.argv.slice(2);
  const count = Number(countText ?? 1000);
  if (mode === 'idle') return idle(name, count, server === 'shared' ? 'shared' : 'perClient');
  if (mode === 'open') return open(name, count);
  if (mode === 'stateless') return stateless(name, count);
  throw new Error(`unknown mode ${String(mode)}`);
}

main().then(
  (out) => {
    process.stdout.write(`${out}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
