import type { Logger } from 'pino';
import { EMPTY, map, of, Subject, switchMap, throwError } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import { hasCapability } from '../connection/capabilities';
import type { Connection } from '../connection/connection';
import type { HandlerResult, RequestContext, RequestHandler } from '../connection/dispatcher';
import { JsonRpcError } from '../jsonrpc/errors';
import { childLogger } from '../jsonrpc/logger';
import type { LoggerOption } from '../jsonrpc/logger';
import type { McpClient } from '../client/client-api';
import type { Transport } from '../transport/transport';
import { catalog, declared, listsOf, mayName } from './aggregate-catalog';
import type { Asker, Item, Listed, Member, Naming } from './aggregate-catalog';
import type { Collision, CollisionPolicy } from './collisions';
import { forwardedParams, forwardRequest } from './forward';
import { Front, setLevelHandler } from './front';
import type { DownstreamSession, McpProxy } from './front';
import { listenRelay } from './listen-relay';
import { compileFilter } from './name-filter';
import { Namespaces } from './namespaces';
import { downstreamCapabilities } from './proxy';
import type { ProxyRouter } from './proxy-router';
import type { UpstreamReconnectOptions } from './reconnect';
import { PerSessionLinks } from './per-session-links';
import { listsChanged, SharedLinks } from './upstream-links';
import type { LinkSetup } from './upstream-links';
import { ArgumentPolicies, NamePolicy } from './upstream-policy';
import { normalizeUpstream } from './upstream-source';
import type { NormalizedUpstream, UpstreamEntry } from './upstream-source';

/** An aggregate whose upstreams can change while it serves. */
export interface ReconfigurableAggregate extends McpProxy {
  /**
   * Serves `upstreams` from now on, downstream sessions staying connected: upstreams whose key is
   * new join, those whose key is gone leave (their connections closed), and the others are made
   * again from their new entry unless `keep(key)` says the running one stays. Downstream clients
   * get `list_changed`. Throws a `TypeError`, changing nothing, for what `aggregate` would refuse.
   */
  reconfigure(upstreams: Readonly<Record<string, UpstreamEntry>>, keep?: (key: string) => boolean): void;
}

/** Options of {@link aggregate}. */
export interface AggregateOptions {
  /** The aggregate's name downstream (`serverInfo.name`). Default `rxmcp-aggregate`. */
  readonly name?: string;
  readonly version?: string;
  readonly instructions?: string;
  /** Between an upstream's namespace and a tool's or prompt's name: `files_read`. Default `_`. */
  readonly separator?: string;
  /** What happens when two upstreams show a tool or prompt under the same name. Default `'prefix'`. */
  readonly collisions?: CollisionPolicy;
  /**
   * How upstreams given as connectors are reconnected when their connection fails or closes (an
   * upstream's own `reconnect` wins). Default: 500 ms doubling to 30 s, no jitter, never giving up.
   */
  readonly reconnect?: UpstreamReconnectOptions;
  /** How long a forwarded request may wait without an answer or progress. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Carries every upstream's sampling and elicitation to the downstream caller (see `createProxyRouter`). */
  readonly router?: ProxyRouter;
  readonly logger?: LoggerOption;
}

/**
 * Many upstream servers behind one: `aggregate({ files: filesClient, search: searchConnector })`.
 *
 * Each entry is a connected client, a connector (`{ connect }` or a function) that the aggregate
 * connects itself, or an `UpstreamConfig` with the entry's policies: its namespace (default its
 * key; `''` for none), which tools, prompts and resources it shows, renamed tools and prompts,
 * hidden or defaulted tool arguments, one connection shared by all downstream clients or one per
 * downstream session. Tools and prompts are listed as `<namespace><separator><name>`, resource
 * URIs and templates as `<namespace>+<uri>`; names two upstreams share are settled by
 * `collisions`. Each request goes to its upstream under the name or URI that upstream knows, with
 * progress, cancellation, errors and `_meta` passed as by `proxy`. Lists are merged (one page).
 *
 * An upstream that fails or whose connection closes leaves the lists (downstream clients get
 * `list_changed`) while the others keep serving; a request for one of its entries answers -32000
 * naming it. A connector's upstream is connected again with exponential backoff (`reconnect`) and
 * its entries come back (`list_changed` again). Each upstream's list changes, resource updates and
 * log messages reach downstream clients, renamed to match. Resource subscriptions are shared: one
 * upstream subscription per URI, whatever the number of downstream subscribers.
 *
 * Throws a `TypeError` for a configuration that cannot work: a namespace that cannot prefix a URI,
 * two upstreams with one namespace, two entries renamed alike, `'perSession'` on a ready client.
 */
