import { Observable } from '../rx/rxjs';
import type { MonoTypeOperatorFunction } from '../rx/rxjs';

/**
 * Calls `onAbort` once when `signal` aborts; returns what stops listening. The request path and
 * {@link abortOnSignal} both listen this way.
 */
export function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

/** The text of an aborted signal's reason, as a cancellation's `reason` says it. */
export function abortReasonText(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'The request was aborted';
}

/**
 * Mirrors the source until `signal` aborts, then errors with the signal's reason (and unsubscribes
 * the source, which for a request means cancelling it). Errors at once when the signal has already
 * aborted, without subscribing. Cold; the listener is removed on teardown.
 */
export function abortOnSignal<T>(signal: AbortSignal | undefined): MonoTypeOperatorFunction<T> {
  return (source) =>
    signal === undefined
      ? source
      : new Observable<T>((subscriber) => {
          if (signal.aborted) {
            subscriber.error(signal.reason);
            return undefined;
          }
          const unwatch = whenAborted(signal, () => subscriber.error(signal.reason));
          const inner = source.subscribe(subscriber);
          return () => {
            unwatch();
            inner.unsubscribe();
          };
        });
}
