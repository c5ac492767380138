/**
 * The benchmark runner: rxmcp, the official TypeScript SDK and a bare JSON-RPC floor on the same
 * workloads, in one run, interleaved (the order of the implementations alternates between
 * repetitions) so that machine noise hits each alike. Writes a markdown report, the raw numbers
 * and an SVG chart to benchmarks/results/.
 *
 *   node dist/benchmarks/run.js [--quick] [--only=calls,large,memory,fanout,load,proxy,cluster] [--transports=stdio,http-stateful]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { floor } from './impl/floor';
import { LOAD_ROLES, timeLoad } from './load-time';
import { PROXY_TRANSPORTS, proxyHarness } from './proxy-cost';
import { clusterHarness, routingHarness, startBenchRedis } from './cluster-cost';
import type { LoadRole } from './load-time';
import { official } from './impl/official';
import { officialV2 } from './impl/official-v2';
import { rxmcp } from './impl/rxmcp';
import { renderChart, renderReport } from './report';
import type { Measurement, RunReport } from './report';
import { spread } from './stats';
import { timeCalls } from './timing';
import type { CallTransport, Implementation } from './workload';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wanted = (workload: string) => !only || only.includes(workload);
const transports = args
  .find((a) => a.startsWith('--transports='))
  ?.slice('--transports='.length)
  .split(',');

/**
 * `warmup` and `calls` are counts per connection (scaled per transport, below); `warmupMs` and
 * `measureMs` are the least time each phase lasts, whatever the count. A fresh connection (and a
 * fresh server process over stdio) spends its first few hundred milliseconds compiling its hot
 * functions and growing its heap; 64 calls in flight over stdio finish 10,000 calls in under 0.1 s,
 * so without a time floor their p99 would measure that start-up rather than the cost of a call.
 * Every implementation gets the same phases.
 */
const SETTINGS = quick
  ? {
      repetitions: 2,
      calls: 2_000,
      warmup: 1_000,
      warmupMs: 100,
      measureMs: 0,
      largeCalls: 20,
      sessions: 100,
      fanOutClients: 100,
      fanOutUpdates: 50,
      loadRuns: 5,
    }
  : {
      repetitions: 5,
      calls: 20_000,
      warmup: 3_000,
      warmupMs: 1_000,
      measureMs: 1_000,
      largeCalls: 100,
      sessions: 1_000,
      fanOutClients: 100,
      fanOutUpdates: 500,
      loadRuns: 21,
    };

/** Calls per measurement, scaled to what each transport does in a few seconds. */
const CALL_SCALE: Readonly<Record<CallTransport, number>> = {
  'in-memory': 1,
  stdio: 0.5,
  'http-stateful': 0.1,
  'http-stateless': 0.1,
  'http-2026': 0.1,
};

const IMPLEMENTATIONS: readonly Implementation[] = [rxmcp, official, officialV2, floor];
const CALL_TRANSPORTS: readonly CallTransport[] = (
  ['in-memory', 'stdio', 'http-stateful', 'http-stateless', 'http-2026'] as const
).filter((transport) => !transports || transports.includes(transport));

/** Alternates the order of the implementations between repetitions. */
function inOrder(repetition: number): readonly Implementation[] {
  return repetition % 2 === 0 ? IMPLEMENTATIONS : [...IMPLEMENTATIONS].reverse();
}

type Samples = Map<string, { perSecond: number[]; p50: number[]; p99: number[] }>;

function record(samples: Samples, key: string, value: { perSecond: number; p50: number; p99: number }) {
  const entry = samples.get(key) ?? { perSecond: [], p50: [], p99: [] };
  entry.perSecond.push(value.perSecond);
  entry.p50.push(value.p50);
  entry.p99.push(value.p99);
  samples.set(key, entry);
}

async function callWorkloads(samples: Samples) {
  for (const transport of CALL_TRANSPORTS) {
    for (const inFlight of [1, 64]) {
      for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
        for (const impl of inOrder(rep)) {
          if (!impl.transports.includes(transport)) continue;
          const h = await impl.connect(transport);
          const scale = CALL_SCALE[transport];
          await timeCalls(Math.ceil(SETTINGS.warmup * scale), SETTINGS.warmupMs, inFlight, h.call);
          const measured = await timeCalls(Math.ceil(SETTINGS.calls * scale), SETTINGS.measureMs, inFlight, h.call);
          record(samples, `calls|${transport}|${inFlight}|${impl.name}`, measured);
          await h.close();
        }
      }
      log(`calls over ${transport}, ${inFlight} in flight: done`);
    }
  }
}

async function largeWorkloads(samples: Samples) {
  for (const transport of ['in-memory', 'stdio'] as const) {
    for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
      for (const impl of inOrder(rep)) {
        if (!impl.transports.includes(transport)) continue;
        const h = await impl.connect(transport);
        await timeCalls(3, 0, 1, h.callLarge);
        record(samples, `large|${transport}|1|${impl.name}`, await timeCalls(SETTINGS.largeCalls, 0, 1, h.callLarge));
        await h.close();
      }
    }
    log(`1 MB results over ${transport}: done`);
  }
}

