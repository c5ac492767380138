/**
 * Load as Observables: one call timed against its deadline ({@link timedCall}), calls kept N in
 * flight ({@link closedLoop}), and calls started at a fixed rate whatever the server does
 * ({@link openLoop}). Each emits one {@link CallOutcome} per call and completes when the load is
 * over and its last call has settled; unsubscribing cancels the calls in flight. Time is read only
 * from the scheduler, so tests run them in virtual time.
 */
import { asyncScheduler, from, interval, Observable } from '../rx/rxjs';
import type { ObservableInput, SchedulerLike, Unsubscribable } from '../rx/rxjs';

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
  /**
   * The call fails with `timeout` (and is cancelled) when it has not settled this long after it
   * started; `Infinity` sets no deadline (and no timer).
   */
  readonly timeoutMs: number;
  /** When the call was due (scheduler time): latency counts from there. Default: when it is subscribed. */
  readonly dueAt?: number;
  /** The `atMs` of the outcome. */
  readonly atMs: number;
}

/** A thing with `then`: a call's answer that is a Promise takes the fast path (no Observable around it). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * Starts one call and calls `done` once with its outcome (unless stopped first); returns how to stop
 * it. The one implementation of a timed call: {@link timedCall} and the loops run it. A Promise is
 * awaited as it is (it cannot be cancelled: its outcome is dropped); anything else is subscribed,
 * and unsubscribed at the deadline.
 */
function startCall(call: BenchCall, options: TimedCallOptions, done: (outcome: CallOutcome) => void): () => void {
  const { scheduler, timeoutMs, atMs } = options;
  const started = options.dueAt ?? scheduler.now();
  let settled = false;
  let inner: Unsubscribable | undefined;
  let deadline: Unsubscribable | undefined;
  const finish = (error?: string) => {
    if (settled) return;
    settled = true;
    deadline?.unsubscribe();
    done(
      error === undefined
        ? { atMs, latencyMs: scheduler.now() - started }
        : { atMs, latencyMs: scheduler.now() - started, error },
    );
  };
  try {
    const answer = call();
    if (isThenable(answer)) {
      answer.then(
        (value) => finish(failedTool(value) ? 'tool-error' : undefined),
        (error: unknown) => finish(errorCode(error)),
      );
    } else {
      let last: unknown;
      inner = from(answer).subscribe({
        next: (value) => (last = value),
        error: (error: unknown) => finish(errorCode(error)),
        complete: () => finish(failedTool(last) ? 'tool-error' : undefined),
      });
    }
  } catch (error) {
    finish(errorCode(error));
  }
  if (!settled && Number.isFinite(timeoutMs)) {
    deadline = scheduler.schedule(() => {
      inner?.unsubscribe();
      finish('timeout');
    }, timeoutMs);
  }
  return () => {
    settled = true;
    inner?.unsubscribe();
    deadline?.unsubscribe();
  };
}

/**
 * One call, timed: emits one outcome and completes; never errors. Cold. A call still running at
 * its deadline is unsubscribed (so the client cancels it) and recorded as `timeout`.
 */
export function timedCall(call: BenchCall, options: TimedCallOptions): Observable<CallOutcome> {
  return new Observable<CallOutcome>((subscriber) =>
    startCall(call, options, (outcome) => {
      subscriber.next(outcome);
      subscriber.complete();
    }),
  );
}

/** Options of {@link closedLoop}. */
export interface ClosedLoopOptions {
  readonly call: BenchCall;
  /** Calls in flight at once. */
  readonly concurrency: number;
  /** No call starts once this long has passed since the loop started. */
  readonly durationMs: number;
  /** No call starts once this many have started (and `minDurationMs` has passed). Default: no limit. */
  readonly maxCalls?: number;
  /** Calls go on starting until this long has passed, whatever `maxCalls`. Default 0. */
  readonly minDurationMs?: number;
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
  const { call, concurrency, durationMs, maxCalls = Infinity, minDurationMs = 0, timeoutMs } = options;
  const scheduler = options.scheduler ?? asyncScheduler;
  return new Observable<CallOutcome>((subscriber) => {
    const started = scheduler.now();
    const stops = new Set<() => void>();
    let issued = 0;
    let running = 0;
    let pumping = false;
    const more = (elapsed: number) => elapsed < minDurationMs || (issued < maxCalls && elapsed < durationMs);
    const pump = () => {
      if (pumping) return;
      pumping = true;
      // One reading of the clock per call started: it decides, and it is the call's start.
      let now = scheduler.now();
      while (!subscriber.closed && running < concurrency && more(now - started)) {
        issued++;
        running++;
        // The call may settle before startCall returns: the holder is filled in after.
        const held: { stop?: () => void } = {};
        let ended = false;
        held.stop = startCall(call, { scheduler, timeoutMs, atMs: now - started, dueAt: now }, (outcome) => {
          ended = true;
          running--;
          if (held.stop) stops.delete(held.stop);
          subscriber.next(outcome);
          pump();
        });
        if (!ended) stops.add(held.stop);
        now = scheduler.now();
      }
      pumping = false;
      if (running === 0 && !more(scheduler.now() - started)) subscriber.complete();
    };
    pump();
    return () => {
      for (const stop of stops) stop();
    };
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
    const stops = new Set<() => void>();
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
      const held: { stop?: () => void } = {};
      let ended = false;
      held.stop = startCall(call, { scheduler, timeoutMs, atMs, dueAt: started + atMs }, (outcome) => {
        ended = true;
        running--;
        if (held.stop) stops.delete(held.stop);
        subscriber.next(outcome);
        finish();
      });
      if (!ended) stops.add(held.stop);
    };
    const tick = () => {
      const due = Math.min(total, Math.floor((scheduler.now() - started) / spacingMs) + 1);
      while (sent < due && !subscriber.closed) send(sent++);
      if (sent >= total) ticker.unsubscribe();
      finish();
    };
    const ticker = interval(tickMs, scheduler).subscribe(tick);
    tick();
    return () => {
      ticker.unsubscribe();
      for (const stop of stops) stop();
    };
  });
}
