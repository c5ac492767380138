/**
 * Server middleware around a proxy's or an aggregate's request handlers (`middleware` of `proxy`
 * and `aggregate`): rate limits, concurrency limits, tool policies, caches, whatever runs around a
 * server's handlers runs around what the proxy forwards, with the same `ServerContext`. A
 * downstream session is shown to the middleware as a `ServerSession`: its id, the caller's `auth`
 * (the principal limits count against), what the client declared.
 */
import type { Observable, Unsubscribable } from '../rx/rxjs';
import type { Connection } from '../connection/connection';
import { passesParamsThrough, passParamsThrough } from '../connection/dispatcher';
import { relayOf, relayThrough } from '../connection/relay';
import type { RequestHandler } from '../connection/dispatcher';
import type { RelayedCall, RequestRelay } from '../connection/relay';
import type { RequestSink } from '../connection/request-pipeline';
import type { MessageParams } from '../schema/request-meta';
import { decidesAtOnce } from '../server/middleware-runner';
import type { LogLevel } from '../connection/handler-events';
import { withMiddleware } from '../server/middleware';
import type { ServerMiddleware } from '../server/middleware';
import { createClientRequests } from '../server/server-context';
import type { ClientRequests, PersistedSession, ServerSession } from '../server/server-context';
import type { ClientCapabilities, Implementation } from '../schema/lifecycle';
import type { Revision } from '../schema/revisions';
import type { AuthInfo, Transport, TransportClose } from '../transport/transport';

/** What a downstream session of a proxy holds that its middleware view reads. */
export interface DownstreamState {
  readonly connection: Connection;
  readonly transport: Transport | undefined;
  readonly level: LogLevel;
}

/**
 * A downstream session as a `ServerSession`, for middleware: made once per session, on its first
 * request that passes middleware. A proxy's session is not persisted (`persist` throws) and keeps
 * no resource subscriptions of its own (the proxy shares them upstream).
 */
export class DownstreamSessionView implements ServerSession {
  private requests: ClientRequests | undefined;

  constructor(readonly downstream: DownstreamState) {}

  get id(): string {
    return this.downstream.connection.id;
  }
  get auth(): AuthInfo | undefined {
    return this.downstream.transport?.auth;
  }
  get connection(): Connection {
    return this.downstream.connection;
  }
  /** The transport, whose request headers `ServerContext.headers` reads. */
  get transport(): Transport | undefined {
    return this.downstream.transport;
  }
  get closed$(): Observable<TransportClose> {
    return this.downstream.connection.closed$;
  }
  get revision(): Revision | undefined {
    return this.downstream.connection.revision;
  }
  get clientInfo(): Implementation | undefined {
    return this.downstream.connection.peerInfo as Implementation | undefined;
  }
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.downstream.connection.peerCapabilities as ClientCapabilities | undefined;
  }
  get logLevel(): LogLevel {
    return this.downstream.level;
  }
  get subscriptions(): ReadonlySet<string> {
    return EMPTY_SET;
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    this.downstream.connection.notify('notifications/message', { level, data, ...(logger ? { logger } : {}) });
  }

  close(reason?: string): void {
    this.downstream.connection.close(reason ?? 'closed by the server');
  }

  persist(): PersistedSession {
    throw new Error('a proxy session cannot be persisted');
  }

  private get clientRequests(): ClientRequests {
    const { connection } = this.downstream;
    return (this.requests ??= createClientRequests(connection, (method, params, options) =>
      connection.request(method, params, options),
    ));
  }
  sample: ClientRequests['sample'] = (params, options) => this.clientRequests.sample(params, options);
  elicit: ClientRequests['elicit'] = (params, options) => this.clientRequests.elicit(params, options);
  elicitUrl: ClientRequests['elicitUrl'] = (params, options) => this.clientRequests.elicitUrl(params, options);
  listRoots: ClientRequests['listRoots'] = (options) => this.clientRequests.listRoots(options);
}

const EMPTY_SET: ReadonlySet<string> = new Set();

/** Where a session's view is kept: on the session's state, one per downstream session. */
const VIEW: unique symbol = Symbol('rxmcp.proxy.sessionView');

/** A downstream session's state, with the slot its view is kept in. */
type ViewedState = DownstreamState & { [VIEW]?: DownstreamSessionView };

/** The relay of the middleware around a handler, given the downstream session's view as the owner. */
class ViewingRelay implements RequestRelay {
  constructor(private readonly relay: RequestRelay) {}

  accepts(method: string, params: MessageParams, revision: Revision): boolean {
    // A relay that cannot say beforehand is not vouched for: whoever asks sends the request the slow way.
    return this.relay.accepts?.(method, params, revision) ?? false;
  }

  start(
    method: string,
    params: MessageParams,
    revision: Revision,
    sink: RequestSink,
    owner: unknown,
    call: RelayedCall,
    accepted?: boolean,
  ): Unsubscribable | undefined | false {
    return this.relay.start(method, params, revision, sink, viewOf(owner as ViewedState | undefined), call, accepted);
  }
}

function viewOf(owner: ViewedState | undefined): DownstreamSessionView | undefined {
  if (owner === undefined || owner === null) return undefined;
  return (owner[VIEW] ??= new DownstreamSessionView(owner));
}

/**
 * `handlers` with `chain` around each: the middleware sees the downstream session as a
 * `ServerSession`; the handler still gets its own owner. With no middleware, `handlers` as they are.
 * A handler that leaves the params to its upstream to check (a forwarded request) keeps doing so
 * when every middleware of the chain decides at once (this library's limits and policies, which
 * read the params they need defensively); other middleware sees the params checked.
 */
export function withFrontMiddleware(
  handlers: Readonly<Record<string, RequestHandler>>,
  chain: readonly ServerMiddleware[] | undefined,
): Readonly<Record<string, RequestHandler>> {
  if (chain === undefined || chain.length === 0) return handlers;
  const wrapped: Record<string, RequestHandler> = {};
  const atOnce = chain.every(decidesAtOnce);
  for (const [method, handler] of Object.entries(handlers)) {
    const viewed: RequestHandler<string, DownstreamSessionView | undefined> = (params, context, view) =>
      handler(params, context, view?.downstream);
    // An admitted call is relayed as it would be without middleware.
    const relay = relayOf(handler);
    if (relay !== undefined) relayThrough(viewed as RequestHandler, relay);
    const inner = withMiddleware(viewed, chain);
    // The owner is the downstream session (a modern request has none), which holds a DownstreamState.
    const outer: RequestHandler<string, ViewedState | undefined> = (params, context, owner) =>
      inner(params, context, viewOf(owner));
    const admitting = atOnce ? relayOf(inner) : undefined;
    if (admitting !== undefined) wrapped[method] = relayThrough(outer as RequestHandler, new ViewingRelay(admitting));
    else wrapped[method] = atOnce && passesParamsThrough(handler) ? passParamsThrough(outer) : outer;
  }
  return wrapped;
}
