/**
 * Measures memory per idle connected session (client and server, in one process) for one
 * implementation: heap and external memory after garbage collection, before and after opening
 * the sessions, divided by their number. Run with --expose-gc; prints bytes per session.
 *
 *   node --expose-gc dist/benchmarks/memory.js <rxmcp|official> <count>
 */
import { official } from './impl/official';
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

async function main() {
  if (!gc) throw new Error('run with --expose-gc');
  const [name, countText] = process.argv.slice(2);
  const impl = name === 'rxmcp' ? rxmcp : name === 'official' ? official : undefined;
  if (!impl?.idleSessions) throw new Error(`unknown implementation ${String(name)}`);
  const count = Number(countText ?? 1000);
  // One session first, so module-level caches are not counted as per-session cost.
  const warm = await impl.idleSessions(1);
  const before = await settle();
  const sessions = await impl.idleSessions(count);
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
