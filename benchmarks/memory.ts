/**
 * Measures memory per idle connected session (client and server, in one process) for one
 * implementation: heap and external memory after garbage collection, before and after opening
 * the sessions, divided by their number. Run with --expose-gc; prints bytes per session.
 *
 *   node --expose-gc dist/benchmarks/memory.js <rxmcp|official> <count>
 *
 * With `stateless` first, measures what a 2026-07-28 request leaves behind instead: memory after
 * garbage collection before and after `count` requests over Streamable HTTP (after a warm-up of
 * the same size), divided by their number; a server that keeps no state per request stays near 0.
 *
 *   node --expose-gc dist/benchmarks/memory.js stateless <rxmcp|official-v2> <count>
 */
import { official } from './impl/official';
import { officialV2 } from './impl/official-v2';
import { rxmcp } from './impl/rxmcp';

const gc = (globalThis as { gc?: () => void }).gc;

async function settle(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
}

async function perRequest(name: string | undefined, count: number): Promise<void> {
  const impl = name === 'rxmcp' ? rxmcp : name === 'official-v2' ? officialV2 : undefined;
  if (!impl) throw new Error(`unknown implementation ${String(name)}`);
  const harness = await impl.connect('http-2026');
  for (let i = 0; i < count; i++) await harness.call();
  const before = await settle();
  for (let i = 0; i < count; i++) await harness.call();
  const after = await settle();
  process.stdout.write(`${Math.round((after - before) / count)}\n`);
  await harness.close();
}

async function main() {
  if (!gc) throw new Error('run with --expose-gc');
  if (process.argv[2] === 'stateless') return perRequest(process.argv[3], Number(process.argv[4] ?? 1000));
  const [name, countText] = process.argv.slice(2);
  const impl = name === 'rxmcp' ? rxmcp : name === 'official' ? official : undefined;
  if (!impl?.idleSessions) throw new Error(`unknown implementation ${String(name)}`);
  const count = Number(countText ?? 1000);
  // One session first, so module-level caches are not counted as per-session cost.
  const warm = await impl.idleSessions(1, { server: 'perClient' });
  const before = await settle();
  const sessions = await impl.idleSessions(count, { server: 'perClient' });
  const after = await settle();
  process.stdout.write(`${Math.round((after - before) / count)}\n`);
  await sessions.close();
  await warm.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
