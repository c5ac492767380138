import { Observable } from '../rx/rxjs';
import type { MonoTypeOperatorFunction } from '../rx/rxjs';

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
          const onAbort = () => subscriber.error(signal.reason);
          signal.addEventListener('abort', onAbort, { once: true });
          const inner = source.subscribe(subscriber);
          return () => {
            signal.removeEventListener('abort', onAbort);
            inner.unsubscribe();
          };
        });
}
