import { filter, merge, Observable, of, switchMap } from 'rxjs';
import type { Logger } from 'pino';
import { CapabilityNotSupportedError } from '../jsonrpc/errors';
import { hasCapability } from '../connection/capabilities';
import type { Connection } from '../connection/connection';
import { createFanOut } from '../operators/ref-count-fan-out';
import type { ReadResourceResult } from '../schema/resources';

/** Options of {@link createResourceWatcher}. */
export interface ResourceWatcherOptions {
  readonly connection: Connection;
  readonly serverCapabilities: Record<string, unknown>;
  readonly readResource: (uri: string) => Observable<ReadResourceResult>;
  readonly logger: Logger;
}

/** Shared resource subscriptions of one client. */
export interface ResourceWatcher {
  /**
   * The contents of `uri` as they change. Cold per call; the first watcher of a URI sends
   * `resources/subscribe` and reads it, each `notifications/resources/updated` for the URI reads
   * it again (a read still in flight is abandoned for the newer one), later watchers share the
   * subscription and get the latest contents at once, and the last watcher to leave sends
   * `resources/unsubscribe`. A failed subscribe or read errors every watcher of the URI.
   */
  watch(uri: string): Observable<ReadResourceResult>;
}

/** Creates the resource watcher of a client (one upstream subscription per URI). */
export function createResourceWatcher(options: ResourceWatcherOptions): ResourceWatcher {
  const { connection, serverCapabilities, readResource, logger } = options;
  const updated$ = connection.notifications$.pipe(filter((message) => message.method === 'notifications/resources/updated'));

  const open = (uri: string) =>
    new Observable<ReadResourceResult>((subscriber) => {
      if (!hasCapability(serverCapabilities, 'resources.subscribe')) {
        subscriber.error(new CapabilityNotSupportedError('resources.subscribe', 'resources/subscribe', 'server'));
        return undefined;
      }
      const changes$ = updated$.pipe(filter((message) => message.params?.uri === uri));
      const inner = connection
        .request('resources/subscribe', { uri })
        .pipe(
          // Listening starts with the acknowledgement; the read that follows it covers any change
          // the server announced before then.
          switchMap(() => merge(of(undefined), changes$)),
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

  const fanOut = createFanOut<string, ReadResourceResult>({ open, replayLatest: true });
  return { watch: (uri) => fanOut.watch(uri) };
}
