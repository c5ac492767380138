import type { Logger } from 'pino';
import { catchError, EMPTY, map, merge, skip } from 'rxjs';
import type { Observable, Subscription } from 'rxjs';
import { hasCapability } from '../connection/capabilities';
import { createConnection } from '../connection/connection';
import type { Connection } from '../connection/connection';
import type { RequestHandler } from '../connection/dispatcher';
import { LOG_LEVELS } from '../connection/handler-events';
import type { LogLevel } from '../connection/handler-events';
import { StatelessEndpoint } from '../connection/stateless-endpoint';
import { STATELESS_REVISIONS } from '../connection/stateless';
import { childLogger } from '../jsonrpc/logger';
import { STATEFUL_REVISIONS } from '../schema/revisions';
import type { StatelessReceiver, Transport } from '../transport/transport';
import type { McpClient } from '../client/client-api';
import { forwardTo } from './forward';
import type { ProxyRouter } from './proxy-router';
import { SubscriptionRelay } from './subscription-relay';

/** Options of {@link proxy}. */
export interface ProxyOptions {
  /** The proxy's name downstream (`serverInfo.name`). Default: the upstream server's. */
  readonly name?: string;
  readonly version?: string;
  /** Instructions for downstream clients. Default: the upstream server's. */
  readonly instructions?: string;
  /** How long a forwarded request may wait without an answer or progress. Default 60 s. */
  readonly requestTimeoutMs?: number;
  readonly logger?: Logger;
  /**
   * Carries the upstream's sampling and elicitation requests to the downstream caller; the upstream
   * client must have been connected with the router's `clientOptions` (see `createProxyRouter`).
   */
  readonly router?: ProxyRouter;
}

/** A server definition that serves what one upstream MCP server offers, to any number of clients. */
export interface McpProxy {
  /** Serves one downstream client over `transport` (any transport; the HTTP helpers call it per session). */
  connect(transport: Transport): Connection;
  /** Serves requests of the stateless revisions (2026-07-28 on) one by one, for the Streamable HTTP handler. */
  readonly stateless: StatelessReceiver;
  /** The downstream connections open now. */
  readonly sessions: ReadonlySet<Connection>;
  /** Closes every downstream connection; the upstream client is left open (it is the caller's). */
  close(reason?: string): void;
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

const levelRank = new Map<string, number>(LOG_LEVELS.map((level, index) => [level, index]));

/** What one downstream client holds at the proxy. */
class DownstreamSession {
  level: LogLevel = 'debug';
  connection!: Connection;
}

/**
 * A proxy: a server definition whose tools, resources, templates, prompts and completions are
 * those of `upstream`, a connected client (any transport, any revision it negotiated). Requests
 * are forwarded as they are, with their `_meta` (less what belongs to one hop); progress is passed
 * back under the caller's token and keeps the upstream call alive; cancelling a downstream request
 * cancels the upstream one; upstream errors reach the caller with their code. When the upstream
 * lists change, every downstream client is told (`list_changed`); a resource subscription is shared
 * upstream by every downstream subscriber to the same URI; the upstream's log messages reach every
 * downstream client at the level it set. Downstream clients may speak any revision the proxy
 * serves; sessions of the handshake revisions and stateless requests of 2026-07-28 are both served.
 */
export function proxy(upstream: McpClient, options: ProxyOptions = {}): McpProxy {
  const logger = childLogger(options.logger, { component: 'proxy' });
  const sessions = new Set<DownstreamSession>();
  const connections = new Set<Connection>();
  const info = {
    name: options.name ?? upstream.serverInfo.name ?? 'rxmcp-proxy',
    version: options.version ?? upstream.serverInfo.version ?? '0.0.0',
  };
  const instructions = options.instructions ?? upstream.instructions;
  const capabilities = () => downstreamCapabilities(upstream);
  const relay = new SubscriptionRelay(upstream, logger);
  const handlers = proxyHandlers(upstream, relay, options);
  const watching = watchUpstream(upstream, sessions, logger);
  let endpoint: StatelessEndpoint | undefined;

  return {
    connect(transport) {
      const session = new DownstreamSession();
      const connection = createConnection({
        transport,
        role: 'server',
        info,
        ...(instructions !== undefined ? { instructions } : {}),
        capabilities,
        handlers,
        owner: session,
        logger,
        onClose: () => {
          relay.dropAll(session);
          sessions.delete(session);
          connections.delete(connection);
        },
      });
      session.connection = connection;
      if (connection.state !== 'shutdown') {
        sessions.add(session);
        connections.add(connection);
      }
      return connection;
    },
    get stateless() {
      return (endpoint ??= new StatelessEndpoint({
        info,
        ...(instructions !== undefined ? { instructions } : {}),
        capabilities,
        handlers,
        supportedRevisions: [...STATEFUL_REVISIONS, ...STATELESS_REVISIONS],
        logger,
      }));
    },
    sessions: connections,
    close(reason = 'proxy closed') {
      watching.unsubscribe();
      for (const session of [...sessions]) session.connection.close(reason);
      endpoint?.close(reason);
      relay.close();
    },
  };
}

/** What the proxy declares downstream: what the upstream declared, for the features it forwards. */
function downstreamCapabilities(upstream: McpClient): Record<string, unknown> {
  const declared = upstream.serverCapabilities as Record<string, unknown>;
  const capabilities: Record<string, unknown> = { logging: {} };
  if (hasCapability(declared, 'tools')) capabilities.tools = { listChanged: true };
  if (hasCapability(declared, 'resources')) {
    capabilities.resources = { listChanged: true, subscribe: hasCapability(declared, 'resources.subscribe') };
  }
  if (hasCapability(declared, 'prompts')) capabilities.prompts = { listChanged: true };
  if (hasCapability(declared, 'completions')) capabilities.completions = {};
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
  handlers['logging/setLevel'] = (params, _context, owner) => {
    (owner as DownstreamSession).level = params.level as LogLevel;
    return {};
  };
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
 */
function watchUpstream(upstream: McpClient, sessions: ReadonlySet<DownstreamSession>, logger: Logger): Subscription {
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
  const subscription = merge(...changes).subscribe((method) => {
    logger.debug({ method }, 'upstream list changed');
    for (const session of sessions) {
      if (session.connection.state === 'operating') session.connection.notify(method);
    }
  });
  subscription.add(
    upstream.logMessages$.subscribe((message) => {
      const rank = levelRank.get(message.level) ?? 0;
      for (const session of sessions) {
        if (session.connection.state === 'operating' && rank >= levelRank.get(session.level)!)
          session.connection.notify('notifications/message', message as unknown as Record<string, unknown>);
      }
    }),
  );
  return subscription;
}
