/**
 * The cold rows (issue #44): for each transport and implementation, a fresh process per
 * measurement (cold-client.ts) connects to a fresh server and reports how long it took from spawn
 * to the first answered `tools/call` (loading, connecting, the first call), and the throughput of
 * its first 1,000 and first 5,000 calls, one at a time. The steady rows (`calls`) measure the same
 * call after thousands of warm-up calls; these measure what comes before.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { COLD_MARKS } from './cold-marks';
import type { ColdReport } from './cold-marks';
import { record } from './samples';
import type { Samples } from './samples';
import { CALL_TRANSPORTS, inOrder, log, quick } from './settings';
import type { CallTransport } from './workload';

/** Fresh processes per implementation and transport in one run. */
const COLD_REPETITIONS = quick ? 1 : 2;

interface ColdMeasurement extends ColdReport {
  /** From just before the spawn to the child's line saying its first call was answered. */
  readonly spawnToFirstMs: number;
}

/** Runs cold-client.js once for `name` over `transport`. */
export function measureCold(name: string, transport: CallTransport): Promise<ColdMeasurement> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(__dirname, 'cold-client.js'), name, transport], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let spawnToFirstMs = NaN;
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (Number.isNaN(spawnToFirstMs) && (output + chunk).includes('first\n')) {
        spawnToFirstMs = performance.now() - started;
      }
      output += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = output.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        reject(new Error(`cold ${name} over ${transport} exited ${code}: ${output.slice(0, 200)}`));
        return;
      }
      resolve({ ...(JSON.parse(last) as ColdReport), spawnToFirstMs });
    });
  });
}

/** Every implementation over every transport it has, alternating order, each measurement a fresh process. */
export async function coldWorkloads(samples: Samples): Promise<void> {
  for (const transport of CALL_TRANSPORTS) {
    for (let rep = 0; rep < COLD_REPETITIONS; rep++) {
      for (const impl of inOrder(rep)) {
        if (!impl.transports.includes(transport)) continue;
        const cold = await measureCold(impl.name, transport);
        record(samples, `cold-start|${transport}|spawn-to-first|${impl.name}`, {
          perSecond: NaN,
          p50: cold.spawnToFirstMs,
          p99: NaN,
        });
        for (const mark of COLD_MARKS) {
          record(samples, `cold|${transport}|${mark}|${impl.name}`, {
            perSecond: cold.perSecond[mark] ?? NaN,
            p50: mark === COLD_MARKS[0] ? cold.p50Ms : NaN,
            p99: NaN,
          });
        }
      }
    }
    log(`cold processes over ${transport}: done`);
  }
}
