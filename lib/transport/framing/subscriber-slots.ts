import type { Subscriber } from '../../rx/rxjs';

/**
 * The subscribers of a hot source whose Observable returns no teardown. A teardown costs every
 * subscriber an RxJS finalizer list (an array with room for 17) and a `Subscription`, which an
 * idle connection holds for its whole life, twice per transport. Instead a subscriber that
 * unsubscribed is recognised by `closed`: it is skipped, and dropped at the next `add`, so a source
 * subscribed to and unsubscribed from many times does not grow.
 */
export class SubscriberSlots<T> {
  // Nearly always one subscriber (the connection): the array is made only for a second one.
  private first: Subscriber<T> | undefined = undefined;
  private more: Subscriber<T>[] | undefined = undefined;

  /** Whether no subscriber is listening. */
  get empty(): boolean {
    if (this.first !== undefined && !this.first.closed) return false;
    return this.more === undefined || this.more.every((subscriber) => subscriber.closed);
  }

  add(subscriber: Subscriber<T>): void {
    if (this.first === undefined || this.first.closed) {
      this.first = subscriber;
      return;
    }
    const more = this.more?.filter((other) => !other.closed);
    this.more = more === undefined || more.length === 0 ? [subscriber] : [...more, subscriber];
  }

  next(value: T): void {
    const first = this.first;
    if (first !== undefined && !first.closed) first.next(value);
    const more = this.more;
    if (more !== undefined) for (let i = 0; i < more.length; i++) if (!more[i]!.closed) more[i]!.next(value);
  }

  /** Completes every subscriber and forgets them all. */
  complete(): void {
    const { first, more } = this;
    this.first = undefined;
    this.more = undefined;
    first?.complete();
    if (more !== undefined) for (const subscriber of more) subscriber.complete();
  }
}
