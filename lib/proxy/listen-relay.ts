import { defer, EMPTY, filter, map, Subject } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { Logger } from 'pino';
import type { RequestHandler } from '../connection/dispatcher';
import { createListenHandler } from '../server/listen';
import { EventMethod } from '../schema/events';
import { eventsListenList } from './event-declarations';

/** The most resources one `subscriptions/listen` stream through a proxy may follow. */
const MAX_LISTENED_RESOURCES = 100;

/** What a proxy's `subscriptions/listen` streams follow. */
export interface ListenRelaySources {
  /** The capabilities the proxy declares downstream. */
  capabilities(): Record<string, unknown>;
  /** The `list_changed` notifications the proxy sends its sessions, by method (read per stream). */
  changes(): Observable<string>;
  /** The updates of a URI as the caller names it. */
  updates(uri: string): Observable<void>;
  /** Emits when the proxy closes: every stream ends with its final result. */
  readonly closing: Subject<void>;
  readonly logger: Logger;
}

/**
 * `subscriptions/listen` for the proxy's callers of a modern revision (2026-07-28 on): the list
 * changes the proxy tells its sessions, and the upstream's resource updates, reach the stream
 * whatever revision the upstream speaks (a handshake upstream's `resources/subscribe` is shared
 * with the proxy's other subscribers to the URI, as for sessions).
 */
export function listenRelay(sources: ListenRelaySources): RequestHandler {
  const changed = (method: string): Observable<void> =>
    defer(() => sources.changes()).pipe(
      filter((each) => each === method),
      map(() => undefined),
    );
  return createListenHandler({
    capabilities: sources.capabilities,
    tools: { changed$: changed('notifications/tools/list_changed') },
    prompts: { changed$: changed('notifications/prompts/list_changed') },
    resources: {
      resourcesChanged$: changed('notifications/resources/list_changed'),
      // The proxy tells of resources and templates in one notification.
      templatesChanged$: EMPTY,
      watch: (uri) => sources.updates(uri),
    },
    updates: new Subject<string>(),
    closing: sources.closing,
    extensionLists: [eventsListenList(changed(EventMethod.ListChanged), sources.capabilities)],
    maxSubscriptions: MAX_LISTENED_RESOURCES,
    logger: sources.logger,
  });
}
