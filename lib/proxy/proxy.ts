import { catchError, EMPTY, map, merge, skip, Subject } from '../rx/rxjs';
import type { Observable, Subscription } from '../rx/rxjs';
import { hasCapability } from '../connection/capabilities';
import { declaresPartialResults, PARTIAL_RESULTS_EXTENSION } from '../connection/partial-results';
import type { RequestHandler } from '../connection/dispatcher';
import { childLogger } from '../base/logger';
import type { LoggerOption } from '../base/logger';
import type { McpClient } from '../client/client-api';
import { forwardTo, tellRootsChanged } from './forward';
import { Front, setLevelHandler } from './front';
import type { McpProxy } from './front';
import type { ProxyRouter } from './proxy-router';
import type { ServerMiddleware } from '../server/middleware';
import { listenRelay } from './listen-relay';
import { clientDeclaresEvents, declaredEvents, eventTypeChanges } from './event-declarations';
import { eventHandlers } from './events-relay';
import { EVENTS_EXTENSION } from '../schema/events';
import { SubscriptionRelay } from './subscription-relay';

export type { McpProxy } from './front';

/** Options of {@link proxy}. */
export interface ProxyOptions {
  /** The proxy's name downstream (`serverInfo.name`). Default: the upstream server's. */
  readonly name?: string;
  readonly version?: string;
  /** Instructions for downstream clients. Default: the upstream server's. */
  readonly instructions?: string;
  /** How long a forwarded request may wait without an answer or progress. Default 60 s. */
  readonly requestTimeoutMs?: number;
  readonly logger?: LoggerOption;
  /**
   * Carries the upstream's sampling and elicitation requests to the downstream caller; the upstream
   * client must have been connected with the router's `clientOptions` (see `createProxyRouter`).
   */
  readonly router?: ProxyRouter;
  /**
   * Server middleware around every request the proxy serves, as `createServer`'s `middleware`:
   * `rateLimit`, `concurrencyLimit`, `toolPolicy`... keyed on the caller's principal where the
   * endpoint has `auth`. Its `ServerContext.session` is the downstream session.
   */
  readonly middleware?: readonly ServerMiddleware[];
}

