import { Observable, Subject } from 'rxjs';

/**
 * A tool handler whose every run the test drives: each call pushes a Subject onto `runs`, and what
 * the test sends on it (values, an error, the end) is what the handler emits.
 */
export function drivenHandler(runs: Subject<unknown>[]): () => Observable<never> {
  return () =>
    new Observable<never>((subscriber) => {
      const run = new Subject<unknown>();
      runs.push(run);
      return run.subscribe({
        next: (value) => subscriber.next(value as never),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