export function aggregate(
  upstreams: Readonly<Record<string, UpstreamEntry>>,
  options: AggregateOptions = {},
): ReconfigurableAggregate {
  const logger = childLogger(options.logger, { component: 'aggregate' });
  const entries = Object.entries(upstreams).map(([key, entry]) => [key, normalizeUpstream(key, entry)] as const);
  const members: Member[] = [];
  const routing: Routing = { members, names: namespacesOf(entries, options), options, logger };
  const transports = new WeakMap<Connection, Transport>();
  const closing = new Subject<void>();
  const handlers = aggregateHandlers(routing);
  handlers['subscriptions/listen'] = listenRelay({
    capabilities: () => unionCapabilities(members),
    changes: () => front.broadcasts,
    updates: (uri) => updatesOf(routing, uri),
    closing,
    logger,
  });
  const front: Front = new Front({
    info: { name: options.name ?? 'rxmcp-aggregate', version: options.version ?? '0.0.0' },
    instructions: options.instructions,
    capabilities: () => unionCapabilities(members),
    handlers,
    logger,
    onSessionClosed: (session) => members.forEach((member) => member.links.sessionClosed(session)),
    onRootsChanged: (session) => members.forEach((member) => member.links.rootsChanged(session)),
    onClose: () => {
      closing.next();
      members.forEach((member) => member.links.close());
    },
  });
  const setupOf = (key: string): LinkSetup => ({
    key,
    logger,
    front,
    downstreamUri: (uri) => routing.names.uri(key, uri),
    renameLog: (message) => ({
      ...message,
      logger: typeof message.logger === 'string' ? routing.names.name(key, message.logger) : key,
    }),
    transportOf: (session) => transports.get(session.connection),
  });
  for (const [key, entry] of entries) members.push(memberOf(key, entry, setupOf(key), options));
  return {
    reconfigure: (next, keep = () => false) => {
      const normalized = Object.entries(next).map(([key, entry]) => [key, normalizeUpstream(key, entry)] as const);
      const names = namespacesOf(normalized, options);
      const made = new Map<string, Member>();
      // Built before anything changes, so that a policy `aggregate` refuses leaves the old members serving.
      try {
        for (const [key, entry] of normalized)
          if (!keep(key) || !members.some((member) => member.key === key))
            made.set(key, memberOf(key, entry, setupOf(key), options));
      } catch (error) {
        for (const member of made.values()) member.links.close();
        throw error;
      }
      const old = new Map(members.map((member) => [member.key, member]));
      members.splice(0, members.length, ...normalized.map(([key]) => made.get(key) ?? old.get(key)!));
      routing.names = names;
      for (const [key, member] of old) if (made.has(key) || !(key in next)) member.links.close();
      listsChanged(front);
    },
    connect: (transport) => {
      const connection = front.connect(transport);
      transports.set(connection, transport);
      return connection;
    },
    get stateless() {
      return front.stateless;
    },
    get sessions() {
      return front.sessions;
    },
    close: (reason) => front.close(reason),
  };
}

function memberOf(key: string, entry: NormalizedUpstream, setup: LinkSetup, options: AggregateOptions): Member {
  const links =
    entry.connect && entry.sharing === 'perSession'
      ? new PerSessionLinks(setup, entry.connect)
      : new SharedLinks(
          setup,
          entry.client ? { client: entry.client } : { connect: entry.connect! },
          entry.reconnect === false ? false : { ...options.reconnect, ...entry.reconnect },
        );
  return {
    key,
    links,
    connector: entry.client === undefined,
    tools: new NamePolicy(key, 'tool', entry.tools),
    prompts: new NamePolicy(key, 'prompt', entry.prompts),
    resources: compileFilter(entry.resources),
    args: new ArgumentPolicies(entry.tools?.arguments),
  };
}

/** What the aggregate declares: every capability that some upstream declared. */
function unionCapabilities(members: readonly Member[]): Record<string, unknown> {
  const union: Record<string, unknown> = {};
  for (const member of members) {
    const own = declared(member);
    if (!own) continue;
    for (const key of ['tools', 'resources', 'prompts', 'completions']) if (hasCapability(own, key)) union[key] ??= {};
    if (hasCapability(own, 'resources.subscribe')) union.resources = { subscribe: true };
  }
  return downstreamCapabilities(union);
}

function unknownTarget(kind: string, value: string): JsonRpcError {
  return JsonRpcError.invalidParams(`no upstream serves the ${kind} "${value}"`);
}

/** The namespaces of the entries, by their keys. */
function namespacesOf(
  entries: ReadonlyArray<readonly [string, NormalizedUpstream]>,
  options: AggregateOptions,
): Namespaces {
  return new Namespaces(
    new Map(entries.map(([key, entry]) => [key, entry.namespace ?? key])),
    options.separator ?? '_',
  );
}