function memoryWorkloads(samples: Samples) {
  const script = join(__dirname, 'memory.js');
  for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
    for (const impl of inOrder(rep)) {
      if (!impl.idleSessions) continue;
      const out = execFileSync(process.execPath, ['--expose-gc', script, impl.name, String(SETTINGS.sessions)], {
        encoding: 'utf8',
      });
      const bytesPerSession = Number(out.trim());
      record(samples, `memory|in-memory|idle|${impl.name}`, { perSecond: bytesPerSession, p50: NaN, p99: NaN });
    }
  }
  log('memory per idle session: done');
  for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
    for (const impl of inOrder(rep)) {
      if (!impl.transports.includes('http-2026')) continue;
      const count = String(Math.max(200, Math.round(SETTINGS.sessions)));
      const out = execFileSync(process.execPath, ['--expose-gc', script, 'stateless', impl.name, count], {
        encoding: 'utf8',
      });
      record(samples, `memory|http-2026|per-request|${impl.name}`, {
        perSecond: Number(out.trim()),
        p50: NaN,
        p99: NaN,
      });
    }
  }
  log('memory per stateless request: done');
}

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

/** The same call direct and through a proxy, alternating, in memory and stdio to HTTP. */
async function proxyWorkloads(samples: Samples) {
  for (const transport of PROXY_TRANSPORTS) {
    for (const inFlight of [1, 64]) {
      for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
        for (const proxied of rep % 2 === 0 ? [false, true] : [true, false]) {
          const h = await proxyHarness(transport, proxied);
          const scale = transport === 'in-memory' ? 1 : CALL_SCALE['http-stateful'];
          // Across processes, the proxy's and the server's code is compiled as it runs: it takes some
          // thousand calls (a few seconds) to reach the steady state a long-running proxy is in.
          const [warmup, warmupMs] =
            transport === 'in-memory'
              ? [SETTINGS.warmup, SETTINGS.warmupMs]
              : [SETTINGS.warmup * 2, SETTINGS.warmupMs * 3];
          await timeCalls(warmup, warmupMs, inFlight, h.call);
          const measured = await timeCalls(Math.ceil(SETTINGS.calls * scale), SETTINGS.measureMs, inFlight, h.call);
          record(samples, `proxy|${transport}|${inFlight}|${proxied ? 'proxied' : 'direct'}`, measured);
          await h.close();
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
    for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
      for (const processes of rep % 2 === 0 ? [1, 2, 3] : [3, 2, 1]) {
        const h = await clusterHarness(redis.url, processes);
        await timeCalls(Math.ceil(SETTINGS.warmup * scale), SETTINGS.warmupMs, 64, h.call);
        const measured = await timeCalls(Math.ceil(SETTINGS.calls * scale), SETTINGS.measureMs, 64, h.call);
        record(samples, `cluster|http-stateful|64|${processes} process${processes === 1 ? '' : 'es'}`, measured);
        await h.close();
      }
    }
    log('cluster throughput: done');
    for (let rep = 0; rep < SETTINGS.repetitions; rep++) {
      for (const shape of rep % 2 === 0 ? (['owner', 'forwarded'] as const) : (['forwarded', 'owner'] as const)) {
        const h = await routingHarness(redis.url, shape);
        await timeCalls(Math.ceil(SETTINGS.warmup * scale), SETTINGS.warmupMs, 1, h.call);
        record(
          samples,
          `cluster|http-stateful|1|${shape}`,
          await timeCalls(Math.ceil(SETTINGS.calls * scale), SETTINGS.measureMs, 1, h.call),
        );
        await h.close();
      }
    }
    log('cluster routing latency: done');
  } finally {
    await redis.stop();
  }
}

/** Each role's load time, rxmcp and the official SDK alternating, one fresh process per run. */
function loadWorkloads(samples: Samples) {
  for (const role of Object.keys(LOAD_ROLES) as LoadRole[]) {
    const { transport, ...modules } = LOAD_ROLES[role];
    for (let run = 0; run < SETTINGS.loadRuns; run++) {
      const order = run % 2 === 0 ? (['rxmcp', 'official'] as const) : (['official', 'rxmcp'] as const);
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

function log(line: string) {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
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

function toMeasurements(samples: Samples): Measurement[] {
  return [...samples].map(([key, value]) => {
    const [workload, transport, shape, implementation] = key.split('|') as [string, string, string, string];
    return {
      workload,
      transport,
      shape,
      implementation,
      perSecond: spread(value.perSecond),
      p50Ms: spread(value.p50),
      p99Ms: spread(value.p99),
    };
  });
}

async function main() {
  warnOnce();
  const samples: Samples = new Map();
  if (wanted('calls')) await callWorkloads(samples);
  if (wanted('large')) await largeWorkloads(samples);
  if (wanted('memory')) memoryWorkloads(samples);
  if (wanted('fanout')) await fanOutWorkloads(samples);
  if (wanted('load')) loadWorkloads(samples);
  if (wanted('proxy')) await proxyWorkloads(samples);
  if (wanted('cluster')) await clusterWorkloads(samples);
  const report: RunReport = {
    date: new Date().toISOString(),
    quick,
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`,
    settings: SETTINGS,
    measurements: toMeasurements(samples),
  };
  const dir = resolve(__dirname, '../../benchmarks/results');
  mkdirSync(dir, { recursive: true });
  // Only a full run replaces the published results.
  const name = quick ? 'quick' : only || transports ? 'partial' : 'latest';
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(join(dir, `${name}.md`), renderReport(report));
  writeFileSync(join(dir, `${name}.svg`), renderChart(report));
  process.stdout.write(renderReport(report));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
