/** The workloads of `tools/call`: small calls per transport, 1 MB results, and many sessions over HTTP. */
import { record } from './samples';
import type { Samples } from './samples';
import { CALL_SCALE, CALL_TRANSPORTS, inOrder, log, SCALE_SESSIONS, SCALE_TRANSPORTS, SETTINGS } from './settings';
import { timeCalls } from './timing';
import type { CallHarness, CallTransport } from './workload';

/** Warms `h` up, then measures it, `inFlight` calls at a time; at least `least` calls each phase. */
async function warmAndMeasure(h: CallHarness, transport: CallTransport, inFlight: number, least = 0) {
  const scale = CALL_SCALE[transport];
  const { warmup, calls, warmupMs, measureMs, maxMs, processWarmup, processWarmupMaxMs } = SETTINGS;
  // A server process is new for each measurement: see `processWarmup`.
  const [warmCalls, warmMaxMs] =
    transport === 'in-memory' ? [Math.ceil(warmup * scale), maxMs] : [processWarmup, processWarmupMaxMs];
  await timeCalls(Math.max(least, warmCalls), warmupMs, inFlight, h.call, warmMaxMs);
  return timeCalls(Math.max(least, Math.ceil(calls * scale)), measureMs, inFlight, h.call, maxMs);
}

export async function callWorkloads(samples: Samples): Promise<void> {
  for (const transport of CALL_TRANSPORTS) {
    for (const inFlight of [1, 64]) {
      for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
        for (const impl of inOrder(rep)) {
          if (!impl.transports.includes(transport)) continue;
          const h = await impl.connect(transport);
          try {
            record(
              samples,
              `calls|${transport}|${inFlight}|${impl.name}`,
              await warmAndMeasure(h, transport, inFlight),
            );
          } finally {
            await h.close();
          }
        }
      }
      log(`calls over ${transport}, ${inFlight} in flight: done`);
    }
  }
}

export async function largeWorkloads(samples: Samples): Promise<void> {
  for (const transport of (['in-memory', 'stdio'] as const).filter((t) => CALL_TRANSPORTS.includes(t))) {
    for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
      for (const impl of inOrder(rep)) {
        if (!impl.transports.includes(transport)) continue;
        const h = await impl.connect(transport);
        try {
          await timeCalls(3, 0, 1, h.callLarge);
          record(samples, `large|${transport}|1|${impl.name}`, await timeCalls(SETTINGS.largeCalls, 0, 1, h.callLarge));
        } finally {
          await h.close();
        }
      }
    }
    log(`1 MB results over ${transport}: done`);
  }
}

/**
 * n client sessions of one server process, n calls in flight (about one per session): the
 * implementations that open `sessions`, over HTTP stateful and, for those that list it, 2026-07-28.
 * Each phase aims at two calls per session at least (a slow implementation may end a phase at
 * `maxMs` first, with at least one call per session).
 */
export async function scaleWorkloads(samples: Samples): Promise<void> {
  for (const transport of SCALE_TRANSPORTS) {
    for (const sessions of SCALE_SESSIONS) {
      for (let rep = 0; rep < SETTINGS.longRepetitions; rep++) {
        for (const impl of inOrder(rep)) {
          if (!impl.sessions || !impl.transports.includes(transport)) continue;
          const h = await impl.sessions(transport, sessions);
          try {
            const measured = await warmAndMeasure(h, transport, sessions, 2 * sessions);
            record(samples, `scale|${transport}|${sessions}|${impl.name}`, measured);
          } finally {
            await h.close();
          }
        }
      }
      log(`${sessions} sessions over ${transport}: done`);
    }
  }
}
