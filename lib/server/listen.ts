import { isRecord } from '../base/objects';
import { filter, Observable, Subscription } from '../rx/rxjs';
import type { Subject } from '../rx/rxjs';
import type { Logger } from 'pino';
import { hasCapability } from '../connection/capabilities';
import type { HandlerResult, RequestContext } from '../connection/dispatcher';
import { META } from '../connection/modern';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { principalOf } from '../transport/transport';
import type { ListenedList } from './extension-lists';

/**
 * How many `subscriptions/listen` streams each principal holds open, against a bound: each stream
 * is a request the server keeps open, so one user could otherwise hold any number of them.
 */
export class ListenQuota {
  /** Open streams by principal; made with the first one. */
  private held: Map<string, number> | undefined;

  /** `max`: the most streams one principal may hold at once; 0 for no bound. */
  constructor(readonly max: number) {}

  /** Takes a place for `principal`; false when it holds `max` already. */
  take(principal: string): boolean {
    const held = (this.held ??= new Map()).get(principal) ?? 0;
    if (this.max > 0 && held >= this.max) return false;
    this.held.set(principal, held + 1);
    return true;
  }

  /** Gives back a place `take` gave. */
  give(principal: string): void {
    const held = this.held?.get(principal) ?? 0;
    if (held <= 1) this.held?.delete(principal);
    else this.held!.set(principal, held - 1);
  }

  /** The streams `principal` holds open. */
  heldBy(principal: string): number {
    return this.held?.get(principal) ?? 0;
  }
}

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
  /** Bounds the streams each principal holds open (modern requests with `auth`); none without it. */
  readonly listenQuota?: ListenQuota;
  /** The lists of extensions that change at runtime, followed for their filter keys. */
  readonly extensionLists?: readonly ListenedList[] | undefined;
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
  const wanted = filterOf(params);
  const meta = { [META.subscriptionId]: context.requestId };
  return new Observable<HandlerResult>((subscriber) => {
    const quota = deps.listenQuota;
    const principal = quota === undefined ? undefined : principalOf(context.peer?.auth);
    if (principal !== undefined && !quota!.take(principal)) {
      subscriber.error(
        new JsonRpcError(
          ErrorCode.RateLimited,
          `this user already holds ${quota!.max} subscriptions/listen streams, the most one user may; end one first`,
          { quota: 'listen streams per principal', limit: quota!.max },
        ),
      );
      return undefined;
    }
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
    for (const list of deps.extensionLists ?? []) {
      const following = list.follow(wanted, context.peer?.clientCapabilities, agreed, relay);
      if (following) subscriptions.add(following);
    }
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
    if (principal !== undefined) subscriptions.add(() => quota!.give(principal));
    return subscriptions;
  });
}

/**
 * The notifications a `subscriptions/listen` request asks for: its `notifications` filter, an
 * object by the revision's schema (none asked for when it is missing).
 */
function filterOf(params: Record<string, unknown>): Readonly<Record<string, unknown>> {
  const wanted = params.notifications;
  return isRecord(wanted) ? wanted : {};
}

/** {@link listenTo} as a handler of its own, over `deps`. */
export function createListenHandler(
  deps: ListenSources,
): (params: Record<string, unknown>, context: RequestContext) => Observable<HandlerResult> {
  return (params, context) => listenTo(deps, params, context);
}
