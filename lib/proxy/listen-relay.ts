import { catchError, defer, EMPTY, map, merge, skip, Subject } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { Logger } from 'pino';
import { hasCapability } from '../connection/capabilities';
import type { RequestHandler } from '../connection/dispatcher';
import { createListenHandler } from '../server/listen';
import type { McpClient } from '../client/client-api';

/** The most resources one `subscriptions/listen` stream through a proxy may follow. */
const MAX_LISTENED_RESOURCES = 100;

/** What a proxy's `subscriptions/listen` streams follow. */
export interface ListenRelaySources {
  /** The capabilities the proxy declares downstream. */
  capabilities(): Record<string, unknown>;
  /** The upstreams whose lists a stream follows (one for a proxy, the members connected now for an aggregate). */
  upstreams(): readonly McpClient[];
  /** The updates of a URI as the caller names it. */
  updates(uri: string): Observable<void>;
  /** Emits when the proxy closes: every stream ends with its final result. */
  readonly closing: Subject<void>;
  readonly logger: Logger;
}

/** The changes of one upstream list after the one it holds now; a list that fails to refresh is no longer followed. */
function changesOf(list$: Observable<unknown>): Observable<void> {
  return list$.pipe(
    skip(1),
    map(() => undefined),
    catchError(() => EMPTY),
  );
}

/**
 * `subscriptions/listen` for the proxy's callers of a stateless revision (2026-07-28 on): the
 * upstream's list changes and resource updates reach the stream whatever revision the upstream
 * speaks (a handshake upstream's `resources/subscribe` is shared with the proxy's other
 * subscribers to the URI, as for sessions).
 */
export function listenRelay(sources: ListenRelaySources): RequestHandler {
  // Read per stream: the upstreams an aggregate has may change between streams.
  const changes = (capability: string, list: (client: McpClient) => Observable<unknown>): Observable<void> =>
    defer(() =>
      merge(
        ...sources
          .upstreams()
          .filter((client) => hasCapability(client.serverCapabilities as Record<string, unknown>, capability))
          .map((client) => changesOf(list(client))),
      ),
    );
  return createListenHandler({
    capabilities: sources.capabilities,
    tools: { changed$: changes('tools', (client) => client.tools$) },
    prompts: { changed$: changes('prompts', (client) => client.prompts$) },
    resources: {
      resourcesChanged$: changes('resources', (client) => client.resources$),
      templatesChanged$: changes('resources', (client) => client.resourceTemplates$),
      watch: (uri) => sources.updates(uri),
    },
    updates: new Subject<string>(),
    closing: sources.closing,
    maxSubscriptions: MAX_LISTENED_RESOURCES,
    logger: sources.logger,
  });
}
