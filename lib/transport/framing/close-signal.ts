import { Observable } from '../../rx/rxjs';
import type { Subscriber } from '../../rx/rxjs';
import { SubscriberSlots } from './subscriber-slots';

/** The subscribe function of every signal: `this` is the signal, so that no signal makes a closure. */
function subscribeToSignal<T>(this: Observable<T>, subscriber: Subscriber<T>): void {
  (this as CloseSignal<T>).admit(subscriber);
}

/**
 * A transport's `closed$` source: emits its one value to every subscriber, then completes; a late
 * subscriber gets the value at once (as a `ReplaySubject(1)` that was completed). Lighter than the
 * subject: no teardown per subscriber (see `SubscriberSlots`).
 */
export class CloseSignal<T> extends Observable<T> {
  private fired = false;
  private value: T | undefined = undefined;
  private readonly listeners = new SubscriberSlots<T>();

  constructor() {
    super(subscribeToSignal);
  }

  /** The signal itself, as an Observable: one object rather than three. */
  get closed$(): Observable<T> {
    return this;
  }

  /** Takes a subscriber of `closed$`. */
  admit(subscriber: Subscriber<T>): void {
    if (!this.fired) return void this.listeners.add(subscriber);
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
    this.listeners.next(value);
    this.listeners.complete();
  }
}
