/**
 * Memory and connection cost, each measurement in a fresh process (memory.ts): bytes per idle
 * session with a server per client and with one shared server, new sessions per second, and bytes
 * kept per stateless request.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { record } from './samples';
import type { Samples } from './samples';
import { CALL_TRANSPORTS, inOrder, log, SETTINGS } from './settings';

const SCRIPT = join(__dirname, 'memory.js');

/** Runs memory.ts with `args`; its numbers, or undefined for `n/a`. */
function measureAll(...args: string[]): number[] | undefined {
  const out = execFileSync(process.execPath, ['--expose-gc', SCRIPT, ...args], { encoding: 'utf8' }).trim();
  return out === 'n/a' ? undefined : out.split(' ').map(Number);
}

const measure = (...args: string[]): number | undefined => measureAll(...args)?.[0];

const figure = (value: number) => ({ perSecond: value, p50: NaN, p99: NaN });

function idleSessions(samples: Samples): void {
  for (let rep = 0; rep < SETTINGS.longRepetitions; rep++) {
    for (const impl of inOrder(rep)) {
      if (!impl.idleSessions) continue;
      for (const [server, shape] of [
        ['perClient', 'idle-per-client'],
        ['shared', 'idle-shared'],
      ] as const) {
        const bytes = measure('idle', impl.name, String(SETTINGS.sessions), server);
        if (bytes !== undefined) record(samples, `memory|in-memory|${shape}|${impl.name}`, figure(bytes));
      }
    }
  }
  log('memory per idle session: done');
}

function newSessions(samples: Samples): void {
  for (let rep = 0; rep < SETTINGS.longRepetitions; rep++) {
    for (const impl of inOrder(rep)) {
      if (!impl.idleSessions) continue;
      const rates = measureAll('open', impl.name, String(SETTINGS.opened));
      if (rates === undefined) continue;
      const [steady, cold] = rates as [number, number];
      record(samples, `open|in-memory|${SETTINGS.opened}|${impl.name}`, figure(steady));
      record(samples, `open-cold|in-memory|${SETTINGS.opened}|${impl.name}`, figure(cold));
    }
  }
  log('new sessions per second: done');
}

function perStatelessRequest(samples: Samples): void {
  if (!CALL_TRANSPORTS.includes('http-2026')) return;
  for (let rep = 0; rep < SETTINGS.longRepetitions; rep++) {
    for (const impl of inOrder(rep)) {
      if (!impl.transports.includes('http-2026')) continue;
      const bytes = measure('stateless', impl.name, String(Math.max(200, SETTINGS.sessions)));
      if (bytes !== undefined) record(samples, `memory|http-2026|per-request|${impl.name}`, figure(bytes));
    }
  }
  log('memory per stateless request: done');
}

export function memoryWorkloads(samples: Samples): void {
  idleSessions(samples);
  newSessions(samples);
  perStatelessRequest(samples);
}
