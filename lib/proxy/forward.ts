import { map, Observable } from '../rx/rxjs';
import type { Unsubscribable } from '../rx/rxjs';
import { META } from '../connection/modern';
import { hasCapability } from '../connection/capabilities';
import { isModernRevision, isLegacyRevision } from '../schema/revisions';
import { DeferredOutput, passParamsThrough } from '../connection/dispatcher';
import type { HandlerResult, OutputSink, RequestContext, RequestHandler } from '../connection/dispatcher';
import type { RequestOptions, RequestSink } from '../connection/request-pipeline';
import { relayThrough } from '../connection/relay';
import type { RelayedCall, RequestRelay } from '../connection/relay';
import type { MessageParams } from '../schema/request-meta';
import type { Revision } from '../schema/revisions';
import type { McpClient } from '../client/client-api';
import { declaresPartialResults, PARTIAL_RESULT_METHOD, partialResultToken } from '../connection/partial-results';
import type { DownstreamSession, FrontHandler } from './front';
import type { ProxyRouter } from './proxy-router';
import { callerIsOlder, resultForCaller } from './revision-shapes';

/** `_meta` keys that belong to one hop and are never passed on: the next hop gets its own. */
const HOP_META_PREFIX = 'io.modelcontextprotocol/';

/**
 * The request's `_meta` without what belongs to the downstream hop (its progress and partial
 * result tokens, its revision fields).
 */
export function forwardedMeta(meta: unknown): Record<string, unknown> | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  let kept: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(meta)) {
    if (key === 'progressToken' || key === 'partialResultToken' || key.startsWith(HOP_META_PREFIX)) continue;
    (kept ??= {})[key] = value;
  }
  return kept;
}

/** Params of one hop only: a retry's answers and state belong to the caller's exchange with the proxy. */
const HOP_PARAMS: ReadonlySet<string> = new Set(['_meta', 'inputResponses', 'requestState']);

/** The params to send upstream: the downstream params with their `_meta` reduced to what travels. */
export function forwardedParams(params: Record<string, unknown>): Record<string, unknown> {
  if (!('_meta' in params) && !('inputResponses' in params) && !('requestState' in params)) return params;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (!HOP_PARAMS.has(key)) rest[key] = value;
  const kept = forwardedMeta(params._meta);
  return kept === undefined ? rest : { ...rest, _meta: kept };
}

/**
 * A modern upstream's result as the caller gets it: without what described the upstream hop
 * (its `resultType` and its identity in `_meta`), which the proxy's own answer states for itself.
 */
export function forwardedResult(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  const identified = typeof meta === 'object' && meta !== null && META.serverInfo in meta;
  if (!('resultType' in result) && !identified) return result;
  const { resultType: _type, _meta: _hop, ...rest } = result;
  if (!identified) return meta === undefined ? rest : { ...rest, _meta: meta };
  const { [META.serverInfo]: _identity, ...kept } = meta;
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest;
}

/** The log level the caller wants for this request: its own in a modern revision, its session's otherwise. */
function callerLogLevel(context: RequestContext, owner: DownstreamSession | undefined): string | undefined {
  if (context.peer !== undefined) return context.peer.logLevel;
  return owner?.level;
}

/** Options of a forwarded request that only skips the result check: the caller checks it. */
const UNCHECKED: RequestOptions = Object.freeze({ checkResult: false });

/**
 * The caller's partial result token when it asked for partial results of a `tools/call` (with the
 * capability declared) and the upstream streams them (both its sides declared them); else undefined.
 */
export function partialsToPass(
  method: string,
  context: RequestContext,
  owner: DownstreamSession | undefined,
  upstream: McpClient,
): string | number | undefined {
  if (method !== 'tools/call' || context.meta?.partialResultToken === undefined) return undefined;
  const token = partialResultToken(
    context.meta,
    context.peer?.clientCapabilities ?? owner?.connection?.peerCapabilities,
  );
  if (token === undefined || !declaresPartialResults(upstream.serverCapabilities)) return undefined;
  return declaresPartialResults(upstream.connection.capabilities()) ? token : undefined;
}

/** What the forwarded request may tell its caller while it runs. */
function upstreamOptions(
  current: () => RequestContext,
  timeoutMs: number | undefined,
  logLevel: string | undefined,
  partialToken?: string | number,
): RequestOptions {
  // The common case (no timeout of its own, no log level, no progress asked for) shares one object.
  if (
    timeoutMs === undefined &&
    logLevel === undefined &&
    partialToken === undefined &&
    current().progressToken === undefined
  )
    return UNCHECKED;
  // The caller checks the result: the proxy passes it on without checking it again.
  const options: { -readonly [K in keyof RequestOptions]: RequestOptions[K] } = { checkResult: false };
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  // A modern upstream takes the log level per request (a session's upstream keeps its own).
  if (logLevel !== undefined) options.meta = { [META.logLevel]: logLevel };
  // Progress from upstream reaches the caller under its own token, and keeps the call alive.
  if (current().progressToken !== undefined)
    options.onProgress = (update) => current().progress(update.progress, update.total, update.message);
  // Partial results from upstream reach the caller under its own token, in the upstream's order.
  if (partialToken !== undefined)
    options.onPartialResult = (piece) =>
      current().notify(PARTIAL_RESULT_METHOD, { partialResultToken: partialToken, ...piece });
  return options;
}

/**
 * Tells an upstream that the roots it may ask for changed (a downstream client said so): when it
 * declared roots with list changes (a router's upstream) and speaks a revision that has them.
 */
