import { concatMap, EMPTY, filter, merge, Observable, of, switchMap, throwError } from '../rx/rxjs';
import type { Logger } from 'pino';
import { CapabilityNotSupportedError } from '../jsonrpc/errors';
import { hasCapability } from '../connection/capabilities';
import type { Connection } from '../connection/connection';
import { createFanOut } from '../operators/ref-count-fan-out';
import type { ReadResourceResult } from '../schema/resources';
import type { SubscriptionHub } from './subscriptions';

/** Options of {@link createResourceWatcher}. */
export interface ResourceWatcherOptions {
  readonly connection: Connection;
  /** What the server declared; undefined when it said nothing (then nothing is refused locally). */
  readonly serverCapabilities: Record<string, unknown> | undefined;
  readonly readResource: (uri: string) => Observable<ReadResourceResult>;
  /**
   * Modern revisions: the client's `subscriptions/listen` streams. Without it, the watcher
   * sends `resources/subscribe` and `resources/unsubscribe` (handshake revisions).
   */
  readonly hub?: SubscriptionHub;
  /**
   * Emits when the transport started a new session in place of a lost one: each URI is subscribed
   * to again with `resources/subscribe`, then read (it may have changed meanwhile). Default: never.
   */
  readonly reconnected$?: Observable<unknown>;
  readonly logger: Logger;
}

/** Shared resource subscriptions of one client. */
export interface ResourceWatcher {
  /**
   * The contents of `uri` as they change. Cold per call; the first watcher of a URI subscribes to
   * its updates and reads it, each `notifications/resources/updated` for the URI reads it again (a
   * read still in flight is abandoned for the newer one), later watchers share the subscription
   * and get the latest contents at once, and the last watcher to leave ends the subscription. A
   * failed subscription or read errors every watcher of the URI.
   */
  watch(uri: string): Observable<ReadResourceResult>;
}

/** Creates the resource watcher of a client (one upstream subscription per URI). */
export function createResourceWatcher(options: ResourceWatcherOptions): ResourceWatcher {
  const { connection, serverCapabilities, readResource, hub, logger, reconnected$ = EMPTY } = options;
  const updated$ = connection.notifications$.pipe(
    filter((message) => message.method === 'notifications/resources/updated'),
  );
  const refused = () => new CapabilityNotSupportedError('resources.subscribe', 'resources/subscribe', 'server');

  /** Subscribes with `resources/subscribe`; unsubscribes with `resources/unsubscribe` when torn down. */
  const bySubscribeRequest = (uri: string, changes$: Observable<unknown>) =>
    new Observable<ReadResourceResult>((subscriber) => {
      const subscribe = () => connection.request('resources/subscribe', { uri });
      // A new session knows nothing of the lost one's subscriptions: subscribe again, then read.
      const resubscribed$ = reconnected$.pipe(concatMap(subscribe));
      const inner = subscribe()
        .pipe(
          // Listening starts with the acknowledgement; the read that follows it covers any change
          // the server announced before then.
          switchMap(() => merge(of(undefined), changes$, resubscribed$)),
          switchMap(() => readResource(uri)),
        )
        .subscribe(subscriber);
      return () => {
        inner.unsubscribe();
        if (connection.state !== 'operating') return;
        // Sent even if the subscribe was still unanswered (and is now cancelled): the server may
        // have acted on it, and unsubscribing twice is harmless.
        connection.request('resources/unsubscribe', { uri }).subscribe({
          error: (error: unknown) => logger.warn({ err: error, uri }, 'resources/unsubscribe failed'),
        });
      };
    });

  /** Subscribes through the `subscriptions/listen` filter; leaving the hub ends it. */
  const byListen = (uri: string, changes$: Observable<unknown>, listen: SubscriptionHub) =>
    listen.watch({ resource: uri }).pipe(
      switchMap((event) =>
        event.kind === 'listening' ? merge(of(undefined), changes$) : throwError(() => event.error ?? refused()),
      ),
      switchMap(() => readResource(uri)),
    );

  const open = (uri: string): Observable<ReadResourceResult> => {
    if (serverCapabilities !== undefined && !hasCapability(serverCapabilities, 'resources.subscribe')) {
      return throwError(refused);
    }
    const changes$ = updated$.pipe(filter((message) => message.params?.uri === uri));
    return hub ? byListen(uri, changes$, hub) : bySubscribeRequest(uri, changes$);
  };

  const fanOut = createFanOut<string, ReadResourceResult>({ open, replayLatest: true });
  return { watch: (uri) => fanOut.watch(uri) };
}
