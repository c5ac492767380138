/**
 * The benchmark engine behind `rxmcp bench` and `rxmcp/bench`: each repetition opens every target
 * afresh (a command is a fresh process), takes its cold calls, warms it up until its rate settles,
 * measures it under the load asked for, and closes it; targets take turns, in an order that
 * alternates between repetitions, so that the machine's moods fall on each alike.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { catchError, concatMap, from, last, Observable, throwError } from '../rx/rxjs';
import type { SchedulerLike, Subscription } from '../rx/rxjs';
import type { McpClient } from '../client/client';
import { performanceScheduler } from './clock';
import { closedLoop, openLoop } from './load';
import type { BenchCall, CallOutcome } from './load';
import { collectPhase, warmUp } from './phase';
import type { PhaseResult, WarmUpOptions, WarmUpReport } from './phase';
import { processUsage } from './process-usage';
import { busyMachine, flagNoisy, summarizePhase, summarizeTarget } from './report';
import type { BenchReport, RepResult, ServerUsage, TargetResult } from './report';
import { awaitServed, checkServed, describeWorkload, workloadCall } from './workload';
import type { BenchWorkload, Served } from './workload';

/** An open connection to a target. */
export interface BenchConnection {
  readonly client: McpClient;
  /** The server's process, when it is local and known (a stdio target's child): its CPU and memory are read. */
  readonly pid?: number;
  /** Closes the connection (and stops the process of a command target). */
  close(): Promise<void>;
}

/** A server to measure. */
export interface BenchTarget {
  readonly name: string;
  /** How it is reached, for the report: `stdio: node server.js`, `http://127.0.0.1:3000/mcp`. */
  readonly how: string;
  /** Opens a fresh connection (for a command, starts a fresh process). */
  open(): Promise<BenchConnection>;
}

/** Calls kept in flight (closed loop), or started at a fixed rate (open loop). */
export type BenchLoad =
  { readonly kind: 'closed'; readonly concurrency: number } | { readonly kind: 'open'; readonly ratePerSecond: number };

/** Options of {@link runBench}. */
export interface BenchOptions {
  readonly targets: readonly BenchTarget[];
  readonly workload: BenchWorkload;
  readonly load: BenchLoad;
  /** Repetitions per target. Default 3 (fewer are flagged: not to be quoted). */
  readonly reps?: number;
  /** The steady phase of each repetition. Default 5 s. */
  readonly durationMs?: number;
  /** Calls of the cold phase, one at a time, on each fresh connection. Default 100. */
  readonly coldCalls?: number;
  /** A call not answered in this long fails as `timeout` (and is cancelled). Default 10 s. */
  readonly timeoutMs?: number;
  readonly warmUp?: WarmUpOptions;
  /** Connections per target and repetition; calls go to each in turn. Default 1. */
  readonly sessions?: number;
  /**
   * Connect/disconnect churn: each call opens a connection of its own (for a command, a process),
   * makes the workload's call and closes it. Default false.
   */
  readonly churn?: boolean;
  /** See {@link BenchSettings.noiseThreshold}. Default 0.15. */
  readonly noiseThreshold?: number;
  /** Where time is read and timers run. Default {@link performanceScheduler}. */
  readonly scheduler?: SchedulerLike;
}

/** What a run tells as it goes. */
export type BenchEvent =
  | {
      readonly type: 'phase';
      readonly target: string;
      readonly rep: number;
      readonly phase: 'connect' | 'cold' | 'warm-up' | 'measure';
    }
  | { readonly type: 'rep'; readonly target: string; readonly rep: number; readonly result: RepResult }
  | { readonly type: 'report'; readonly report: BenchReport };

/** How a load reads in a report. */
export function describeLoad(load: BenchLoad): string {
  return load.kind === 'closed'
    ? `closed loop, ${load.concurrency} in flight`
    : `open loop, ${load.ratePerSecond} calls/s`;
}

/** The phase under way: its subscription, and how to fail the wait on it. */
interface Track {
  current?: Subscription;
  cancel?: () => void;
}

