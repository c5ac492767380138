/**
 * Loaded into a server process with `--expose-gc --require <this file>` while
 * `BENCH_MEMORY_PROBE_DIR` names a directory: writes `<pid>.pid` there at start, and on each
 * SIGUSR2 collects garbage and writes the heap, external and array buffer bytes in use to
 * `<pid>.<n>.bytes` (n = 1, 2, ...). Lets the memory workload measure what a server process keeps
 * without the server scripts knowing of it. Writes nothing to stdout.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env['BENCH_MEMORY_PROBE_DIR'];
const gc = (globalThis as { gc?: () => void }).gc;

async function settledBytes(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
}

if (dir) {
  let asked = 0;
  writeFileSync(join(dir, `${process.pid}.pid`), '');
  process.on('SIGUSR2', () => {
    const n = ++asked;
    void settledBytes().then((bytes) => {
      const file = join(dir, `${process.pid}.${n}.bytes`);
      writeFileSync(`${file}.partial`, String(bytes));
      renameSync(`${file}.partial`, file);
    });
  });
}
