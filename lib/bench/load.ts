/**
 * Load as Observables: one call timed against its deadline ({@link timedCall}), calls kept N in
 * flight ({@link closedLoop}), and calls started at a fixed rate whatever the server does
 * ({@link openLoop}). Each emits one {@link CallOutcome} per call and completes when the load is
 * over and its last call has settled; unsubscribing cancels the calls in flight. Time is read only
 * from the scheduler, so tests run them in virtual time.
 */
import {
  asyncScheduler,
  catchError,
  defer,
  from,
  interval,
  last,
  map,
  Observable,
  of,
  race,
  Subscription,
  timer,
} from '../rx/rxjs';
import type { ObservableInput, SchedulerLike } from '../rx/rxjs';

/** What became of one call. */
export interface CallOutcome {
  /** When the call was due to start, in ms from the start of its phase. */
  readonly atMs: number;
  /** From when it was due (open loop) or started (closed loop) to its answer or failure, in ms. */
  readonly latencyMs: number;
  /** Absent for a result; else what went wrong: a JSON-RPC code, `timeout`, `tool-error`, an error's name. */
  readonly error?: string;
}

/** One call of the workload: an Observable (or Promise) of its answer; unsubscribing cancels it. */
export type BenchCall = () => ObservableInput<unknown>;

/** The error code an outcome records for a failure. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return String(code);
  if (error instanceof Error) return error.name === 'RequestTimeoutError' ? 'timeout' : error.name;
  return 'error';
}

/** A tool result that says the tool failed (`isError: true`) is no JSON-RPC error, but no success either. */
function failedTool(value: unknown): boolean {
  const result =
    (value as { type?: unknown; result?: unknown } | null)?.type === 'result'
      ? (value as { result: unknown }).result
      : value;
  return (result as { isError?: unknown } | null)?.isError === true;
}

/** Options of {@link timedCall}. */
export interface TimedCallOptions {
  readonly scheduler: SchedulerLike;
  /** The call fails with `timeout` (and is cancelled) when it has not settled this long after it started. */
  readonly timeoutMs: number;
  /** When the call was due (scheduler time): latency counts from there. Default: when it is subscribed. */
  readonly dueAt?: number;
  /** The `atMs` of the outcome. */
  readonly atMs: number;
}

/**
 * One call, timed: emits one outcome and completes; never errors. Cold. A call still running at
 * its deadline is unsubscribed (so the client cancels it) and recorded as `timeout`.
 */
export function timedCall(call: BenchCall, options: TimedCallOptions): Observable<CallOutcome> {
  const { scheduler, timeoutMs, atMs } = options;
  return defer(() => {
    const started = options.dueAt ?? scheduler.now();
    const outcome = (error?: string): CallOutcome => ({
      atMs,
      latencyMs: scheduler.now() - started,
      ...(error === undefined ? {} : { error }),
    });
    const answer$ = defer(() => from(call())).pipe(
      last(undefined, undefined),
      map((value) => outcome(failedTool(value) ? 'tool-error' : undefined)),
      catchError((error: unknown) => of(outcome(errorCode(error)))),
    );
    const deadline$ = timer(timeoutMs, scheduler).pipe(map(() => outcome('timeout')));
    return race(answer$, deadline$);
  });
}

