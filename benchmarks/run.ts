/**
 * One benchmark run: rxmcp, the official TypeScript SDK 1.32 and v2, and a bare JSON-RPC floor on
 * the same workloads, in one process, interleaved (the order of the implementations alternates
 * between repetitions) so that machine noise hits each alike. Servers run in child processes on
 * every transport but in-memory. Writes the run's raw samples, with the machine's load as it started
 * and ended, to `--raw=<file>` (how `npm run bench` runs it, three times, see bench.ts); run alone,
 * to benchmarks/results/runs/ and a report of this one run (`quick.*` or `partial.*`).
 *
 *   node dist/benchmarks/run.js [--quick] [--only=calls,cold,scale,large,memory,fanout,stream,load,proxy,cluster]
 *     [--transports=in-memory,stdio,http-stateful,http-stateless,http-2026] [--raw=<file> --run=<index>]
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { callWorkloads, largeWorkloads, scaleWorkloads } from './call-workloads';
import { clusterHarness, routingHarness, startBenchRedis } from './cluster-cost';
import { coldWorkloads } from './cold';
import { LOAD_ROLES, timeLoad } from './load-time';
import type { LoadRole } from './load-time';
import { memoryWorkloads } from './memory-workloads';
import { PROXY_TRANSPORTS, proxyHarness } from './proxy-cost';
import type { ProxySide } from './proxy-cost';
import { inTurns } from './proxy-turns';
import type { SideSample } from './proxy-turns';
import { publish, rawFile, reportName } from './publish';
import { STREAM_CHUNKS, streamHarness } from './stream-cost';
import { readRawRun, record, writeRawRun } from './samples';
import type { Samples } from './samples';
import { alternating, CALL_SCALE, inOrder, log, narrowed, quick, RUN_INDEX, SETTINGS, wanted } from './settings';
import { timeCalls } from './timing';
import { stringArg } from './args';

async function fanOutWorkloads(samples: Samples) {
  for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
    for (const impl of inOrder(rep)) {
      if (!impl.fanOut) continue;
      const h = await impl.fanOut(SETTINGS.fanOutClients);
      await h.publish(5);
      const started = performance.now();
      await h.publish(SETTINGS.fanOutUpdates);
      const elapsedMs = performance.now() - started;
      const delivered = SETTINGS.fanOutUpdates * SETTINGS.fanOutClients;
      record(samples, `fanout|in-memory|${SETTINGS.fanOutClients}|${impl.name}`, {
        perSecond: (delivered / elapsedMs) * 1000,
        p50: NaN,
        p99: NaN,
      });
      await h.close();
    }
  }
  log('fan-out: done');
}

/**
 * Measurements per process of the in-memory proxy rows. Each run's figure is the median of all of
 * a side's measurements: a moment of noise on the machine then falls on one of them, where a
 * single measurement per side put it into the ratio whole (one run gave 0.41, the next 0.72, of
 * the same code). Sixteen turns in each of a side's three processes make 48 measurements a run.
 * Even so, one run's policed / plain ratio moves by several percent from the next's (ANALYSIS.md).
 */
const PROXY_ROUNDS = quick ? 3 : 16;
/** Measurements per side of the proxy rows, each with processes of its own, alternating. */
const PROXY_PROCESS_REPETITIONS = quick ? 1 : 3;

/**
 * The in-memory proxy rows' sides, each measured in a process of its own (see proxy-side.ts),
 * warmed up as the other rows are, the three processes then taking turns (proxy-turns.ts):
 * `PROXY_ROUNDS` measurements each, of a quarter of theirs each.
 */
function inMemoryProxySides(sides: readonly ProxySide[], inFlight: number): Promise<Map<ProxySide, SideSample[]>> {
  return inTurns(sides, PROXY_ROUNDS, {
    inFlight,
    warmupCalls: SETTINGS.warmup,
    warmupMs: SETTINGS.warmupMs,
    calls: SETTINGS.calls,
    ms: SETTINGS.measureMs / 4,
  });
}

/**
 * The same call direct, through a proxy and through the proxy with a gateway's policies, alternating,
 * in memory and stdio to HTTP (there through the bare relay as well).
 */
async function proxyWorkloads(samples: Samples) {
  for (const transport of PROXY_TRANSPORTS) {
    for (const inFlight of [1, 64]) {
      const key = (side: ProxySide) => `proxy|${transport}|${inFlight}|${side}`;
      if (transport === 'in-memory') {
        // The policed proxy is the gateway as production runs it: limits, tool rules and metrics.
        // Each side runs in a process of its own, as a gateway runs one configuration.
        for (let rep = 0; rep < PROXY_PROCESS_REPETITIONS; rep++) {
          const sides = alternating(rep, ['direct', 'proxied', 'policed'] as const);
          for (const [side, measured] of await inMemoryProxySides(sides, inFlight))
            for (const sample of measured) record(samples, key(side), sample);
        }
      } else {
        for (let rep = 0; rep < PROXY_PROCESS_REPETITIONS; rep++) {
          for (const side of alternating(rep, ['direct', 'proxied', 'relay', 'policed'] as const)) {
            const h = await proxyHarness(transport, side);
            // Across processes, the proxy's and the server's code is compiled as it runs: it takes some
            // thousand calls (a few seconds) to reach the steady state a long-running proxy is in.
            await timeCalls(SETTINGS.warmup * 2, SETTINGS.warmupMs * 3, inFlight, h.call);
            const measured = await timeCalls(
              Math.ceil(SETTINGS.calls * CALL_SCALE['http-stateful']),
              SETTINGS.measureMs,
              inFlight,
              h.call,
            );
            record(samples, key(side), measured);
            await h.close();
          }
        }
      }
      log(`calls through a proxy, ${transport}, ${inFlight} in flight: done`);
    }
  }
}

