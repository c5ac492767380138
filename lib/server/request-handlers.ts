/**
 * The request handlers of a server, the same functions for every definition, session and modern
 * request: each finds its definition's parts, and its session, through its owner. And the scopes a
 * request needs by what it uses.
 */
import type { Logger } from 'pino';
import type { HandlerOutput, HandlerResult, RequestContext, RequestHandler } from '../connection/dispatcher';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { AuthInfo } from '../transport/transport';
import type { ParamsOf } from '../schema/method-map';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import { completionContextOf, toCompleteResult } from './completion';
import type { Completer } from './completion';
import { requestFailure } from './handler-failures';
import { runHandler } from './handler-output';
import type { PromptRegistry } from './prompt-registry';
import type { ResourceRegistry } from './resource-registry';
import type { Session } from './session';
import type { ToolRegistry } from './tool-registry';
import { partsOf } from './handler-parts';
import type { HandlerOwner, HandlerParts } from './handler-parts';
import type { ServerContext } from './server-context';
import { listenTo } from './listen';
import { inSession } from './request-contexts';

/**
 * A server's handler of method `M`: its params typed by the method map, its owner a session or the
 * modern stand-in (`HandlerOwner`), or a session (`Session`) for a method only sessions have.
 */
type Handler<M extends string, O = HandlerOwner> = RequestHandler<M, O, HandlerResult>;

/** The session a request came in: none for a request of a modern revision (its owner is a stand-in). */
export function sessionOf(context: RequestContext, owner: unknown): Session | undefined {
  return inSession(context, owner) ? owner : undefined;
}

/** A page of one of a definition's lists: tools, prompts or resource templates. */
function listHandler(
  list: (parts: HandlerParts, cursor: string | undefined, revision: Revision) => HandlerResult,
): Handler<'tools/list' | 'prompts/list' | 'resources/templates/list'> {
  return (params, context, owner) => list(partsOf(owner), params.cursor, context.revision);
}

/**
 * A request whose work may ask its client for input (see {@link HandlerParts.withInput}), and that
 * uses a tool, resource or prompt: one that names scopes runs only for a caller whose verified token
 * holds them. The HTTP endpoints refuse such a request first (403 `insufficient_scope`); this holds
 * on every transport that carries a caller, however the server was connected to it.
 */
function inputHandler<M extends 'tools/call' | 'resources/read' | 'prompts/get'>(
  method: M,
  work: (parts: HandlerParts, params: ParamsOf<M>, context: ServerContext) => HandlerOutput<HandlerResult>,
): Handler<M> {
  return (params, context, owner) => {
    const parts = partsOf(owner);
    const caller = context.peer === undefined ? sessionOf(context, owner)?.auth : context.peer.auth;
    if (caller !== undefined) refuseMissingScopes(method, params, caller, parts);
    return parts.withInput(params, context, owner, (serverContext) => work(parts, params, serverContext));
  };
}

/** Throws -32003 (`insufficient_scope`) when `caller` lacks a scope that what `params` names needs. */
function refuseMissingScopes(method: string, params: unknown, caller: AuthInfo, parts: HandlerParts): void {
  const needed = requiredScopesOf(method, params, parts);
  if (needed.length === 0) return;
  const lacking = needed.filter((scope) => !caller.scopes.includes(scope));
  if (lacking.length === 0) return;
  throw new JsonRpcError(ErrorCode.Forbidden, `Forbidden: ${method} needs the scope ${lacking.join(' ')}`, {
    error: 'insufficient_scope',
    scope: [...new Set([...caller.scopes, ...needed])].join(' '),
  });
}

const listTools = listHandler((parts, cursor, revision) => parts.tools.list(cursor, parts.pageSize, revision));
const listPrompts = listHandler((parts, cursor, revision) => parts.prompts.list(cursor, parts.pageSize, revision));
const listTemplates = listHandler((parts, cursor, revision) =>
  parts.resources.listTemplates(cursor, parts.pageSize, revision),
);

const callTool = inputHandler('tools/call', (parts, params, context) => parts.tools.call(params, context));
const readResource = inputHandler('resources/read', (parts, params, context) =>
  parts.resources.read(params.uri, context),
);
const getPrompt = inputHandler('prompts/get', (parts, params, context) => parts.prompts.get(params, context));

// `resources/list` takes the request's context: the templates' `list` handlers it calls receive it.
const listResources: Handler<'resources/list'> = (params, context, owner) => {
  const parts = partsOf(owner);
  return parts.resources.listResources(params.cursor, parts.pageSize, parts.withSession(context, owner));
};

const listen: Handler<'subscriptions/listen'> = (params, context, owner) => listenTo(partsOf(owner), params, context);

