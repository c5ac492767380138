import { Observable } from '../../rx/rxjs';
import { SubscriberSlots } from './subscriber-slots';

/**
 * A transport's `closed$` source: emits its one value to every subscriber, then completes; a late
 * subscriber gets the value at once (as a `ReplaySubject(1)` that was completed). Lighter than the
 * subject: no teardown per subscriber (see `SubscriberSlots`).
 */
export class CloseSignal<T> {
  readonly closed$: Observable<T>;
  private fired = false;
  private value: T | undefined = undefined;
  private readonly listeners = new SubscriberSlots<T>();

  constructor() {
    this.closed$ = new Observable<T>((subscriber) => {
      if (!this.fired) return void this.listeners.add(subscriber);
      subscriber.next(this.value as T);
      subscriber.complete();
    });
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