/** What the handlers share; `names` changes when the aggregate is reconfigured. */
interface Routing {
  readonly members: readonly Member[];
  names: Namespaces;
  readonly options: AggregateOptions;
  readonly logger: Logger;
}

const asker = (context: RequestContext | undefined, owner: unknown): Asker => ({
  owner: owner as DownstreamSession | undefined,
  context,
});

function naming(routing: Routing, kind: 'tools' | 'prompts'): Naming {
  return { names: routing.names, collisions: routing.options.collisions ?? 'prefix', kind };
}

function reporter(routing: Routing, kind: string): (collision: Collision) => void {
  const level = routing.options.collisions === 'error' ? 'error' : 'warn';
  return (collision) => routing.logger[level]({ kind, ...collision }, 'name collision between upstreams');
}

const listOf = (kind: 'tools' | 'prompts') => (client: McpClient) =>
  (kind === 'tools' ? client.tools$ : client.prompts$) as Observable<readonly Item[]>;

/** The tool or prompt shown as `name`, or the error that says why there is none. */
function findNamed(routing: Routing, kind: 'tools' | 'prompts', name: string, who: Asker): Observable<Listed> {
  const { members, names, logger } = routing;
  return listsOf(mayName(members, names, name), kind, who, listOf(kind), logger).pipe(
    switchMap((lists) => {
      const found = catalog(lists, naming(routing, kind)).get(name);
      if (found) return of(found);
      const what = kind === 'tools' ? 'tool' : 'prompt';
      const owner = members.find((member) => member.key === names.upstreamOfName(name));
      // An upstream that is not connected says so; one that is says it has no such entry.
      return owner
        ? owner.links.use(who.owner, who.context, () => throwError(() => unknownTarget(what, name)))
        : throwError(() => unknownTarget(what, name));
    }),
  );
}

/** The member serving a resource URI (or template URI) as downstream clients know it, and the URI it knows. */
function findResource(routing: Routing, uri: string): { readonly member: Member; readonly local: string } | undefined {
  const candidates = routing.names
    .resolveUri(uri)
    .map(({ upstream, local }) => ({ member: routing.members.find((member) => member.key === upstream), local }))
    .filter(
      (found): found is { member: Member; local: string } => !!found.member && found.member.resources(found.local),
    );
  return candidates.find((found) => found.member.links.available) ?? candidates[0];
}

/**
 * A shared upstream's updates of a resource, for a `subscriptions/listen` stream, across its
 * reconnections (per-session upstreams have none).
 */
function updatesOf(routing: Routing, uri: string): Observable<void> {
  const found = findResource(routing, uri);
  if (!found || !(found.member.links instanceof SharedLinks)) return EMPTY;
  return found.member.links.updates(found.local);
}

/** Sends a request about a resource to its member, or fails with -32602 naming what was not found. */
function toResource(
  routing: Routing,
  uri: string,
  who: Asker,
  kind: string,
  send: (member: Member, local: string, client: McpClient) => Observable<HandlerResult>,
): Observable<HandlerResult> {
  const found = findResource(routing, uri);
  if (!found) return throwError(() => unknownTarget(kind, uri));
  return found.member.links.use(who.owner, who.context, (link) => send(found.member, found.local, link.client));
}

/** A merged list of resources or templates: filtered, renamed, the first of two alike kept. */
function resourceList(
  routing: Routing,
  who: Asker,
  key: 'uri' | 'uriTemplate',
  list: (client: McpClient) => Observable<readonly Item[]>,
): Observable<Item[]> {
  return listsOf(routing.members, 'resources', who, list, routing.logger).pipe(
    map((lists) => {
      const merged = new Map<string, Item>();
      for (const { member, items } of lists)
        for (const item of items) {
          const local = String(item[key]);
          const shown = routing.names.uri(member.key, local);
          if (member.resources(local) && !merged.has(shown)) merged.set(shown, { ...item, [key]: shown });
        }
      return [...merged.values()];
    }),
  );
}