/** Methods a proxy forwards as they are, by the upstream capability they need. */
const FORWARDED: ReadonlyArray<readonly [method: string, capability: string]> = [
  ['tools/list', 'tools'],
  ['tools/call', 'tools'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resources'],
  ['resources/read', 'resources'],
  ['prompts/list', 'prompts'],
  ['prompts/get', 'prompts'],
  ['completion/complete', 'completions'],
];

/**
 * A proxy: a server definition whose tools, resources, templates, prompts and completions are
 * those of `upstream`, a connected client (any transport, any revision it negotiated). Requests
 * are forwarded as they are, with their `_meta` (less what belongs to one hop); progress is passed
 * back under the caller's token and keeps the upstream call alive; cancelling a downstream request
 * cancels the upstream one; upstream errors reach the caller with their code. When the upstream
 * lists change, every downstream client is told (`list_changed`); a resource subscription is shared
 * upstream by every downstream subscriber to the same URI; the upstream's log messages reach every
 * downstream client at the level it set. Downstream clients may speak any revision the proxy
 * serves; sessions of the handshake revisions and modern requests of 2026-07-28 are both served.
 * Events (experimental) pass through when the upstream and the proxy's client of it both declared
 * them: polls and webhook subscriptions are forwarded, and each push stream is relayed under the
 * caller's own subscription id (see `relayStream`).
 */
export function proxy(upstream: McpClient, options: ProxyOptions = {}): McpProxy {
  const logger = childLogger(options.logger, { component: 'proxy' });
  const relay = new SubscriptionRelay(upstream, logger);
  const closing = new Subject<void>();
  // Asked for each request: derived again only when the upstream's declaration changes.
  let declared: unknown;
  let derived: Record<string, unknown> = {};
  const capabilities = () => {
    if (upstream.serverCapabilities !== declared) {
      declared = upstream.serverCapabilities;
      // Events pass through when both sides of the upstream hop declared them.
      derived = downstreamCapabilities(declared as Record<string, unknown>, clientDeclaresEvents(upstream));
    }
    return derived;
  };
  const listen = listenRelay({
    capabilities,
    changes: () => front.broadcasts,
    updates: (uri) => relay.updates(uri),
    closing,
    logger,
  });
  const front: Front = new Front({
    info: {
      name: options.name ?? upstream.serverInfo.name ?? 'rxmcp-proxy',
      version: options.version ?? upstream.serverInfo.version ?? '0.0.0',
    },
    instructions: options.instructions ?? upstream.instructions,
    capabilities,
    handlers: { ...proxyHandlers(upstream, relay, options), 'subscriptions/listen': listen },
    middleware: options.middleware,
    logger,
    onSessionClosed: (session) => relay.dropAll(session),
    onRootsChanged: () => tellRootsChanged(upstream),
    onClose: () => {
      closing.next();
      watching.unsubscribe();
      relay.close();
    },
  });
  const watching = watchUpstream(upstream, front);
  return front;
}

/**
 * What the proxy declares downstream: what the upstream declared, for the features it forwards;
 * its events settings only when `events` (the proxy's upstream client declared them too).
 */
export function downstreamCapabilities(declared: Record<string, unknown>, events = true): Record<string, unknown> {
  const capabilities: Record<string, unknown> = { logging: {} };
  if (hasCapability(declared, 'tools')) capabilities.tools = { listChanged: true };
  if (hasCapability(declared, 'resources')) {
    capabilities.resources = { listChanged: true, subscribe: hasCapability(declared, 'resources.subscribe') };
  }
  if (hasCapability(declared, 'prompts')) capabilities.prompts = { listChanged: true };
  if (hasCapability(declared, 'completions')) capabilities.completions = {};
  const extensions: Record<string, unknown> = {};
  // Partial tool results pass through when the upstream streams them (see `partialsToPass`).
  if (declaresPartialResults(declared)) extensions[PARTIAL_RESULTS_EXTENSION] = {};
  // Events pass through with the upstream's settings: its delivery modes and heartbeat (see `relayStream`).
  const eventsSettings = events ? declaredEvents(declared) : undefined;
  if (eventsSettings !== undefined) extensions[EVENTS_EXTENSION] = eventsSettings;
  if (Object.keys(extensions).length > 0) capabilities.extensions = extensions;
  return capabilities;
}

/** The proxy's request handlers, shared by every downstream connection (each finds its session as owner). */
function proxyHandlers(
  upstream: McpClient,
  relay: SubscriptionRelay,
  options: ProxyOptions,
): Record<string, RequestHandler> {
  const handlers: Record<string, RequestHandler> = {};
  const client = () => upstream;
  for (const [method] of FORWARDED)
    handlers[method] = forwardTo(client, method, options.requestTimeoutMs, options.router);
  Object.assign(handlers, eventHandlers(client, options.requestTimeoutMs, options.router));
  handlers['logging/setLevel'] = setLevelHandler;
  handlers['resources/subscribe'] = (params, _context, owner) => relay.add(owner, String(params.uri));
  handlers['resources/unsubscribe'] = (params, _context, owner) => {
    relay.remove(owner, String(params.uri));
    return {};
  };
  return handlers;
}

/**
 * Follows the upstream: each change of one of its lists (seen as a new emission of the client's
 * self-refreshing list, so it works in either era) becomes a `list_changed` to every downstream
 * client, and each upstream log message reaches the downstream clients whose level lets it through.
 * `front` may be any sink of the two (an aggregate passes one session's, for a per-session upstream).
 */
export function watchUpstream(
  upstream: McpClient,
  front: Pick<Front, 'broadcast' | 'log'>,
  rename: (message: Record<string, unknown>) => Record<string, unknown> = (message) => message,
): Subscription {
  const declared = upstream.serverCapabilities as Record<string, unknown>;
  const changes: Array<Observable<string>> = [];
  // A list that fails to refresh stops being followed; the others go on.
  const follow = (list$: Observable<unknown>, method: string) =>
    changes.push(
      list$.pipe(
        skip(1),
        map(() => method),
        catchError(() => EMPTY),
      ),
    );
  if (hasCapability(declared, 'tools')) follow(upstream.tools$, 'notifications/tools/list_changed');
  if (hasCapability(declared, 'prompts')) follow(upstream.prompts$, 'notifications/prompts/list_changed');
  if (hasCapability(declared, 'resources')) {
    follow(upstream.resources$, 'notifications/resources/list_changed');
    follow(upstream.resourceTemplates$, 'notifications/resources/list_changed');
  }
  changes.push(eventTypeChanges(upstream));
  const subscription = merge(...changes).subscribe((method) => front.broadcast(method));
  subscription.add(
    upstream.logMessages$.subscribe((message) =>
      front.log(rename(message as unknown as Record<string, unknown>) as { level: string }),
    ),
  );
  return subscription;
}