/** Options of {@link closedLoop}. */
export interface ClosedLoopOptions {
  readonly call: BenchCall;
  /** Calls in flight at once. */
  readonly concurrency: number;
  /** No call starts once this long has passed since the loop started. */
  readonly durationMs: number;
  /** No call starts once this many have started. Default: no limit. */
  readonly maxCalls?: number;
  readonly timeoutMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * `concurrency` calls in flight: each that settles is followed at once by the next, until the
 * duration or the count is reached. Cold. A slow answer delays the calls behind it, so the loop
 * sends less when the server is slow: latency percentiles of a closed loop hide queueing (see
 * {@link openLoop}).
 */
export function closedLoop(options: ClosedLoopOptions): Observable<CallOutcome> {
  const { call, concurrency, durationMs, maxCalls = Infinity, timeoutMs, scheduler = asyncScheduler } = options;
  return new Observable<CallOutcome>((subscriber) => {
    const started = scheduler.now();
    const calls = new Subscription();
    let issued = 0;
    let running = 0;
    let pumping = false;
    const more = () => issued < maxCalls && scheduler.now() - started < durationMs;
    const pump = () => {
      if (pumping) return;
      pumping = true;
      while (!subscriber.closed && running < concurrency && more()) {
        issued++;
        running++;
        const atMs = scheduler.now() - started;
        let inner: Subscription | undefined;
        inner = timedCall(call, { scheduler, timeoutMs, atMs }).subscribe({
          next: (outcome) => subscriber.next(outcome),
          complete: () => {
            running--;
            if (inner) calls.remove(inner);
            inner = undefined;
            pump();
          },
        });
        if (!inner.closed) calls.add(inner);
      }
      pumping = false;
      if (running === 0 && !more()) subscriber.complete();
    };
    pump();
    return calls;
  });
}

/** Options of {@link openLoop}. */
export interface OpenLoopOptions {
  readonly call: BenchCall;
  /** Calls started per second, whatever the server does. */
  readonly ratePerSecond: number;
  /** Calls are due over this long: `ratePerSecond × durationMs / 1000` of them. */
  readonly durationMs: number;
  readonly timeoutMs: number;
  /**
   * Calls in flight beyond which a due call is not sent but recorded as `backlog`, so that a
   * stalled server cannot make the client itself run out of memory. Default 10,000.
   */
  readonly maxInFlight?: number;
  /** How often the schedule checks which calls are due. Default 1 ms. */
  readonly tickMs?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * Calls started at a fixed rate: call k is due `k / ratePerSecond` s after the start and sent then
 * (or at the next tick), whether or not the calls before it have been answered. Its latency counts
 * from when it was due, not from when it was sent: a server that stalls makes every call due during
 * the stall wait, and the percentiles show it (coordinated omission cannot hide it). Cold;
 * completes once every call due has settled.
 */
export function openLoop(options: OpenLoopOptions): Observable<CallOutcome> {
  const { call, ratePerSecond, durationMs, timeoutMs, maxInFlight = 10_000, tickMs = 1 } = options;
  const scheduler = options.scheduler ?? asyncScheduler;
  const total = Math.floor((ratePerSecond * durationMs) / 1000);
  const spacingMs = 1000 / ratePerSecond;
  return new Observable<CallOutcome>((subscriber) => {
    const started = scheduler.now();
    const calls = new Subscription();
    let sent = 0;
    let running = 0;
    const finish = () => {
      if (sent >= total && running === 0) subscriber.complete();
    };
    const send = (k: number) => {
      const atMs = k * spacingMs;
      if (running >= maxInFlight) {
        subscriber.next({ atMs, latencyMs: scheduler.now() - (started + atMs), error: 'backlog' });
        return;
      }
      running++;
      let inner: Subscription | undefined;
      inner = timedCall(call, { scheduler, timeoutMs, atMs, dueAt: started + atMs }).subscribe({
        next: (outcome) => subscriber.next(outcome),
        complete: () => {
          running--;
          if (inner) calls.remove(inner);
          inner = undefined;
          finish();
        },
      });
      if (!inner.closed) calls.add(inner);
    };
    const tick = () => {
      const due = Math.min(total, Math.floor((scheduler.now() - started) / spacingMs) + 1);
      while (sent < due && !subscriber.closed) send(sent++);
      if (sent >= total) ticker.unsubscribe();
      finish();
    };
    const ticker = interval(tickMs, scheduler).subscribe(tick);
    calls.add(ticker);
    tick();
    return calls;
  });
}
