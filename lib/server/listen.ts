import { filter, Observable, Subscription } from '../rx/rxjs';
import type { Subject } from '../rx/rxjs';
import type { Logger } from 'pino';
import { hasCapability } from '../connection/capabilities';
import type { HandlerResult, RequestContext } from '../connection/dispatcher';
import { META } from '../connection/stateless';

/** What the `subscriptions/listen` handler follows of its server. */
export interface ListenSources {
  /** The capabilities the server declares now. */
  capabilities(): Record<string, unknown>;
  readonly tools: { readonly changed$: Observable<void> };
  readonly prompts: { readonly changed$: Observable<void> };
  readonly resources: {
    readonly resourcesChanged$: Observable<void>;
    readonly templatesChanged$: Observable<void>;
    watch(uri: string): Observable<unknown>;
  };
  /** URIs the server named in `resourceUpdated`. */
  readonly updates: Subject<string>;
  /** Emits when the server closes: every listen stream ends with its final result. */
  readonly closing: Subject<void>;
  /** The most resources one stream may name. */
  readonly maxSubscriptions: number;
  readonly logger: Logger;
}

/**
 * Serves one `subscriptions/listen` request (spec 2026-07-28: Subscriptions): acknowledges the
 * notification types this server honours, then sends each change the client opted in to, tagged
 * with the request id, until the client cancels (unsubscribing) or the server closes (then with a
 * final result). Cold: each request subscribes afresh.
 */
export function listenTo(
  deps: ListenSources,
  params: Record<string, unknown>,
  context: RequestContext,
): Observable<HandlerResult> {
  const wanted = (params.notifications ?? {}) as Record<string, unknown>;
  const meta = { [META.subscriptionId]: context.requestId };
  return new Observable<HandlerResult>((subscriber) => {
    const declared = deps.capabilities();
    const agreed: Record<string, unknown> = {};
    const subscriptions = new Subscription();
    const relay = (method: string, extra?: Record<string, unknown>) =>
      context.notify(method, { ...extra, _meta: meta });
    const follow = (flag: string, capability: string, method: string, ...changes: Observable<unknown>[]) => {
      if (wanted[flag] !== true || !hasCapability(declared, capability)) return;
      agreed[flag] = true;
      for (const changes$ of changes) subscriptions.add(changes$.subscribe(() => relay(method)));
    };
    follow('toolsListChanged', 'tools.listChanged', 'notifications/tools/list_changed', deps.tools.changed$);
    follow('promptsListChanged', 'prompts.listChanged', 'notifications/prompts/list_changed', deps.prompts.changed$);
    follow(
      'resourcesListChanged',
      'resources.listChanged',
      'notifications/resources/list_changed',
      deps.resources.resourcesChanged$,
      deps.resources.templatesChanged$,
    );
    const uris = Array.isArray(wanted.resourceSubscriptions)
      ? [...new Set(wanted.resourceSubscriptions.filter((uri): uri is string => typeof uri === 'string'))].slice(
          0,
          deps.maxSubscriptions,
        )
      : [];
    if (uris.length > 0 && hasCapability(declared, 'resources.subscribe')) {
      agreed.resourceSubscriptions = uris;
      const watched = new Set(uris);
      for (const uri of uris) {
        subscriptions.add(
          deps.resources.watch(uri).subscribe({
            next: () => relay('notifications/resources/updated', { uri }),
            error: (error: unknown) => deps.logger.error({ err: error, uri }, 'resource watch failed'),
          }),
        );
      }
      subscriptions.add(
        deps.updates
          .pipe(filter((uri) => watched.has(uri)))
          .subscribe((uri) => relay('notifications/resources/updated', { uri })),
      );
    }
    // The acknowledgment is the first message of the stream; changes follow it.
    relay('notifications/subscriptions/acknowledged', { notifications: agreed });
    subscriptions.add(
      deps.closing.subscribe(() => {
        subscriber.next({ _meta: meta });
        subscriber.complete();
      }),
    );
    return subscriptions;
  });
}

/** {@link listenTo} as a handler of its own, over `deps`. */
export function createListenHandler(
  deps: ListenSources,
): (params: Record<string, unknown>, context: RequestContext) => Observable<HandlerResult> {
  return (params, context) => listenTo(deps, params, context);
}
