import { filter, map, Observable, pipe } from '../rx/rxjs';
import type { MonoTypeOperatorFunction, OperatorFunction } from '../rx/rxjs';
import { notification } from '../jsonrpc/message';
import type { JsonRpcNotification } from '../jsonrpc/message';

/** The method of a progress notification. */
export const PROGRESS_METHOD = 'notifications/progress';

/** A progress token: the `_meta.progressToken` a request carried, a string or an integer. */
export type ProgressToken = string | number;

/** One progress report for a request. */
export interface ProgressEvent {
  /** How far along; the spec requires it to increase with each report. */
  readonly progress: number;
  /** The total, when known. */
  readonly total?: number;
  /** A human-readable description of the current step. */
  readonly message?: string;
}

/** A well-formed progress notification's params. */
export interface ProgressParams extends ProgressEvent {
  readonly progressToken: ProgressToken;
}

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * Reads a `notifications/progress` message: its params when well formed (a string or integer
 * token, a finite `progress`, and `total` and `message` of the right type when present), else
 * `undefined`. For code that routes progress for many requests through one map lookup.
 */
export function readProgress(message: JsonRpcNotification): ProgressParams | undefined {
  if (message.method !== PROGRESS_METHOD) return undefined;
  const params = message.params;
  if (params === undefined) return undefined;
  const { progressToken, progress, total, message: text } = params;
  if (typeof progressToken !== 'string' && !Number.isInteger(progressToken)) return undefined;
  if (!isFiniteNumber(progress)) return undefined;
  if (total !== undefined && !isFiniteNumber(total)) return undefined;
  if (text !== undefined && typeof text !== 'string') return undefined;
  return {
    progressToken: progressToken as ProgressToken,
    progress,
    ...(total === undefined ? {} : { total }),
    ...(text === undefined ? {} : { message: text }),
  };
}

/**
 * Picks the progress for one token out of a stream of inbound notifications of any method, as
 * `{ progress, total?, message? }`. Tokens compare strictly: the number `1` and the string `"1"`
 * are different tokens. Malformed progress notifications (see `readProgress`) are dropped.
 *
 * As hot or cold as its source, which it subscribes once per subscriber; unsubscribing
 * unsubscribes the source. It never completes on its own: pair it with the request's lifetime
 * (`takeUntil`) or pass it as `resets` to `timeoutWithReset`, which releases it.
 *
 * @example
 * ```ts
 * const progress$ = notifications$.pipe(progressFor(token));
 * progress$.pipe(takeUntil(result$)).subscribe(({ progress, total }) => bar.update(progress, total));
 * ```
 */
export function progressFor(token: ProgressToken): OperatorFunction<JsonRpcNotification, ProgressEvent> {
  return pipe(
    map(readProgress),
    filter((params): params is ProgressParams => params !== undefined && params.progressToken === token),
    map((params): ProgressEvent => {
      const { progress, total, message } = params;
      return { progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) };
    }),
  );
}

/**
 * Builds a `notifications/progress` message. `total` and `message` are left out when undefined.
 *
 * @example
 * ```ts
 * transport.send(progressNotification(token, 3, 10, 'indexing'));
 * ```
 */
export function progressNotification(
  token: ProgressToken,
  progress: number,
  total?: number,
  message?: string,
): JsonRpcNotification {
  return notification(PROGRESS_METHOD, {
    progressToken: token,
    progress,
    ...(total === undefined ? {} : { total }),
    ...(message === undefined ? {} : { message }),
  });
}

/**
 * Drops progress reports whose `progress` is not greater than the last one let through, since
 * the spec says progress must increase with each notification (a peer that repeats or goes back
 * would otherwise make a progress bar jump). Cold, with its memory per subscriber.
 */
export function monotonicProgress<E extends ProgressEvent>(): MonoTypeOperatorFunction<E> {
  return (source) =>
    new Observable<E>((subscriber) => {
      let last = -Infinity;
      return source.subscribe({
        next: (event) => {
          if (event.progress <= last) return;
          last = event.progress;
          subscriber.next(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