/** Subscribes, resolving with the last value; `track` holds the subscription so the run can be stopped. */
function settle<T>(source: Observable<T>, track: Track): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    track.cancel = () => reject(new Error('the run was stopped'));
    let last: T | undefined;
    let seen = false;
    track.current = source.subscribe({
      next: (value) => {
        last = value;
        seen = true;
      },
      error: reject,
      complete: () => (seen ? resolve(last as T) : reject(new Error('a phase ended with no result'))),
    });
  });
}

/** Opens `count` connections, 16 at a time; closes those opened when one fails. */
async function openAll(target: BenchTarget, count: number): Promise<BenchConnection[]> {
  const open: BenchConnection[] = [];
  try {
    for (let i = 0; i < count; i += 16) {
      const batch = await Promise.all(Array.from({ length: Math.min(16, count - i) }, () => target.open()));
      open.push(...batch);
    }
    return open;
  } catch (error) {
    await Promise.allSettled(open.map((c) => c.close()));
    throw error;
  }
}

/** A call that opens a connection of its own, makes the workload's call on it and closes it. */
function churnCall(target: BenchTarget, workload: BenchWorkload): BenchCall {
  return () =>
    from(target.open()).pipe(
      concatMap((connection) =>
        from(workloadCall(connection.client, workload)()).pipe(
          last(undefined, undefined),
          concatMap((answer) => from(connection.close().then(() => answer))),
          catchError((error: unknown) => from(connection.close()).pipe(concatMap(() => throwError(() => error)))),
        ),
      ),
    );
}

/** The run: one repetition of one target at a time. */
class Run {
  private readonly scheduler: SchedulerLike;
  private readonly track: Track = {};
  private readonly served = new Map<string, Served>();
  stopped = false;

  constructor(
    private readonly options: BenchOptions,
    private readonly emit: (event: BenchEvent) => void,
  ) {
    this.scheduler = options.scheduler ?? performanceScheduler;
  }

  stop(): void {
    this.stopped = true;
    this.track.current?.unsubscribe();
    this.track.cancel?.();
  }

  private load(call: BenchCall, durationMs: number): Observable<CallOutcome> {
    const { load, timeoutMs = 10_000 } = this.options;
    const scheduler = this.scheduler;
    return load.kind === 'closed'
      ? closedLoop({ call, concurrency: load.concurrency, durationMs, timeoutMs, scheduler })
      : openLoop({ call, ratePerSecond: load.ratePerSecond, durationMs, timeoutMs, scheduler });
  }

  /** Runs a phase to its end; fails at once once the run is stopped (a stop during a connect lands here). */
  private settle<T>(source: Observable<T>): Promise<T> {
    if (this.stopped) return Promise.reject(new Error('the run was stopped'));
    return settle(source, this.track);
  }

  private phase(outcomes$: Observable<CallOutcome>): Promise<PhaseResult> {
    return this.settle(collectPhase(outcomes$, { scheduler: this.scheduler }));
  }

  private usage(pid: number | undefined) {
    return pid === undefined ? undefined : processUsage(pid);
  }

  /**
   * Opens the sessions beyond the first into `connections`. When they all reach one local process
   * (an HTTP server named by PID), resolves with its resident set's growth per session, in KiB.
   */
  private async openMore(target: BenchTarget, connections: BenchConnection[], sessions: number) {
    const pid = connections[0]!.pid;
    const alone = this.usage(pid);
    connections.push(...(await openAll(target, sessions - 1)));
    if (sessions < 2 || !alone || !connections.every((c) => c.pid === pid)) return undefined;
    const all = this.usage(pid);
    return all ? (all.rssBytes - alone.rssBytes) / (sessions - 1) / 1024 : undefined;
  }