export function tellRootsChanged(client: McpClient): void {
  const { connection } = client;
  if (connection.state !== 'operating' || !isLegacyRevision(client.revision ?? '')) return;
  if (hasCapability(connection.capabilities(), 'roots.listChanged'))
    connection.notify('notifications/roots/list_changed');
}

/**
 * A request handler that sends the request on to `upstream` and answers with what it answers:
 * the result (with its `_meta`, less what belongs to the upstream hop), or the upstream's JSON-RPC
 * error with its code. Progress reaches the caller under the caller's token; cancelling the
 * downstream request (or closing its connection) unsubscribes, which cancels the upstream request.
 * With a `router`, the call is the one the upstream's requests for input are sent to while it
 * runs, whatever revision each side speaks (see `ProxyRouter`). Without one, a call that asks for
 * nothing of its own hop is relayed instead (see `SessionRelay`): the handler does not run for it.
 */
export function forwardTo(
  upstream: () => McpClient,
  method: string,
  timeoutMs?: number,
  router?: ProxyRouter,
): RequestHandler {
  // The upstream checks the params, as it would for a direct caller.
  const handler: FrontHandler = (params, context, owner) => {
    const client = upstream();
    // Straight to its connection, with no Observable between.
    if (router === undefined && takesStraight(client, context.revision))
      return new UpstreamCall(
        client,
        method,
        forwardedParams(params),
        upstreamOptions(() => context, timeoutMs, undefined, partialsToPass(method, context, owner, client)),
      );
    return forwardRequest(client, method, forwardedParams(params), context, timeoutMs, router, params, owner);
  };
  // Without a router, a call whose caller asked for nothing of its own hop (no progress, no
  // partial results) is relayed: sent on as it came, with no request context at the proxy.
  return router === undefined
    ? relayThrough(handler, new SessionRelay(upstream, timeoutMs))
    : passParamsThrough(handler);
}

/**
 * Whether a call of a caller speaking `revision` goes to `client`'s connection as it is: a
 * session's upstream (a handshake revision), whose results the caller's revision has every field of.
 */
function takesStraight(client: McpClient, revision: Revision): boolean {
  return !isModernRevision(client.revision) && !callerIsOlder(revision, client.revision);
}

/** Relays calls to a session's upstream whose results the caller's revision has every field of. */
class SessionRelay implements RequestRelay {
  private readonly options: RequestOptions;

  constructor(
    private readonly upstream: () => McpClient,
    timeoutMs: number | undefined,
  ) {
    this.options = timeoutMs === undefined ? UNCHECKED : Object.freeze({ checkResult: false, timeoutMs });
  }

  accepts(_method: string, params: MessageParams, revision: Revision): boolean {
    // A peer's `_meta` may be anything: only a progress or partial result token asks for the handler.
    const meta = params._meta as { readonly progressToken?: unknown; readonly partialResultToken?: unknown } | null;
    if (meta?.progressToken !== undefined || meta?.partialResultToken !== undefined) return false;
    return takesStraight(this.upstream(), revision);
  }

  start(
    method: string,
    params: MessageParams,
    revision: Revision,
    sink: RequestSink,
    _owner?: unknown,
    _call?: RelayedCall,
    accepted?: boolean,
  ): Unsubscribable | undefined | false {
    if (accepted !== true && !this.accepts(method, params, revision)) return false;
    return this.upstream().connection.startRequest(method, forwardedParams(params), this.options, sink);
  }
}

/**
 * Sends one request upstream on behalf of the downstream request `context` (see {@link forwardTo}).
 * `downstreamParams` are the params as the caller sent them (a modern caller's retry carries its
 * answers there); `owner` is the caller's session, whose log level a modern upstream is given.
 */
export function forwardRequest(
  upstream: McpClient,
  method: string,
  params: Record<string, unknown>,
  context: RequestContext,
  timeoutMs?: number,
  router?: ProxyRouter,
  downstreamParams: Record<string, unknown> = params,
  owner?: DownstreamSession,
): Observable<HandlerResult> {
  const modern = isModernRevision(upstream.revision);
  const level = modern ? callerLogLevel(context, owner) : undefined;
  // The result in the caller's revision: without the upstream hop's own fields, nor those the caller's revision lacks.
  const caller = context.revision;
  const shape = modern
    ? (result: HandlerResult) => resultForCaller(forwardedResult(result), caller)
    : callerIsOlder(caller, upstream.revision)
      ? (result: HandlerResult) => resultForCaller(result, caller)
      : undefined;
  const partials = partialsToPass(method, context, owner, upstream);
  const send = (current: () => RequestContext) => {
    const answer = upstream.request(method, params, upstreamOptions(current, timeoutMs, level, partials));
    return shape ? answer.pipe(map(shape)) : answer;
  };
  if (!router) return send(() => context);
  if (router.bridges(method, context)) return router.bridge(downstreamParams, context, send);
  return new Observable<HandlerResult>((subscriber) => {
    const untrack = router.track(context);
    const subscription = send(() => context).subscribe(subscriber);
    subscription.add(untrack);
    return subscription;
  });
}

/** One request forwarded to a session's upstream, answering the dispatcher through its sink. */
class UpstreamCall extends DeferredOutput {
  constructor(
    private readonly upstream: McpClient,
    private readonly method: string,
    private readonly params: Record<string, unknown>,
    private readonly options: RequestOptions,
  ) {
    super();
  }

  start(sink: OutputSink<HandlerResult>): Unsubscribable | undefined {
    return this.upstream.connection.startRequest(this.method, this.params, this.options, sink);
  }
}
