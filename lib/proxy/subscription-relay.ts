import type { Logger } from 'pino';
import { Observable } from '../rx/rxjs';
import type { Subscription } from '../rx/rxjs';
import type { Connection } from '../connection/connection';
import type { McpClient } from '../client/client-api';

/** A downstream client as the relay sees it: where its update notifications go. */
export interface Subscriber {
  readonly connection: Connection;
}

/** A `subscriptions/listen` stream following one URI: told of each update. */
interface Listener {
  readonly updated: () => void;
}

interface Watch {
  readonly subscribers: Set<Subscriber | Listener>;
  subscription: Subscription | undefined;
  /** The upstream has confirmed the subscription (its first read arrived). */
  live: boolean;
}

/**
 * Resource subscriptions shared upstream: the first downstream subscriber to a URI starts one
 * upstream watch (`watchResource`, which subscribes in either era and reads on each update), later
 * ones join it, and the last to leave ends it. Each upstream update becomes
 * `notifications/resources/updated` to exactly the downstream subscribers of that URI.
 */
export class SubscriptionRelay {
  private readonly watches = new Map<string, Watch>();

  constructor(
    private readonly upstream: McpClient,
    private readonly logger: Logger,
    /** The URI downstream clients know for an upstream URI (an aggregate namespaces them). */
    private readonly downstreamUri: (uri: string) => string = (uri) => uri,
  ) {}

  /** Subscribes `subscriber` to `uri`; emits `{}` once the upstream subscription holds, or fails with its error. */
  add(subscriber: unknown, uri: string): Observable<Record<string, unknown>> {
    return new Observable((result) => {
      const existing = this.watches.get(uri);
      if (existing?.live) {
        existing.subscribers.add(subscriber as Subscriber);
        result.next({});
        result.complete();
        return;
      }
      const watch = existing ?? this.start(uri);
      watch.subscribers.add(subscriber as Subscriber);
      const confirmed = setConfirmation(watch, result);
      return () => confirmed.cancel();
    });
  }

  /**
   * The updates of `uri` for a `subscriptions/listen` stream of a modern caller: one emission per
   * upstream update, sharing the upstream watch with every other subscriber to the URI.
   */
  updates(uri: string): Observable<void> {
    return new Observable<void>((subscriber) => {
      const listener: Listener = { updated: () => subscriber.next() };
      (this.watches.get(uri) ?? this.start(uri)).subscribers.add(listener);
      return () => this.remove(listener, uri);
    });
  }

  remove(subscriber: unknown, uri: string): void {
    const watch = this.watches.get(uri);
    if (!watch?.subscribers.delete(subscriber as Subscriber) || watch.subscribers.size > 0) return;
    this.watches.delete(uri);
    watch.subscription?.unsubscribe();
  }

  /** Ends every subscription of a downstream client that went away. */
  dropAll(subscriber: unknown): void {
    for (const [uri, watch] of [...this.watches])
      if (watch.subscribers.has(subscriber as Subscriber)) this.remove(subscriber, uri);
  }

  close(): void {
    for (const watch of this.watches.values()) watch.subscription?.unsubscribe();
    this.watches.clear();
  }

  private start(uri: string): Watch {
    const watch: Watch = { subscribers: new Set(), subscription: undefined, live: false };
    this.watches.set(uri, watch);
    watch.subscription = this.upstream.watchResource(uri).subscribe({
      next: () => {
        if (!watch.live) {
          watch.live = true;
          confirmations.get(watch)?.forEach((confirm) => confirm.ok());
          confirmations.delete(watch);
          return;
        }
        const updated = { uri: this.downstreamUri(uri) };
        for (const subscriber of watch.subscribers) {
          if ('updated' in subscriber) subscriber.updated();
          else if (subscriber.connection.state === 'operating')
            subscriber.connection.notify('notifications/resources/updated', updated);
        }
      },
      error: (error: unknown) => {
        this.logger.warn({ uri, err: error }, 'upstream resource subscription failed');
        if (this.watches.get(uri) === watch) this.watches.delete(uri);
        confirmations.get(watch)?.forEach((confirm) => confirm.fail(error));
        confirmations.delete(watch);
      },
    });
    return watch;
  }
}

interface Confirmation {
  ok(): void;
  fail(error: unknown): void;
  cancel(): void;
}

/** Downstream subscribe requests waiting for the upstream's first read, by watch. */
const confirmations = new WeakMap<Watch, Set<Confirmation>>();

function setConfirmation(
  watch: Watch,
  result: { next(value: Record<string, unknown>): void; complete(): void; error(error: unknown): void },
): Confirmation {
  let waiting = confirmations.get(watch);
  if (!waiting) confirmations.set(watch, (waiting = new Set()));
  const pending = waiting;
  const confirmation: Confirmation = {
    ok: () => {
      result.next({});
      result.complete();
    },
    fail: (error) => result.error(error),
    cancel: () => pending.delete(confirmation),
  };
  pending.add(confirmation);
  return confirmation;
}
