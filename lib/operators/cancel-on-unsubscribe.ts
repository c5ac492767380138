import { Observable } from '../rx/rxjs';
import type { MonoTypeOperatorFunction } from '../rx/rxjs';
import { RequestTimeoutError } from '../jsonrpc/errors';
import { notification } from '../jsonrpc/message';
import type { JsonRpcNotification, RequestId } from '../jsonrpc/message';

/** The reason given when the caller unsubscribes and no other reason was configured. */
export const DEFAULT_CANCEL_REASON = 'The caller cancelled the request';

/** Options of {@link cancelOnUnsubscribe}. */
export interface CancelOnUnsubscribeOptions {
  /** Called at most once per subscription, with the reason. It should not throw. */
  readonly onCancel: (reason: string) => void;
  /** The reason for an early unsubscribe; a function is read at the moment of cancelling. */
  readonly reason?: string | (() => string);
  /**
   * Decides whether an error of the source also cancels, and why: return a reason to cancel, or
   * `undefined` to let the error pass without cancelling. The default cancels on a
   * `RequestTimeoutError` (the peer is still working on a request we gave up on) with the error's
   * message as the reason, and on nothing else (an error response or a closed connection means
   * there is nothing left to cancel).
   */
  readonly reasonForError?: (error: unknown) => string | undefined;
}

/** The default of {@link CancelOnUnsubscribeOptions.reasonForError}: timeouts cancel, other errors do not. */
export function timeoutCancelReason(error: unknown): string | undefined {
  return error instanceof RequestTimeoutError ? error.message : undefined;
}

/**
 * Mirrors the source, and calls `onCancel` when the work it stands for is abandoned: when the
 * subscriber unsubscribes before the source completes or errors (with `reason`), or when the source
 * errors with an error that `reasonForError` maps to a reason (by default a `RequestTimeoutError`).
 * Never after the source completes, and at most once per subscription.
 *
 * Cold, with state per subscriber. On an early unsubscribe the source is unsubscribed first and
 * `onCancel` called after, so a response that races the cancellation is already ignored. On a
 * cancelling error, `onCancel` runs before the error is forwarded.
 *
 * Place it after (downstream of) `timeoutWithReset`: the timeout then reaches it as an error and
 * the cancellation's reason says that the request timed out. Placed before the timeout it still
 * cancels on a timeout (the timeout unsubscribes it), but with the plain unsubscribe `reason`.
 *
 * @example
 * ```ts
 * work$.pipe(cancelOnUnsubscribe({ onCancel: (reason) => log.info({ reason }, 'work abandoned') }));
 * ```
 */
export function cancelOnUnsubscribe<T>(options: CancelOnUnsubscribeOptions): MonoTypeOperatorFunction<T> {
  const { onCancel, reason = DEFAULT_CANCEL_REASON, reasonForError = timeoutCancelReason } = options;
  return (source) =>
    new Observable<T>((subscriber) => {
      let settled = false;
      const inner = source.subscribe({
        next: (value) => subscriber.next(value),
        error: (error: unknown) => {
          settled = true;
          try {
            const why = reasonForError(error);
            if (why !== undefined) onCancel(why);
          } finally {
            // The error reaches the subscriber even if onCancel throws; RxJS reports the throw.
            subscriber.error(error);
          }
        },
        complete: () => {
          settled = true;
          subscriber.complete();
        },
      });
      return () => {
        inner.unsubscribe();
        if (settled) return;
        settled = true;
        onCancel(typeof reason === 'function' ? reason() : reason);
      };
    });
}

/** Options of {@link cancelRequestOnUnsubscribe}. */
export interface CancelRequestOnUnsubscribeOptions {
  /** The id of the outbound request the source stands for. */
  readonly requestId: RequestId;
  /** Sends the `notifications/cancelled` message to the peer. */
  readonly send: (message: JsonRpcNotification) => void;
  /** As in {@link CancelOnUnsubscribeOptions.reason}. */
  readonly reason?: string | (() => string);
  /** As in {@link CancelOnUnsubscribeOptions.reasonForError}. */
  readonly reasonForError?: (error: unknown) => string | undefined;
}

/** Builds the `notifications/cancelled` notification for a request. */
export function cancelledNotification(requestId: RequestId, reason?: string): JsonRpcNotification {
  return notification('notifications/cancelled', reason === undefined ? { requestId } : { requestId, reason });
}

/**
 * {@link cancelOnUnsubscribe} for an outbound request: sends `notifications/cancelled` with
 * `{ requestId, reason }` when the caller unsubscribes before the response, or when the request
 * times out (see the recommended order below). Cold; unsubscribing unsubscribes the source first.
 *
 * @example
 * ```ts
 * const result$ = sendRequest(id, 'tools/call', params).pipe(
 *   timeoutWithReset({ idleMs: 60_000, resets: progress$, context: { method: 'tools/call', id } }),
 *   cancelRequestOnUnsubscribe({ requestId: id, send: (n) => transport.send(n) }),
 * );
 * ```
 */
export function cancelRequestOnUnsubscribe<T>(options: CancelRequestOnUnsubscribeOptions): MonoTypeOperatorFunction<T> {
  const { requestId, send, reason, reasonForError } = options;
  return cancelOnUnsubscribe<T>({
    onCancel: (why) => send(cancelledNotification(requestId, why)),
    reason,
    reasonForError,
  });
}
