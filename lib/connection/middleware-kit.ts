import { asyncScheduler, Observable } from '../rx/rxjs';
import type { SchedulerLike } from '../rx/rxjs';
import { JsonRpcError } from '../jsonrpc/errors';
import { childLogger } from '../base/logger';
import type { LoggerOption } from '../base/logger';
import { ProgressUpdate } from './handler-events';
import { isResultEvent } from './middleware';
import type { AnyMiddleware, MiddlewareEvent, MiddlewareRequest } from './middleware';

/** How one request ended, as `timing` reports it. */
export interface RequestOutcome {
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** From subscription to the end, on the middleware's scheduler. */
  readonly durationMs: number;
  /** `result`: answered; `error`: failed (see `error`); `cancelled`: unsubscribed before either. */
  readonly outcome: 'result' | 'error' | 'cancelled';
  readonly error?: unknown;
  /** The result said `isError: true` (a tool that failed: no JSON-RPC error, but a failure). */
  readonly isError: boolean;
  /** How many progress events passed before the end. */
  readonly progressEvents: number;
}

/** Options of the ready-made middlewares that time requests. */
export interface TimingOptions {
  /** Where durations are read (`scheduler.now()`). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * A middleware (either side) that calls `onDone` once per request when it ends: with a result,
 * an error, or a cancellation (the caller or the peer unsubscribed first). Passes every event on
 * untouched; unsubscribing passes through to the request below. `onDone` should not throw: when it
 * does on a result, the request fails with what it threw.
 * @example
 * createServer({ name, version, middleware: [timing((t) => histogram.record(t.durationMs, { method: t.method }))] });
 */
export function timing(onDone: (outcome: RequestOutcome) => void, options: TimingOptions = {}): AnyMiddleware {
  const scheduler = options.scheduler ?? asyncScheduler;
  return (request, _context, next) =>
    new Observable<MiddlewareEvent>((subscriber) => {
      const start = scheduler.now();
      let settled = false;
      let isError = false;
      let answered = false;
      let progressEvents = 0;
      /** Calls `onDone`; returns what it threw, if it threw. */
      const report = (outcome: RequestOutcome['outcome'], error?: unknown): unknown => {
        settled = true;
        const durationMs = scheduler.now() - start;
        const { method, params } = request;
        try {
          onDone({
            method,
            params,
            durationMs,
            outcome,
            isError,
            progressEvents,
            ...(error === undefined ? {} : { error }),
          });
          return undefined;
        } catch (failure) {
          return failure ?? new Error('onDone threw');
        }
      };
      const inner = next().subscribe({
        next: (event) => {
          if (event instanceof ProgressUpdate) progressEvents++;
          else if (isResultEvent(event)) {
            answered = true;
            isError = event.isError === true;
          }
          subscriber.next(event);
        },
        error: (error: unknown) => {
          report('error', error);
          subscriber.error(error);
        },
        complete: () => {
          const failure = report('result');
          // A throwing onDone fails the request (on a server: -32603, and the dispatcher logs it).
          if (failure === undefined) subscriber.complete();
          else subscriber.error(failure);
        },
      });
      return () => {
        inner.unsubscribe();
        // A caller that stops listening once it has the result (`take(1)`) did not cancel. What a
        // throwing onDone throws here is dropped: nobody listens any more, and a teardown must not throw.
        if (!settled) report(answered ? 'result' : 'cancelled');
      };
    });
}

/** Options of `logging`. */
export interface LoggingOptions extends TimingOptions {
  /** Where the lines go: a pino logger or a console-like one. */
  readonly logger: LoggerOption;
}

/** The low-cardinality target of a request: the tool or prompt it names. */
export function targetOf(request: MiddlewareRequest): string | undefined {
  const { method, params } = request;
  if (method !== 'tools/call' && method !== 'prompts/get') return undefined;
  return typeof params.name === 'string' ? params.name : undefined;
}

/**
 * A middleware (either side) that logs one line per request when it ends: `method`, the tool or
 * prompt `name`, `durationMs`, `outcome` (result, error, cancelled), `isError` for a failed tool,
 * and the JSON-RPC `code` of an error. Results at info, errors at warn.
 */
export function logging(options: LoggingOptions): AnyMiddleware {
  const log = childLogger(options.logger, { component: 'middleware' });
  return timing((done) => {
    const line: Record<string, unknown> = {
      method: done.method,
      durationMs: done.durationMs,
      outcome: done.outcome,
    };
    const name = targetOf(done);
    if (name !== undefined) line.name = name;
    if (done.isError) line.isError = true;
    if (done.outcome !== 'error') {
      log.info(line, 'request done');
      return;
    }
    if (done.error instanceof JsonRpcError) line.code = done.error.code;
    line.err = done.error;
    log.warn(line, 'request failed');
  }, options);
}

/** What `metrics` has counted for one method (or key). */
export interface MethodMetrics {
  count: number;
  errors: number;
  cancelled: number;
  /** Results with `isError: true`. */
  toolErrors: number;
  totalMs: number;
  maxMs: number;
}

/** A middleware that counts; read its figures with `snapshot()`. */
export interface MetricsMiddleware extends AnyMiddleware {
  /** A copy of the figures so far, by key. */
  snapshot(): Record<string, MethodMetrics>;
  /** Forgets every figure. */
  reset(): void;
}

/** Options of `metrics`. */
export interface MetricsOptions extends TimingOptions {
  /** What to count by. Default: the method, with the tool or prompt name (`tools/call echo`). */
  readonly key?: (request: MiddlewareRequest) => string;
}

/**
 * A middleware (either side) that counts requests, errors, cancellations and failed tools, and
 * sums their durations, per method and target.
 * @example
 * const counted = metrics();
 * createServer({ name, version, middleware: [counted] });
 * counted.snapshot()['tools/call echo']; // { count, errors, cancelled, toolErrors, totalMs, maxMs }
 */
export function metrics(options: MetricsOptions = {}): MetricsMiddleware {
  const keyOf = options.key ?? defaultKey;
  let figures = new Map<string, MethodMetrics>();
  const middleware = timing((done) => {
    const key = keyOf(done);
    let entry = figures.get(key);
    if (entry === undefined) {
      entry = { count: 0, errors: 0, cancelled: 0, toolErrors: 0, totalMs: 0, maxMs: 0 };
      figures.set(key, entry);
    }
    entry.count++;
    if (done.outcome === 'error') entry.errors++;
    if (done.outcome === 'cancelled') entry.cancelled++;
    if (done.isError) entry.toolErrors++;
    entry.totalMs += done.durationMs;
    entry.maxMs = Math.max(entry.maxMs, done.durationMs);
  }, options);
  return Object.assign(middleware, {
    snapshot: () => Object.fromEntries([...figures].map(([key, entry]) => [key, { ...entry }])),
    reset: () => {
      figures = new Map();
    },
  });
}

function defaultKey(request: MiddlewareRequest): string {
  const target = targetOf(request);
  return target === undefined ? request.method : `${request.method} ${target}`;
}
