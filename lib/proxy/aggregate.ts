import type { Logger } from 'pino';
import { catchError, firstValueFrom, map, of, throwError } from '../rx/rxjs';
import type { Observable, Subscription } from '../rx/rxjs';
import { hasCapability } from '../connection/capabilities';
import type { HandlerResult, RequestContext, RequestHandler } from '../connection/dispatcher';
import { JsonRpcError } from '../jsonrpc/errors';
import { childLogger } from '../jsonrpc/logger';
import type { LoggerOption } from '../jsonrpc/logger';
import type { McpClient } from '../client/client-api';
import { forwardedParams, forwardRequest } from './forward';
import { Front, setLevelHandler } from './front';
import type { DownstreamSession, McpProxy } from './front';
import { Namespaces } from './namespaces';
import type { Resolved } from './namespaces';
import { downstreamCapabilities, watchUpstream } from './proxy';
import type { ProxyRouter } from './proxy-router';
import { SubscriptionRelay } from './subscription-relay';

/** Options of {@link aggregate}. */
export interface AggregateOptions {
  /** The aggregate's name downstream (`serverInfo.name`). Default `rxmcp-aggregate`. */
  readonly name?: string;
  readonly version?: string;
  readonly instructions?: string;
  /** Between an upstream's name and a tool's or prompt's: `files_read`. Default `_`. */
  readonly separator?: string;
  /** How long a forwarded request may wait without an answer or progress. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Carries every upstream's sampling and elicitation to the downstream caller (see `createProxyRouter`). */
  readonly router?: ProxyRouter;
  readonly logger?: LoggerOption;
}

/** One upstream as the aggregate holds it. */
interface Member {
  readonly namespace: string;
  readonly client: McpClient;
  readonly relay: SubscriptionRelay;
}

/**
 * Many upstream servers behind one: `aggregate({ files: filesClient, search: searchClient })`.
 * Tools and prompts are listed as `<upstream><separator><name>` and resource URIs and templates as
 * `<upstream>+<uri>`; each request goes to its upstream under the name or URI that upstream knows,
 * with progress, cancellation, errors and `_meta` passed as by {@link proxy}. Lists are merged (one
 * page); an upstream that fails or whose connection closed is left out of them while the others
 * keep serving. Each upstream's list changes, resource updates and log messages reach downstream
 * clients, renamed to match.
 */
export function aggregate(upstreams: Readonly<Record<string, McpClient>>, options: AggregateOptions = {}): McpProxy {
  const logger = childLogger(options.logger, { component: 'aggregate' });
  const names = new Namespaces(Object.keys(upstreams), options.separator ?? '_');
  const members = new Map<string, Member>();
  for (const [namespace, client] of Object.entries(upstreams)) {
    const relay = new SubscriptionRelay(client, logger, (uri) => names.uri(namespace, uri));
    members.set(namespace, { namespace, client, relay });
  }
  const watching: Subscription[] = [];
  const front: Front = new Front({
    info: { name: options.name ?? 'rxmcp-aggregate', version: options.version ?? '0.0.0' },
    instructions: options.instructions,
    capabilities: () => unionCapabilities(members),
    handlers: aggregateHandlers(members, names, options),
    logger,
    onSessionClosed: (session) => members.forEach((member) => member.relay.dropAll(session)),
    onClose: () => {
      for (const subscription of watching) subscription.unsubscribe();
      members.forEach((member) => member.relay.close());
    },
  });
  for (const member of members.values()) {
    // An upstream that went away leaves the lists: downstream clients are told to fetch them again.
    watching.push(
      member.client.closed$.subscribe(() => {
        logger.warn({ upstream: member.namespace }, 'upstream closed; its entries leave the lists');
        for (const list of ['tools', 'prompts', 'resources']) front.broadcast(`notifications/${list}/list_changed`);
      }),
    );
    watching.push(
      watchUpstream(member.client, front, (message) =>
        typeof message.logger === 'string'
          ? { ...message, logger: names.name(member.namespace, message.logger) }
          : { ...message, logger: member.namespace },
      ),
    );
  }
  return front;
}

/** What the aggregate declares: every capability that some upstream declared. */
function unionCapabilities(members: ReadonlyMap<string, Member>): Record<string, unknown> {
  const declared: Record<string, unknown> = {};
  for (const member of members.values()) {
    if (member.client.state === 'shutdown') continue;
    const own = member.client.serverCapabilities as Record<string, unknown>;
    for (const key of ['tools', 'resources', 'prompts', 'completions']) if (hasCapability(own, key)) declared[key] = {};
    if (hasCapability(own, 'resources.subscribe')) declared.resources = { subscribe: true };
  }
  return downstreamCapabilities(declared);
}

/** The members that are still connected and declared `capability`. */
function serving(members: ReadonlyMap<string, Member>, capability: string): Member[] {
  return [...members.values()].filter(
    (member) =>
      member.client.state !== 'shutdown' &&
      hasCapability(member.client.serverCapabilities as Record<string, unknown>, capability),
  );
}

/**
 * A merged list: every serving member's items, renamed; a member whose listing fails is left out
 * (and logged), so one failing upstream never empties the others' lists.
 */