/** The aggregate's request handlers: merged lists, and each request routed to its upstream. */
function aggregateHandlers(routing: Routing): Record<string, RequestHandler> {
  const { members, options, logger } = routing;
  // `original` and `owner`: the caller's own params (a stateless retry's answers) and session (its log level).
  const forward = (
    client: McpClient,
    method: string,
    params: Record<string, unknown>,
    context: RequestContext,
    original?: Record<string, unknown>,
    owner?: unknown,
  ) => forwardRequest(client, method, params, context, options.requestTimeoutMs, options.router, original, owner);
  const use = (listed: Listed, who: Asker, send: (client: McpClient) => Observable<HandlerResult>) =>
    listed.member.links.use(who.owner, who.context, (link) => send(link.client));
  const named = (kind: 'tools' | 'prompts', context: RequestContext, owner: unknown) =>
    listsOf(members, kind, asker(context, owner), listOf(kind), logger).pipe(
      map((lists) => [...catalog(lists, naming(routing, kind), reporter(routing, kind)).values()]),
    );
  return {
    'logging/setLevel': setLevelHandler,
    'tools/list': (_params, context, owner) =>
      named('tools', context, owner).pipe(
        map((tools) => ({ tools: tools.map((t) => t.member.args.listed(t.local, { ...t.item, name: t.name })) })),
      ),
    'prompts/list': (_params, context, owner) =>
      named('prompts', context, owner).pipe(
        map((prompts) => ({ prompts: prompts.map((p) => ({ ...p.item, name: p.name })) })),
      ),
    'resources/list': (_params, context, owner) =>
      resourceList(routing, asker(context, owner), 'uri', (client) => client.listResources()).pipe(
        map((resources) => ({ resources })),
      ),
    'resources/templates/list': (_params, context, owner) =>
      resourceList(routing, asker(context, owner), 'uriTemplate', (client) => client.listResourceTemplates()).pipe(
        map((resourceTemplates) => ({ resourceTemplates })),
      ),
    'tools/call': (params, context, owner) => {
      const who = asker(context, owner);
      return findNamed(routing, 'tools', String(params.name), who).pipe(
        switchMap((tool) =>
          use(tool, who, (client) => {
            const args = tool.member.args.sent(tool.local, params.arguments, tool.item.inputSchema);
            const sent = {
              ...forwardedParams(params),
              name: tool.local,
              ...(args !== undefined ? { arguments: args } : {}),
            };
            return forward(client, 'tools/call', sent, context, params, owner);
          }),
        ),
      );
    },
    'prompts/get': (params, context, owner) => {
      const who = asker(context, owner);
      return findNamed(routing, 'prompts', String(params.name), who).pipe(
        switchMap((prompt) =>
          use(prompt, who, (client) =>
            forward(client, 'prompts/get', { ...forwardedParams(params), name: prompt.local }, context, params, owner),
          ),
        ),
      );
    },
    'resources/read': (params, context, owner) =>
      toResource(routing, String(params.uri), asker(context, owner), 'resource', (member, local, client) =>
        forward(client, 'resources/read', { ...forwardedParams(params), uri: local }, context, params, owner).pipe(
          map((result) => renameContents(result, (uri) => routing.names.uri(member.key, uri))),
        ),
      ),
    'resources/subscribe': (params, context, owner) => {
      const found = findResource(routing, String(params.uri));
      if (!found) return throwError(() => unknownTarget('resource', String(params.uri)));
      return found.member.links.subscribe(owner as DownstreamSession | undefined, context, found.local);
    },
    'resources/unsubscribe': (params, _context, owner) => {
      const found = findResource(routing, String(params.uri));
      found?.member.links.unsubscribe(owner as DownstreamSession | undefined, found.local);
      return {};
    },
    'completion/complete': (params, context, owner) => completeIn(routing, params, asker(context, owner), forward),
  };
}

/** `completion/complete` for a namespaced prompt or resource template. */
function completeIn(
  routing: Routing,
  params: Record<string, unknown>,
  who: Asker,
  forward: (
    client: McpClient,
    method: string,
    params: Record<string, unknown>,
    context: RequestContext,
  ) => Observable<HandlerResult>,
): Observable<HandlerResult> {
  const ref = (params.ref ?? {}) as Record<string, unknown>;
  const send = (client: McpClient, local: Record<string, unknown>) =>
    forward(client, 'completion/complete', { ...forwardedParams(params), ref: { ...ref, ...local } }, who.context!);
  if (ref.type === 'ref/prompt') {
    return findNamed(routing, 'prompts', String(ref.name), who).pipe(
      switchMap((prompt) =>
        prompt.member.links.use(who.owner, who.context, (link) => send(link.client, { name: prompt.local })),
      ),
    );
  }
  return toResource(routing, String(ref.uri), who, 'resource template', (_member, local, client) =>
    send(client, { uri: local }),
  );
}

/** A read result with each content's URI as downstream clients know it. */
function renameContents(result: HandlerResult, rename: (uri: string) => string): HandlerResult {
  const contents = result.contents;
  if (!Array.isArray(contents)) return result;
  return {
    ...result,
    contents: contents.map((content: unknown) =>
      typeof content === 'object' && content !== null && typeof (content as { uri?: unknown }).uri === 'string'
        ? { ...content, uri: rename((content as { uri: string }).uri) }
        : content,
    ),
  };
}
