/**
 * Events through a proxy (the triggers and events extension's design sketch, as merged on 2026-09-08;
 * experimental): the requests it forwards as they
 * are (`events/list`, `events/poll`, `events/subscribe`, `events/unsubscribe`), and the relay of a
 * push stream: a downstream `events/stream` becomes one upstream `events/stream` of the proxy's
 * client, whose notifications reach the caller under the caller's own subscription id.
 */
import { Observable } from '../rx/rxjs';
import type { HandlerResult, RequestContext, RequestHandler } from '../connection/dispatcher';
import { passParamsThrough } from '../connection/dispatcher';
import type { McpClient } from '../client/client-api';
import { pushRouterOf } from '../client/events/push-router';
import { EventMethod } from '../schema/events';
import { META } from '../schema/request-meta';
import type { ProxyRouter } from './proxy-router';
import { forwardedMeta, forwardedParams, forwardTo } from './forward';

/** The params of a stream's notification as the caller gets it: its own request id as the subscription id. */
function underCaller(params: Record<string, unknown>, requestId: RequestContext['requestId']): Record<string, unknown> {
  return { ...params, _meta: { ...forwardedMeta(params._meta), [META.subscriptionId]: requestId } };
}

/**
 * Relays one push stream: opens `events/stream` upstream with `params` (less the downstream hop's
 * `_meta`) as a request of `upstream`, and sends each of the upstream stream's notifications (those
 * whose subscription id is that request's id) to the caller of `context`, related to its request,
 * with the subscription id rewritten to the caller's request id; `rename` may change the
 * notification's params on the way (an aggregate's namespaced event names). Cold: unsubscribing
 * (the caller cancelled, or its connection closed) cancels the upstream request. Errors as the
 * upstream request does; answers `{}` when the upstream ends the stream with a result.
 */
export function relayStream(
  upstream: McpClient,
  params: Record<string, unknown>,
  context: RequestContext,
  rename: (params: Record<string, unknown>) => Record<string, unknown> = (same) => same,
): Observable<HandlerResult> {
  return new Observable<HandlerResult>((subscriber) =>
    pushRouterOf(upstream)
      .open(forwardedParams(params))
      .subscribe({
        next: (message) => context.notify(message.method, underCaller(rename(message.params), context.requestId)),
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          subscriber.next({});
          subscriber.complete();
        },
      }),
  );
}

/** The proxy's handlers of the events methods: all forwarded as they are, a push stream relayed. */
export function eventHandlers(
  upstream: () => McpClient,
  timeoutMs?: number,
  router?: ProxyRouter,
): Record<string, RequestHandler> {
  const handlers: Record<string, RequestHandler> = {};
  for (const method of [EventMethod.List, EventMethod.Poll, EventMethod.Subscribe, EventMethod.Unsubscribe])
    handlers[method] = forwardTo(upstream, method, timeoutMs, router);
  // The upstream checks the params, as it would for a direct caller.
  handlers[EventMethod.Stream] = passParamsThrough((params, context) => relayStream(upstream(), params, context));
  return handlers;
}