  async rep(target: BenchTarget, rep: number): Promise<RepResult> {
    const { workload, durationMs = 5000, coldCalls = 100, timeoutMs = 10_000, sessions = 1 } = this.options;
    const step = (phase: 'connect' | 'cold' | 'warm-up' | 'measure') =>
      this.emit({ type: 'phase', target: target.name, rep, phase });
    step('connect');
    const connections = await openAll(target, 1);
    try {
      const perSessionKiB = await this.openMore(target, connections, sessions);
      if (!this.served.has(target.name))
        this.served.set(target.name, await awaitServed(target.name, connections[0]!.client, workload));
      checkServed(target.name, workload, this.served.get(target.name)!);
      const calls = connections.map((c, i) => workloadCall(c.client, workload, i + 1));
      let next = 0;
      const call: BenchCall = this.options.churn ? churnCall(target, workload) : () => calls[next++ % calls.length]!();
      step('cold');
      const cold = await this.phase(
        closedLoop({
          call,
          concurrency: 1,
          durationMs: Infinity,
          maxCalls: coldCalls,
          timeoutMs,
          scheduler: this.scheduler,
        }),
      );
      step('warm-up');
      const measure = this.options.load.kind === 'open' ? 'latency' : 'rate';
      const warm: WarmUpReport = await this.settle(
        warmUp((windowMs) => collectPhase(this.load(call, windowMs), { scheduler: this.scheduler }), {
          measure,
          ...this.options.warmUp,
        }),
      );
      step('measure');
      const pid = connections[0]!.pid;
      const before = this.usage(pid);
      const steady = await this.phase(this.load(call, durationMs));
      const after = this.usage(pid);
      const server: ServerUsage | undefined =
        before && after
          ? {
              cpuMsPerCall: (after.cpuMs - before.cpuMs) / Math.max(1, steady.calls),
              rssMiB: after.rssBytes / 2 ** 20,
              sessions,
              ...(perSessionKiB !== undefined ? { rssPerSessionKiB: perSessionKiB } : {}),
            }
          : undefined;
      return {
        rep,
        warmUp: warm,
        cold: summarizePhase(cold),
        steady: summarizePhase(steady),
        timeline: steady.timeline,
        ...(server ? { server } : {}),
      };
    } finally {
      await Promise.allSettled(connections.map((c) => c.close()));
    }
  }

  async all(): Promise<BenchReport> {
    const { targets, reps = 3, noiseThreshold = 0.15 } = this.options;
    const startedAt = new Date().toISOString();
    const loadAvgStart = loadavg();
    const started = this.scheduler.now();
    const results = new Map<string, RepResult[]>(targets.map((t) => [t.name, []]));
    for (let rep = 1; rep <= reps && !this.stopped; rep++) {
      const order = rep % 2 === 1 ? targets : [...targets].reverse();
      for (const target of order) {
        if (this.stopped) break;
        const result = await this.rep(target, rep);
        results.get(target.name)!.push(result);
        this.emit({ type: 'rep', target: target.name, rep, result });
      }
    }
    const loadAvgEnd = loadavg();
    const busy = busyMachine(loadAvgStart, loadAvgEnd, cpus().length);
    const targetResults: TargetResult[] = targets.map((t) => ({
      name: t.name,
      how: t.how,
      served: this.served.get(t.name) ?? { tools: [], resources: [], prompts: [] },
      reps: results.get(t.name)!,
      summary: flagNoisy(summarizeTarget(results.get(t.name)!, noiseThreshold), busy),
    }));
    return {
      format: 'rxmcp-bench/1',
      startedAt,
      durationMs: this.scheduler.now() - started,
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`,
      loadAvgStart,
      loadAvgEnd,
      settings: {
        workload: describeWorkload(this.options.workload),
        load: describeLoad(this.options.load),
        reps,
        durationMs: this.options.durationMs ?? 5000,
        coldCalls: this.options.coldCalls ?? 100,
        timeoutMs: this.options.timeoutMs ?? 10_000,
        noiseThreshold,
      },
      targets: targetResults,
    };
  }
}

/**
 * Benchmarks the targets: emits a `phase` event as each phase of each repetition starts, a `rep`
 * event with each repetition's result, then the `report` and completes. Cold; unsubscribing stops
 * the run, cancelling the calls in flight (the connection open at that moment is closed). Errors
 * when a target cannot be reached or does not serve the workload.
 */
export function runBench(options: BenchOptions): Observable<BenchEvent> {
  return new Observable<BenchEvent>((subscriber) => {
    const run = new Run(options, (event) => subscriber.next(event));
    run.all().then(
      (report) => {
        if (run.stopped) return;
        subscriber.next({ type: 'report', report });
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => run.stop();
  });
}
