/** What a benchmark report holds, and how its rows are found and named. */
import type { RunInfo } from './samples';
import type { Spread } from './stats';

export interface Measurement {
  readonly workload: string; // calls | scale | cold | cold-start | large | memory | open | fanout | stream | load | proxy | cluster
  readonly transport: string;
  /** Calls in flight, concurrent sessions, the idle-session mode, the number of clients, or the role loaded. */
  readonly shape: string;
  readonly implementation: string;
  /** How many runs the figure pools (the spread is over their medians when more than one). */
  readonly runs: number;
  /**
   * Calls, results or deliveries per second; bytes per session (or per request) for the memory
   * workload; sessions opened per second for the open workload.
   */
  readonly perSecond: Spread;
  /** For the load workload: milliseconds to load the role's modules in a fresh process. */
  readonly p50Ms: Spread;
  readonly p99Ms: Spread;
}

export interface RunReport {
  readonly date: string;
  readonly quick: boolean;
  /** "quick run: not for claims" on a quick run. */
  readonly notice?: string;
  /** Fewer workloads, transports or runs than a full `npm run bench`. */
  readonly partial: boolean;
  readonly machine: string;
  readonly settings: Record<string, number | string>;
  readonly runs: readonly RunInfo[];
  readonly measurements: readonly Measurement[];
}

export const QUICK_NOTICE = 'quick run: not for claims';

/** The implementations and the other series a row may have, in the order they are shown. */
export const SERIES = [
  ...['rxmcp', 'official', 'official-v2', 'floor', 'direct', 'proxied', 'policed', 'relay', 'partial', 'progress'],
  ...['1 process', '2 processes', '3 processes', 'owner', 'forwarded'],
];

/** The peers rxmcp is compared with. */
export const PEERS = ['official', 'official-v2'] as const;

export interface Group {
  readonly workload: string;
  readonly transport: string;
  readonly shape: string;
}

export function find(report: RunReport, group: Group, implementation: string): Measurement | undefined {
  return report.measurements.find(
    (m) =>
      m.workload === group.workload &&
      m.transport === group.transport &&
      m.shape === group.shape &&
      m.implementation === implementation,
  );
}

/** The rows of the report, in the order they were measured. */
export function groups(report: RunReport, ...workloads: string[]): Group[] {
  const seen = new Map<string, Group>();
  for (const m of report.measurements) {
    if (workloads.length > 0 && !workloads.includes(m.workload)) continue;
    const key = `${m.workload}|${m.transport}|${m.shape}`;
    if (!seen.has(key)) seen.set(key, { workload: m.workload, transport: m.transport, shape: m.shape });
  }
  return [...seen.values()];
}

const sessions = (shape: string) => `${Number(shape).toLocaleString('en-US')} session${shape === '1' ? '' : 's'}`;
const inFlight = (shape: string) => (shape === '1' ? 'sequential' : `${shape} in flight`);

export function describe(group: Group): string {
  switch (group.workload) {
    case 'calls':
      return `tools/call, ${group.transport}, ${inFlight(group.shape)}`;
    case 'scale':
      return `tools/call, ${group.transport}, ${sessions(group.shape)}, one call each in flight`;
    case 'large':
      return `1 MB result, ${group.transport}`;
    case 'memory':
      if (group.shape === 'per-request') return 'memory kept per stateless request, client and server';
      return `memory per idle session, ${group.shape === 'idle-shared' ? 'one shared server' : 'a server per client'}`;
    case 'open':
      return `new sessions per second, in memory, ${Number(group.shape).toLocaleString('en-US')} at a time`;
    case 'open-cold':
      return `new sessions per second, in memory, ${Number(group.shape).toLocaleString('en-US')} at a time, second batch (cold)`;
    case 'cold':
      return `tools/call, ${group.transport}, the first ${Number(group.shape).toLocaleString('en-US')} calls of a fresh process, sequential`;
    case 'cold-start':
      return `spawn to the first answered tools/call, ${group.transport}`;
    case 'stream':
      return `a tool streaming ${Number(group.shape).toLocaleString('en-US')} chunks in memory: chunks per second, p50 = ms to the first chunk`;
    case 'load':
      return `load time, ${group.shape === 'stdio-server' ? 'stdio server' : 'Streamable HTTP client'}`;
    case 'proxy':
      return `tools/call through a proxy / direct, ${group.transport === 'in-memory' ? 'in memory' : 'stdio to HTTP'}, ${inFlight(group.shape)}`;
    case 'cluster':
      return group.shape === '1'
        ? 'tools/call on a cluster, sequential: sent to the session owner / forwarded by another process'
        : `tools/call on a cluster of 1, 2, 3 processes on Redis, ${group.shape} in flight over 8 sessions`;
    default:
      return `fan-out to ${group.shape} clients`;
  }
}

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