async function mergedList(
  members: ReadonlyMap<string, Member>,
  capability: string,
  list: (member: Member) => Observable<ReadonlyArray<Record<string, unknown>>>,
  rename: (member: Member, item: Record<string, unknown>) => Record<string, unknown>,
  logger: Logger,
): Promise<Array<Record<string, unknown>>> {
  const lists = await Promise.all(
    serving(members, capability).map((member) =>
      firstValueFrom(
        list(member).pipe(
          map((items) => items.map((item) => rename(member, item))),
          catchError((error: unknown) => {
            logger.warn({ upstream: member.namespace, err: error }, 'upstream left out of a merged list');
            return of([]);
          }),
        ),
      ),
    ),
  );
  return lists.flat();
}

function unknownTarget(kind: string, value: string): JsonRpcError {
  return JsonRpcError.invalidParams(`no upstream serves the ${kind} "${value}"`);
}

/** Sends a request to the member a name or URI resolved to, or fails with -32602 naming what was not found. */
function toMember(
  members: ReadonlyMap<string, Member>,
  resolved: Resolved | undefined,
  what: readonly [kind: string, value: string],
  send: (member: Member, local: string) => Observable<HandlerResult>,
): Observable<HandlerResult> {
  const member = resolved && members.get(resolved.namespace);
  if (!member || member.client.state === 'shutdown') return throwError(() => unknownTarget(...what));
  return send(member, resolved.local);
}

/** The aggregate's request handlers: merged lists, and each request routed to its upstream. */
function aggregateHandlers(
  members: ReadonlyMap<string, Member>,
  names: Namespaces,
  options: AggregateOptions,
): Record<string, RequestHandler> {
  const logger = childLogger(options.logger, { component: 'aggregate' });
  const forward = (member: Member, method: string, params: Record<string, unknown>, context: RequestContext) =>
    forwardRequest(member.client, method, params, context, options.requestTimeoutMs, options.router);
  const named = (member: Member, item: Record<string, unknown>) => ({
    ...item,
    name: names.name(member.namespace, String(item.name)),
  });
  const located = (key: 'uri' | 'uriTemplate') => (member: Member, item: Record<string, unknown>) => ({
    ...item,
    [key]: names.uri(member.namespace, String(item[key])),
  });
  return {
    'logging/setLevel': setLevelHandler,
    'tools/list': async () => ({
      tools: await mergedList(members, 'tools', (m) => m.client.tools$, named, logger),
    }),
    'prompts/list': async () => ({
      prompts: await mergedList(members, 'prompts', (m) => m.client.prompts$, named, logger),
    }),
    'resources/list': async () => ({
      resources: await mergedList(members, 'resources', (m) => m.client.listResources(), located('uri'), logger),
    }),
    'resources/templates/list': async () => ({
      resourceTemplates: await mergedList(
        members,
        'resources',
        (m) => m.client.listResourceTemplates(),
        located('uriTemplate'),
        logger,
      ),
    }),
    'tools/call': (params, context) =>
      toMember(members, names.resolveName(String(params.name)), ['tool', String(params.name)], (member, local) =>
        forward(member, 'tools/call', { ...forwardedParams(params), name: local }, context),
      ),
    'prompts/get': (params, context) =>
      toMember(members, names.resolveName(String(params.name)), ['prompt', String(params.name)], (member, local) =>
        forward(member, 'prompts/get', { ...forwardedParams(params), name: local }, context),
      ),
    'resources/read': (params, context) =>
      toMember(members, names.resolveUri(String(params.uri)), ['resource', String(params.uri)], (member, local) =>
        forward(member, 'resources/read', { ...forwardedParams(params), uri: local }, context).pipe(
          map((result) => renameContents(result, (uri) => names.uri(member.namespace, uri))),
        ),
      ),
    'resources/subscribe': (params, _context, owner) =>
      toMember(members, names.resolveUri(String(params.uri)), ['resource', String(params.uri)], (member, local) =>
        member.relay.add(owner as DownstreamSession, local),
      ),
    'resources/unsubscribe': (params, _context, owner) => {
      const resolved = names.resolveUri(String(params.uri));
      if (resolved) members.get(resolved.namespace)?.relay.remove(owner, resolved.local);
      return {};
    },
    'completion/complete': (params, context) =>
      completeIn(members, names, params, (member, renamed) => forward(member, 'completion/complete', renamed, context)),
  };
}

/** `completion/complete` for a namespaced prompt or resource template. */
function completeIn(
  members: ReadonlyMap<string, Member>,
  names: Namespaces,
  params: Record<string, unknown>,
  send: (member: Member, params: Record<string, unknown>) => Observable<HandlerResult>,
): Observable<HandlerResult> {
  const ref = (params.ref ?? {}) as Record<string, unknown>;
  const byName = ref.type === 'ref/prompt';
  const value = String(byName ? ref.name : ref.uri);
  const resolved = byName ? names.resolveName(value) : names.resolveUri(value);
  return toMember(members, resolved, [byName ? 'prompt' : 'resource template', value], (member, local) =>
    send(member, { ...forwardedParams(params), ref: { ...ref, [byName ? 'name' : 'uri']: local } }),
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
