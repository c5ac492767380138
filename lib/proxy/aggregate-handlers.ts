/** The request handlers of an aggregate: each finds the upstream that serves what a request names. */
import { isRecord } from '../base/objects';
import type { Logger } from 'pino';
import { EMPTY, map, of, switchMap, throwError } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { HandlerResult, RequestContext, RequestHandler } from '../connection/dispatcher';
import { JsonRpcError } from '../jsonrpc/errors';
import type { McpClient } from '../client/client-api';
import { catalog, listsOf, mayName } from './aggregate-catalog';
import type { Asker, Item, Listed, Member, Naming } from './aggregate-catalog';
import type { Collision } from './collisions';
import { forwardedParams, forwardRequest } from './forward';
import { setLevelHandler } from './front';
import type { DownstreamSession, FrontHandler } from './front';
import type { Namespaces } from './namespaces';
import { SharedLinks } from './upstream-links';

import type { AggregateOptions } from './aggregate-options';

function unknownTarget(kind: string, value: string): JsonRpcError {
  return JsonRpcError.invalidParams(`no upstream serves the ${kind} "${value}"`);
}

/** What the handlers share; `names` changes when the aggregate is reconfigured. */
export interface Routing {
  readonly members: readonly Member[];
  names: Namespaces;
  readonly options: AggregateOptions;
  readonly logger: Logger;
  /** Each member as it leaves (a reconfiguration dropped or replaced it). */
  readonly left: Observable<Member>;
}

const asker = (context: RequestContext | undefined, owner: DownstreamSession | undefined): Asker => ({
  owner,
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
export function updatesOf(routing: Routing, uri: string): Observable<void> {
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
export function aggregateHandlers(routing: Routing): Record<string, FrontHandler> {
  const { members, options, logger } = routing;
  // `original` and `owner`: the caller's own params (a modern retry's answers) and session (its log level).
  const forward = (
    client: McpClient,
    method: string,
    params: Record<string, unknown>,
    context: RequestContext,
    original?: Record<string, unknown>,
    owner?: DownstreamSession,
  ) => forwardRequest(client, method, params, context, options.requestTimeoutMs, options.router, original, owner);
  const use = (listed: Listed, who: Asker, send: (client: McpClient) => Observable<HandlerResult>) =>
    listed.member.links.use(who.owner, who.context, (link) => send(link.client));
  const named = (kind: 'tools' | 'prompts', context: RequestContext, owner: DownstreamSession | undefined) =>
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
    'resources/subscribe': subscribeHandler(routing),
    'resources/unsubscribe': unsubscribeHandler(routing),
    'completion/complete': (params, context, owner) => completeIn(routing, params, asker(context, owner), forward),
  };
}

/** What a `completion/complete` completes for: its `ref`, an object naming a prompt or a resource template. */
function refOf(params: Record<string, unknown>): Record<string, unknown> {
  const ref = params.ref;
  return isRecord(ref) ? ref : {};
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
  const ref = refOf(params);
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

/** `resources/subscribe`, to the upstream that serves the URI, for the downstream session asking. */
function subscribeHandler(routing: Routing): RequestHandler<'resources/subscribe', DownstreamSession | undefined> {
  return (params, context, owner) => {
    const found = findResource(routing, params.uri);
    if (!found) return throwError(() => unknownTarget('resource', params.uri));
    return found.member.links.subscribe(owner, context, found.local);
  };
}

/** `resources/unsubscribe`, the same way. */
function unsubscribeHandler(routing: Routing): RequestHandler<'resources/unsubscribe', DownstreamSession | undefined> {
  return (params, _context, owner) => {
    const found = findResource(routing, params.uri);
    found?.member.links.unsubscribe(owner, found.local);
    return {};
  };
}
