import { Observable } from '../../rx/rxjs';
import type { Subscriber } from '../../rx/rxjs';

/** Options for {@link createFrameInbox}. */
export interface FrameInboxOptions {
  /**
   * The most values held while nobody listens (default: no limit). Past it the oldest are dropped:
   * right for diagnostics such as stderr lines, wrong for protocol frames, which must all arrive.
   */
  readonly maxBuffered?: number;
}

/**
 * The receiving end of a transport: values pushed in by the I/O side, read through `values$`.
 * It gives every transport the same `incoming$` behaviour the contract asks for.
 */
export interface FrameInbox<T> {
  /**
   * Hot. Values pushed while there is no subscriber are held and delivered, in order, to the next
   * one that subscribes, before any newer value. Completes after `complete()` (a subscriber that
   * arrives later still receives what was held for it, then completes). Never errors.
   * Unsubscribing only stops delivery to that subscriber.
   */
  readonly values$: Observable<T>;
  /** Delivers a value to the current subscribers, or holds it; ignored after `complete()`. */
  push(value: T): void;
  /** Completes `values$`; idempotent. */
  complete(): void;
  /** Whether `complete()` was called. */
  readonly completed: boolean;
}

/**
 * Creates a {@link FrameInbox}: a hot stream that buffers until its first subscriber.
 * Synchronous: `push` calls subscribers on its own stack, so a transport decides when to call it.
 */
export function createFrameInbox<T>(options: FrameInboxOptions = {}): FrameInbox<T> {
  const maxBuffered = options.maxBuffered ?? Infinity;
  // Nearly always one subscriber (the connection): a Set is made only for a second one.
  let first: Subscriber<T> | undefined;
  let more: Set<Subscriber<T>> | undefined;
  let held: T[] = [];
  let completed = false;
  // Set while held values are handed to a new subscriber: pushes made meanwhile join the queue.
  let draining = false;

  const values$ = new Observable<T>((subscriber) => {
    if (held.length > 0) {
      draining = true;
      let i = 0;
      try {
        while (i < held.length && !subscriber.closed) subscriber.next(held[i++] as T);
      } finally {
        // What an early unsubscriber did not take stays for the next subscriber.
        held = i === held.length ? [] : held.slice(i);
        draining = false;
      }
    }
    if (completed) {
      subscriber.complete();
      return undefined;
    }
    if (first === undefined) first = subscriber;
    else (more ??= new Set()).add(subscriber);
    return () => {
      if (first === subscriber) first = undefined;
      else more?.delete(subscriber);
    };
  });

  return {
    values$,
    push(value) {
      if (completed) return;
      if (draining || (first === undefined && (more === undefined || more.size === 0))) {
        held.push(value);
        if (held.length > maxBuffered) held.shift();
        return;
      }
      first?.next(value);
      if (more !== undefined) for (const subscriber of more) subscriber.next(value);
    },
    complete() {
      if (completed) return;
      completed = true;
      const only = first;
      first = undefined;
      only?.complete();
      if (more !== undefined) for (const subscriber of [...more]) subscriber.complete();
      more = undefined;
    },
    get completed() {
      return completed;
    },
  };
}
