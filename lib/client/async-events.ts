import type { Observable, Subscription } from '../rx/rxjs';

/**
 * An Observable as an async iterable, for `for await`: subscribed when iteration starts; events
 * wait in a queue until read, an error is thrown where it is read, and leaving the loop early
 * (`break`, `return`, a throw) unsubscribes, which cancels a call. A reader that falls behind by
 * more than `maxQueued` events loses the oldest ones that `droppable` says may go (best-effort
 * events such as partial results), never any other.
 */
export function eventsOf<T>(
  source: Observable<T>,
  droppable: (event: T) => boolean = () => false,
  maxQueued = 1000,
): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const queue: T[] = [];
      let failure: { error: unknown } | undefined;
      let done = false;
      let waiting: ((result: IteratorResult<T>) => void) | undefined;
      let failWaiting: ((error: unknown) => void) | undefined;
      const wake = () => {
        if (!waiting) return;
        const resolve = waiting;
        const reject = failWaiting!;
        waiting = failWaiting = undefined;
        if (queue.length > 0) resolve({ value: queue.shift()!, done: false });
        else if (failure) reject(failure.error);
        else if (done) resolve({ value: undefined, done: true });
      };
      const subscription: Subscription = source.subscribe({
        next: (event) => {
          queue.push(event);
          if (queue.length > maxQueued) {
            const index = queue.findIndex(droppable);
            if (index >= 0) queue.splice(index, 1);
          }
          wake();
        },
        error: (error: unknown) => {
          failure = { error };
          wake();
        },
        complete: () => {
          done = true;
          wake();
        },
      });
      return {
        next: () =>
          new Promise<IteratorResult<T>>((resolve, reject) => {
            waiting = resolve;
            failWaiting = reject;
            if (queue.length > 0 || failure || done) wake();
          }),
        return: () => {
          subscription.unsubscribe();
          queue.length = 0;
          done = true;
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
}
