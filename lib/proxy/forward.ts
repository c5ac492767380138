import { Observable } from '../rx/rxjs';
import type { HandlerResult, RequestContext, RequestHandler } from '../connection/dispatcher';
import type { RequestOptions } from '../connection/request-pipeline';
import type { McpClient } from '../client/client-api';
import type { ProxyRouter } from './proxy-router';

/** `_meta` keys that belong to one hop and are never passed on: the next hop gets its own. */
const HOP_META_PREFIX = 'io.modelcontextprotocol/';

/** The request's `_meta` without what belongs to the downstream hop (its progress token, its revision fields). */
export function forwardedMeta(meta: unknown): Record<string, unknown> | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  let kept: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(meta)) {
    if (key === 'progressToken' || key.startsWith(HOP_META_PREFIX)) continue;
    (kept ??= {})[key] = value;
  }
  return kept;
}

/** The params to send upstream: the downstream params with their `_meta` reduced to what travels. */
export function forwardedParams(params: Record<string, unknown>): Record<string, unknown> {
  if (!('_meta' in params)) return params;
  const { _meta: meta, ...rest } = params;
  const kept = forwardedMeta(meta);
  return kept === undefined ? rest : { ...rest, _meta: kept };
}

/** What the forwarded request may tell its caller while it runs. */
function upstreamOptions(context: RequestContext, timeoutMs: number | undefined): RequestOptions {
  return {
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    // Progress from upstream reaches the caller under its own token, and keeps the call alive.
    ...(context.progressToken !== undefined
      ? { onProgress: (update) => context.progress(update.progress, update.total, update.message) }
      : {}),
  };
}

/**
 * A request handler that sends the request on to `upstream` and answers with what it answers:
 * the result as it is (with its `_meta`), or the upstream's JSON-RPC error with its code. Progress
 * reaches the caller under the caller's token; cancelling the downstream request (or closing its
 * connection) unsubscribes, which cancels the upstream request. With a `router`, the call is the
 * one the upstream's requests for input are sent to while it runs.
 */
export function forwardTo(
  upstream: () => McpClient,
  method: string,
  timeoutMs?: number,
  router?: ProxyRouter,
): RequestHandler {
  return (params, context) => forwardRequest(upstream(), method, forwardedParams(params), context, timeoutMs, router);
}

/** Sends one request upstream on behalf of the downstream request `context` (see {@link forwardTo}). */
export function forwardRequest(
  upstream: McpClient,
  method: string,
  params: Record<string, unknown>,
  context: RequestContext,
  timeoutMs?: number,
  router?: ProxyRouter,
): Observable<HandlerResult> {
  return new Observable<HandlerResult>((subscriber) => {
    const untrack = router?.track(context);
    const subscription = upstream.request(method, params, upstreamOptions(context, timeoutMs)).subscribe(subscriber);
    if (untrack) subscription.add(untrack);
    return subscription;
  });
}
