import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

// Thousands of connect/call/disconnect cycles per transport (#13), each run in a child process with
// --expose-gc so the heap is measured after full collections, after 500 cycles of warm-up: no
// session, timer or socket may outlive its cycle, and the heap may grow by at most 1 KiB a cycle
// (compiled code and caches settling; one idle session alone costs about twelve times that, so a
// session kept per cycle fails this).
const SCRIPT = resolve(__dirname, '../fixtures/leak-cycles.js');
const BYTES_PER_CYCLE = 1024;

describe.each([
  ['in-memory', 3000],
  ['http', 1500],
  ['http-2026', 1500],
  ['websocket', 1000],
])('connect, call and disconnect over %s', (kind, cycles) => {
  it(`leaves no session or handle behind after ${cycles} cycles, and the heap flat within 1 KiB a cycle`, () => {
    const out = execFileSync(process.execPath, ['--expose-gc', SCRIPT, kind, String(cycles)], {
      encoding: 'utf8',
      timeout: 90_000,
    });
    const { before, after } = JSON.parse(out) as Record<
      'before' | 'after',
      { heap: number; handles: number; sessions: number }
    >;
    expect(after.sessions).toBe(0);
    expect(after.handles).toBeLessThanOrEqual(before.handles);
    expect((after.heap - before.heap) / cycles).toBeLessThan(BYTES_PER_CYCLE);
  }, 120_000);
});