const complete: Handler<'completion/complete'> = (params, context, owner) => {
  const { prompts, resources, failures } = partsOf(owner);
  const { ref, argument, context: given } = params;
  let completer: Completer | undefined;
  if (ref.type === 'ref/prompt') {
    completer = prompts.completer(ref.name, argument.name);
  } else {
    const template = resources.template(ref.uri);
    if (!template)
      throw JsonRpcError.invalidParams([{ path: 'ref.uri', message: `unknown resource template ${ref.uri}` }]);
    completer = template.complete?.[argument.name];
  }
  if (!completer) return { completion: { values: [] } };
  const completionContext = completionContextOf(context, sessionOf(context, owner), given?.arguments ?? {});
  const run = completer;
  return runHandler(
    () => run(argument.value, completionContext),
    toCompleteResult,
    (error) =>
      requestFailure(failures, `Completing argument ${argument.name}`, error, context, {
        ref,
        argument: argument.name,
      }),
  );
};

// These three exist only in the handshake revisions, whose requests come in a session.
const setLevel: Handler<'logging/setLevel', Session> = (params, _context, session) => {
  session.level = params.level;
  return afterChange(session);
};

/** `resources/subscribe`: a session's watches, bounded by `maxSubscriptions`. */
const subscribe: Handler<'resources/subscribe', Session> = (params, context, session) => {
  const { resources, maxSubscriptions, logger } = partsOf(session);
  const uri = params.uri;
  if (!resources.exists(uri)) {
    throw new JsonRpcError(featuresOf(context.revision).resourceNotFoundCode, `Resource not found: ${uri}`, { uri });
  }
  const watches = session.watches;
  if (watches && !watches.has(uri) && watches.size >= maxSubscriptions) {
    throw JsonRpcError.invalidRequest(
      `this session already has ${maxSubscriptions} resource subscriptions, the most it may hold`,
    );
  }
  watchResource(session, uri, resources, logger);
  return afterChange(session);
};

const unsubscribe: Handler<'resources/unsubscribe', Session> = (params, _context, session) => {
  const uri = params.uri;
  session.watches?.get(uri)?.unsubscribe();
  session.watches?.delete(uri);
  return afterChange(session);
};

/**
 * The handlers of every request method a server answers: the same functions for every definition,
 * each finding its definition's parts through its owner (see {@link HandlerOwner}). A new record
 * each time, which the definition may add to (extensions) and wrap (middleware).
 */
export function createRequestHandlers(): Record<string, RequestHandler> {
  // One literal, no spread: spreading into a record of slashed keys took a definition 12 µs.
  return {
    'resources/subscribe': subscribe,
    'resources/unsubscribe': unsubscribe,
    'tools/list': listTools,
    'tools/call': callTool,
    'resources/list': listResources,
    'resources/templates/list': listTemplates,
    'resources/read': readResource,
    'prompts/list': listPrompts,
    'prompts/get': getPrompt,
    'subscriptions/listen': listen,
    'completion/complete': complete,
    'logging/setLevel': setLevel,
  };
}

/** `{}` once the session's owner has recorded the change (a cluster persists it first); at once otherwise. */
function afterChange(session: Session): HandlerResult | Promise<HandlerResult> {
  const recorded = session.changed();
  return recorded ? recorded.then(() => ({})) : {};
}

/**
 * Starts a session's watch of `uri`: each update of the resource becomes
 * `notifications/resources/updated` to that session while it is operating.
 */
export function watchResource(session: Session, uri: string, resources: ResourceRegistry, logger: Logger): void {
  const watches = (session.watches ??= new Map());
  if (watches.has(uri)) return;
  const watching = resources.watch(uri).subscribe({
    next: () => {
      if (session.operating) session.connection.notify('notifications/resources/updated', { uri });
    },
    error: (error: unknown) => logger.error({ err: error, uri }, 'resource watch failed'),
  });
  watches.set(uri, watching);
}

/** The scopes a request needs: those of the tool it calls, the resource it reads or the prompt it gets. */
export function requiredScopesOf(
  method: string,
  params: unknown,
  registries: { readonly tools: ToolRegistry; readonly prompts: PromptRegistry; readonly resources: ResourceRegistry },
): readonly string[] {
  const named = (params ?? {}) as { name?: unknown; uri?: unknown };
  switch (method) {
    case 'tools/call':
      return typeof named.name === 'string' ? registries.tools.scopes(named.name) : [];
    case 'prompts/get':
      return typeof named.name === 'string' ? registries.prompts.scopes(named.name) : [];
    case 'resources/read':
    case 'resources/subscribe':
      return typeof named.uri === 'string' ? registries.resources.scopes(named.uri) : [];
    default:
      return [];
  }
}
