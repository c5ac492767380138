import { isObservable, Observable } from '../rx/rxjs';
import type { HandlerOutput } from '../connection/dispatcher';
import { isHandlerEvent } from '../connection/handler-events';
import type { HandlerEvent } from '../connection/handler-events';

/**
 * Maps what a handler produced (a value, a Promise, or an Observable of progress and log events and
 * values) to the answer to send: `onValue` gets the value (for an Observable, the last one that is
 * not an event, or undefined), `onError` the failure. Both may throw, which fails the request.
 * Events pass through. An Observable stays an Observable, so unsubscribing still cancels the work;
 * a plain value is mapped at once, with no Observable built.
 */
export function mapHandlerOutput<R>(
  output: unknown,
  onValue: (value: unknown) => R,
  onError: (error: unknown) => R = (error) => {
    throw error;
  },
): HandlerOutput<R> {
  if (isObservable(output)) {
    return new Observable<R | HandlerEvent>((subscriber) => {
      let last: unknown;
      const settle = (make: () => R) => {
        let answer: R;
        try {
          answer = make();
        } catch (error) {
          subscriber.error(error);
          return;
        }
        subscriber.next(answer);
        subscriber.complete();
      };
      return output.subscribe({
        next: (value) => {
          if (isHandlerEvent(value)) subscriber.next(value);
          else last = value;
        },
        error: (error: unknown) => settle(() => onError(error)),
        complete: () => settle(() => onValue(last)),
      });
    });
  }
  if (typeof (output as PromiseLike<unknown> | undefined)?.then === 'function') {
    return Promise.resolve(output).then(onValue, onError);
  }
  return onValue(output);
}

/** Calls `handler` and maps its output; a synchronous throw goes to `onError` too. */
export function runHandler<R>(
  handler: () => unknown,
  onValue: (value: unknown) => R,
  onError?: (error: unknown) => R,
): HandlerOutput<R> {
  let output: unknown;
  try {
    output = handler();
  } catch (error) {
    if (!onError) throw error;
    return onError(error);
  }
  return mapHandlerOutput(output, onValue, onError);
}
