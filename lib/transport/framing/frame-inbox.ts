import { Observable } from '../../rx/rxjs';
import type { Subscriber } from '../../rx/rxjs';
import { readDirectly } from './direct-reading';
import type { DirectlyReadable, DirectValueReader } from './direct-reading';
import { SubscriberSlots } from './subscriber-slots';

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
  return new Inbox<T>(options.maxBuffered ?? Infinity);
}

/** The subscribe function of every inbox: `this` is the inbox, so that no inbox makes a closure. */
function subscribeToInbox<T>(this: Observable<T>, subscriber: Subscriber<T>): void {
  (this as Inbox<T>).admit(subscriber);
}

/**
 * A class, so that each transport's inbox is one small object with no closures; it is its own
 * `values$`, so that an inbox is one object rather than three. Besides its subscribers, it takes
 * one direct reader (see `direct-reading.ts`), which gets each value first.
 */
class Inbox<T> extends Observable<T> implements FrameInbox<T>, DirectlyReadable<DirectValueReader<T>> {
  completed = false;
  /** Made for the first subscriber: a connection reads its inbox directly. */
  private listeners: SubscriberSlots<T> | undefined = undefined;
  private reader: DirectValueReader<T> | undefined = undefined;
  private held: T[] | undefined = undefined;
  // Set while held values are handed to a new subscriber: pushes made meanwhile join the queue.
  private draining = false;

  constructor(private readonly maxBuffered: number) {
    super(subscribeToInbox);
  }

  get values$(): Observable<T> {
    return this;
  }

  push(value: T): void {
    if (this.completed) return;
    const { reader, listeners } = this;
    if (this.draining || (reader === undefined && (listeners === undefined || listeners.empty))) {
      const held = (this.held ??= []);
      held.push(value);
      if (held.length > this.maxBuffered) held.shift();
      return;
    }
    reader?.next(value);
    listeners?.next(value);
  }

  complete(): void {
    if (this.completed) return;
    this.completed = true;
    const reader = this.reader;
    this.reader = undefined;
    reader?.complete();
    this.listeners?.complete();
  }

  /**
   * Takes the direct reader, in place of any before it: what was held is handed to it first, and
   * a completed inbox then completes it. `undefined` stops the reader there was.
   */
  [readDirectly](reader: DirectValueReader<T> | undefined): void {
    this.reader = reader;
    if (reader === undefined) return;
    // A reader that stops while it is handed what was held leaves the rest for the next one.
    this.handHeld(reader, () => this.reader === reader);
    if (this.completed && this.reader === reader) {
      this.reader = undefined;
      reader.complete();
    }
  }

  /** Takes a subscriber of `values$`. Returns no teardown: see `SubscriberSlots`. */
  admit(subscriber: Subscriber<T>): void {
    // What an early unsubscriber did not take stays for the next subscriber.
    this.handHeld(subscriber, () => !subscriber.closed);
    if (this.completed) subscriber.complete();
    else if (!subscriber.closed) (this.listeners ??= new SubscriberSlots<T>()).add(subscriber);
  }

  /**
   * Hands what was held, in order, to a new reader or subscriber while `taking()` holds: values
   * pushed meanwhile join the queue, and what it did not take stays held.
   */
  private handHeld(to: { next(value: T): void }, taking: () => boolean): void {
    const held = this.held;
    if (held === undefined || held.length === 0) return;
    this.draining = true;
    let i = 0;
    try {
      while (i < held.length && taking()) to.next(held[i++] as T);
    } finally {
      this.held = i === held.length ? undefined : held.slice(i);
      this.draining = false;
    }
  }
}
