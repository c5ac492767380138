import { Observable, Subject } from 'rxjs';
import type { SchedulerLike, Subscription } from 'rxjs';
import { request as makeRequest } from '../jsonrpc/message';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/message';
import { cancelOnUnsubscribe } from '../operators/cancel-on-unsubscribe';
import { timeoutWithReset } from '../operators/timeout-with-reset';
import type { SendOptions } from '../transport/transport';
import type { Correlator, ProgressParams } from './correlator';

/** How long a request may wait without a response or progress, unless the caller says otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Per-request options of `Connection.request`. */
export interface RequestOptions {
  /** Fail when this long passes without a response (or progress, see below). Default 60 s. */
  readonly timeoutMs?: number;
  /** Whether progress notifications restart the timeout. Default: true when `onProgress` is given. */
  readonly resetTimeoutOnProgress?: boolean;
  /** Fail when this long passes in all, progress or not. Default: no maximum. */
  readonly maxTotalTimeoutMs?: number;
  /** Asks the peer for progress (a progress token is added to `_meta`) and receives it here. */
  readonly onProgress?: (progress: ProgressParams) => void;
  /** Aborting it cancels the request (the peer gets `notifications/cancelled`). */
  readonly signal?: AbortSignal;
  /** Extra `_meta` fields to send with the request. */
  readonly meta?: Record<string, unknown>;
  /** The inbound request this one is sent on behalf of (routes it on Streamable HTTP). */
  readonly relatedRequestId?: RequestId;
}

/** What the request pipeline needs from its connection. */
export interface RequesterDeps {
  /** A fresh id for the next request. */
  nextRequestId(): RequestId;
  readonly correlator: Correlator;
  readonly scheduler: SchedulerLike;
  readonly requestTimeoutMs: number;
  /** Why the request may not be sent now, if it may not (lifecycle, capabilities). */
  refusal(method: string): Error | undefined;
  /** Checks (and may replace) a result; throws a `ProtocolError` for an invalid one. */
  validate(method: string, result: Record<string, unknown>, taskAugmented: boolean): Record<string, unknown>;
  send(message: JsonRpcMessage, options: SendOptions | undefined): void;
  notify(method: string, params: Record<string, unknown>, options: SendOptions | undefined): void;
}

/**
 * A request as a cold Observable: subscribing checks `deps.refusal` (when `cancellable`), sends the
 * request with a fresh id, and emits its validated result; unsubscribing before the answer sends
 * `notifications/cancelled` (when `cancellable`: initialize may not be cancelled). One layer of our
 * own plus the timeout and cancellation operators: this runs for every request, so validation
 * happens inside the correlator entry.
 */
export function sendRequest(
  deps: RequesterDeps,
  method: string,
  params: Record<string, unknown> | undefined,
  requestOptions: RequestOptions,
  cancellable: boolean,
): Observable<Record<string, unknown>> {
  return new Observable<Record<string, unknown>>((subscriber) => {
    if (cancellable) {
      const refusal = deps.refusal(method);
      if (refusal) {
        subscriber.error(refusal);
        return undefined;
      }
    }
    const requestId = deps.nextRequestId();
    const { onProgress, signal } = requestOptions;
    if (signal?.aborted) {
      subscriber.error(signal.reason);
      return undefined;
    }
    let outParams = params;
    if (onProgress || requestOptions.meta) {
      const meta: Record<string, unknown> = { ...(params?._meta as Record<string, unknown> | undefined), ...requestOptions.meta };
      if (onProgress) meta.progressToken = requestId;
      outParams = { ...params, _meta: meta };
    }
    const resetOnProgress = requestOptions.resetTimeoutOnProgress ?? onProgress !== undefined;
    const progress$ = resetOnProgress ? new Subject<ProgressParams>() : undefined;
    const deliverProgress =
      onProgress || progress$
        ? (value: ProgressParams) => {
            onProgress?.(value);
            progress$?.next(value);
          }
        : undefined;
    // Set when the response arrives: a caller that unsubscribes on the first value (firstValueFrom,
    // take(1)) does so before the response Observable completes, and must not cancel an answered request.
    let answered = false;
    const taskAugmented = params?.task !== undefined;
    const accept = (result: Record<string, unknown>) => {
      answered = true;
      return deps.validate(method, result, taskAugmented);
    };
    let response$ = deps.correlator.expect(requestId, method, deliverProgress, accept).pipe(
      timeoutWithReset<Record<string, unknown>>({
        idleMs: requestOptions.timeoutMs ?? deps.requestTimeoutMs,
        totalMs: requestOptions.maxTotalTimeoutMs,
        resets: progress$,
        // One response ends the request; only progress keeps it alive.
        resetOnValue: false,
        context: { method, id: requestId },
        scheduler: deps.scheduler,
      }),
    );
    if (cancellable) {
      response$ = response$.pipe(
        cancelOnUnsubscribe({
          onCancel: (reason) => {
            if (!answered) deps.notify('notifications/cancelled', { requestId, reason }, sendOptionsOf(requestOptions));
          },
          reason: () => (signal?.aborted ? describeAbort(signal) : 'The caller cancelled the request'),
        }),
      );
    }
    const inner: Subscription = response$.subscribe(subscriber);
    deps.send(makeRequest(requestId, method, outParams), sendOptionsOf(requestOptions));
    if (!signal) return inner;
    const onAbort = () => {
      // Error first: `inner` may be this very subscriber (RxJS reuses a Subscriber passed to
      // subscribe), and unsubscribing it first would swallow the error. The error's teardown
      // unsubscribes the response, which sends notifications/cancelled.
      subscriber.error(signal.reason);
      inner.unsubscribe();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    return () => {
      signal.removeEventListener('abort', onAbort);
      inner.unsubscribe();
    };
  });
}

function sendOptionsOf(requestOptions: RequestOptions): SendOptions | undefined {
  return requestOptions.relatedRequestId === undefined ? undefined : { relatedRequestId: requestOptions.relatedRequestId };
}

function describeAbort(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'The request was aborted';
}