/**
 * The cluster mode (issue #17): throughput of 1, 2 and 3 processes on Redis behind a round-robin
 * front (64 calls in flight over 8 sessions), and the latency of sequential calls sent to a
 * session's owner and forwarded to it by another process.
 */
async function clusterWorkloads(samples: Samples) {
  const redis = await startBenchRedis();
  try {
    const scale = CALL_SCALE['http-stateful'];
    const measure = async (h: { call(): Promise<unknown>; close(): Promise<void> }, inFlight: number) => {
      await timeCalls(Math.ceil(SETTINGS.warmup * scale), SETTINGS.warmupMs, inFlight, h.call);
      const measured = await timeCalls(Math.ceil(SETTINGS.calls * scale), SETTINGS.measureMs, inFlight, h.call);
      await h.close();
      return measured;
    };
    for (let rep = 0; rep < SETTINGS.longRepetitions; rep++) {
      for (const processes of alternating(rep, [1, 2, 3])) {
        const measured = await measure(await clusterHarness(redis.url, processes), 64);
        record(samples, `cluster|http-stateful|64|${processes} process${processes === 1 ? '' : 'es'}`, measured);
      }
    }
    log('cluster throughput: done');
    for (let rep = 0; rep < SETTINGS.longRepetitions; rep++) {
      for (const shape of alternating(rep, ['owner', 'forwarded'] as const)) {
        record(samples, `cluster|http-stateful|1|${shape}`, await measure(await routingHarness(redis.url, shape), 1));
      }
    }
    log('cluster routing latency: done');
  } finally {
    await redis.stop();
  }
}

/**
 * A tool streaming 1,000 chunks in memory, as partial results and as progress messages, both tools
 * of one server on one connection, alternating: chunks per second, and the time to the first chunk.
 */
async function streamWorkloads(samples: Samples) {
  const h = await streamHarness();
  try {
    for (let round = 0; round < 3; round++) for (const side of ['partial', 'progress'] as const) await h.call(side);
    for (let rep = 0; rep < SETTINGS.repetitions * 3; rep++) {
      for (const side of alternating(rep, ['partial', 'progress'] as const)) {
        const timing = await h.call(side);
        record(samples, `stream|in-memory|${STREAM_CHUNKS}|${side}`, {
          perSecond: timing.chunksPerSecond,
          p50: timing.firstChunkMs,
          p99: NaN,
        });
      }
    }
  } finally {
    h.close();
  }
  log('streamed chunks: done');
}

/** Each role's load time, rxmcp and the official SDK alternating, one fresh process per run. */
function loadWorkloads(samples: Samples) {
  for (const role of Object.keys(LOAD_ROLES) as LoadRole[]) {
    const { transport, ...modules } = LOAD_ROLES[role];
    for (let run = 0; run < SETTINGS.loadRuns; run++) {
      const order = alternating(run, ['rxmcp', 'official'] as const);
      for (const impl of order) {
        record(samples, `load|${transport}|${role}|${impl}`, {
          perSecond: NaN,
          p50: timeLoad(modules[impl]),
          p99: NaN,
        });
      }
    }
    log(`load time of the ${role}: done`);
  }
}

/**
 * Process warnings, each kind once. The official SDK's Streamable HTTP client hands one long-lived
 * AbortSignal to every fetch, and fetch adds a listener to it per request: past 1,500 calls on one
 * connection Node warns once per further call, which would bury the log.
 */
function warnOnce() {
  const seen = new Set<string>();
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const kind = `${warning.name}: ${warning.message.replace(/\d+/g, 'N')}`;
    if (seen.has(kind)) return;
    seen.add(kind);
    log(`${warning.name}: ${warning.message} (further warnings of this kind are not shown)`);
  });
}

async function measureAll(samples: Samples) {
  if (wanted('calls')) await callWorkloads(samples);
  if (wanted('cold')) await coldWorkloads(samples);
  if (wanted('scale')) await scaleWorkloads(samples);
  if (wanted('large')) await largeWorkloads(samples);
  if (wanted('memory')) memoryWorkloads(samples);
  if (wanted('fanout')) await fanOutWorkloads(samples);
  if (wanted('stream')) await streamWorkloads(samples);
  if (wanted('load')) loadWorkloads(samples);
  if (wanted('proxy')) await proxyWorkloads(samples);
  if (wanted('cluster')) await clusterWorkloads(samples);
}

async function main() {
  warnOnce();
  const startedAt = new Date().toISOString();
  const loadAvgStart = loadavg();
  const started = performance.now();
  const samples: Samples = new Map();
  await measureAll(samples);
  const raw = stringArg('raw');
  const name = reportName(quick, narrowed, 1);
  const file = raw ?? rawFile(name, 1);
  writeRawRun(
    file,
    {
      index: RUN_INDEX,
      startedAt,
      durationMs: performance.now() - started,
      loadAvgStart,
      loadAvgEnd: loadavg(),
      quick,
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`,
      settings: SETTINGS,
    },
    samples,
  );
  // Run alone, this one run is reported; under bench.ts the runs are pooled there.
  if (!raw) process.stdout.write(publish(name, [readRawRun(file)]));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
