import { Observable } from '../../rx/rxjs';
import type { Subscriber } from '../../rx/rxjs';
import { readDirectly } from './direct-reading';
import type { DirectCloseReader, DirectlyReadable } from './direct-reading';
import { SubscriberSlots } from './subscriber-slots';

/** The subscribe function of every signal: `this` is the signal, so that no signal makes a closure. */
function subscribeToSignal<T>(this: Observable<T>, subscriber: Subscriber<T>): void {
  (this as CloseSignal<T>).admit(subscriber);
}

/**
 * A transport's `closed$` source: emits its one value to every subscriber, then completes; a late
 * subscriber gets the value at once (as a `ReplaySubject(1)` that was completed). Lighter than the
 * subject: no teardown per subscriber (see `SubscriberSlots`), and one direct reader besides its
 * subscribers (see `direct-reading.ts`).
 */
export class CloseSignal<T> extends Observable<T> implements DirectlyReadable<DirectCloseReader<T>> {
  private fired = false;
  private value: T | undefined = undefined;
  /** Made for the first subscriber: a connection reads its close signal directly. */
  private listeners: SubscriberSlots<T> | undefined = undefined;
  private reader: DirectCloseReader<T> | undefined = undefined;

  constructor() {
    super(subscribeToSignal);
  }

  /** The signal itself, as an Observable: one object rather than three. */
  get closed$(): Observable<T> {
    return this;
  }

  /** Takes a subscriber of `closed$`. */
  admit(subscriber: Subscriber<T>): void {
    if (!this.fired) return void (this.listeners ??= new SubscriberSlots<T>()).add(subscriber);
    subscriber.next(this.value as T);
    subscriber.complete();
  }

  /** Whether `emit` was called. */
  get emitted(): boolean {
    return this.fired;
  }

  /** Emits `value` and completes; later calls do nothing. */
  emit(value: T): void {
    if (this.fired) return;
    this.fired = true;
    this.value = value;
    const { reader, listeners } = this;
    this.reader = undefined;
    reader?.closedWith(value);
    listeners?.next(value);
    listeners?.complete();
  }

  /** Takes the direct reader, in place of any before it; a signal that fired tells it at once. */
  [readDirectly](reader: DirectCloseReader<T> | undefined): void {
    if (this.fired) reader?.closedWith(this.value as T);
    else this.reader = reader;
  }
}
