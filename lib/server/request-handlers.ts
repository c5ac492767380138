/**
 * The request handlers of a server, shared by every session and by the stateless endpoint: each
 * finds its session as the connection's owner. And the scopes a request needs by what it uses.
 */
import type { Logger } from 'pino';
import type { HandlerOutput, HandlerResult, RequestContext, RequestHandler } from '../connection/dispatcher';
import type { LogLevel } from '../connection/handler-events';
import { JsonRpcError } from '../jsonrpc/errors';
import type { CompleteRequestParams } from '../schema/completion';
import type { GetPromptRequestParams } from '../schema/prompts';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import type { CallToolRequestParams } from '../schema/tools';
import { completionContextOf, toCompleteResult } from './completion';
import type { Completer } from './completion';
import { requestFailure } from './handler-failures';
import type { FailurePolicy } from './handler-failures';
import { runHandler } from './handler-output';
import type { PromptRegistry } from './prompt-registry';
import type { ResourceRegistry } from './resource-registry';
import type { ServerContext } from './server-context';
import type { Session } from './session';
import type { ToolRegistry } from './tool-registry';

/** What the handlers work with. */
export interface HandlerParts {
  readonly tools: ToolRegistry;
  readonly resources: ResourceRegistry;
  readonly prompts: PromptRegistry;
  readonly pageSize: number;
  readonly maxSubscriptions: number;
  readonly logger: Logger;
  /** How a completion handler's unexpected failure is answered and logged. */
  readonly failures: FailurePolicy;
  /** The context of a request that asks its client for nothing. */
  withSession(context: RequestContext, session: unknown): ServerContext;
  /** Runs work that may ask its client for input (requests in a session, input rounds when stateless). */
  withInput(
    params: Record<string, unknown>,
    context: RequestContext,
    session: unknown,
    work: (context: ServerContext) => unknown,
  ): HandlerOutput<HandlerResult>;
  /** Serves `subscriptions/listen`. */
  listen(params: Record<string, unknown>, context: RequestContext): HandlerOutput<HandlerResult>;
}

const revisionOf = (context: RequestContext) => context.revision as Revision;
const cursorOf = (params: Record<string, unknown>) => params.cursor as string | undefined;

/** The handlers of every request method a server answers. */
export function createRequestHandlers(parts: HandlerParts): Readonly<Record<string, RequestHandler>> {
  const { tools, resources, prompts, pageSize, withSession, withInput, listen } = parts;
  const { subscribe, unsubscribe } = subscriptionHandlers(parts);
  // One literal, no spread: spreading into a record of slashed keys took a definition 12 µs.
  return {
    'resources/subscribe': subscribe,
    'resources/unsubscribe': unsubscribe,
    'tools/list': (params, context) => tools.list(cursorOf(params), pageSize, revisionOf(context)),
    'tools/call': (params, context, session) =>
      withInput(params, context, session, (serverContext) =>
        tools.call(params as CallToolRequestParams, serverContext),
      ),
    'resources/list': (params, context, session) =>
      resources.listResources(cursorOf(params), pageSize, withSession(context, session)),
    'resources/templates/list': (params, context) =>
      resources.listTemplates(cursorOf(params), pageSize, revisionOf(context)),
    'resources/read': (params, context, session) =>
      withInput(params, context, session, (serverContext) => resources.read(params.uri as string, serverContext)),
    'prompts/list': (params, context) => prompts.list(cursorOf(params), pageSize, revisionOf(context)),
    'prompts/get': (params, context, session) =>
      withInput(params, context, session, (serverContext) =>
        prompts.get(params as GetPromptRequestParams, serverContext),
      ),
    'subscriptions/listen': (params, context) => listen(params, context),
    'completion/complete': (params, context, session) => {
      const { ref, argument, context: given } = params as CompleteRequestParams;
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
      const completionContext = completionContextOf(context, session as Session | undefined, given?.arguments ?? {});
      const complete = completer;
      return runHandler(
        () => complete(argument.value, completionContext),
        toCompleteResult,
        (error) =>
          requestFailure(parts.failures, `Completing argument ${argument.name}`, error, context, {
            ref,
            argument: argument.name,
          }),
      );
    },
    'logging/setLevel': (params, _context, session) => {
      (session as Session).level = params.level as LogLevel;
      return afterChange(session as Session);
    },
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

/** `resources/subscribe` and `resources/unsubscribe`: a session's watches, bounded by `maxSubscriptions`. */
function subscriptionHandlers(parts: HandlerParts): {
  readonly subscribe: RequestHandler;
  readonly unsubscribe: RequestHandler;
} {
  const { resources, maxSubscriptions, logger } = parts;
  return {
    subscribe: (params, context, owner) => {
      const session = owner as Session;
      const uri = params.uri as string;
      if (!resources.exists(uri)) {
        throw new JsonRpcError(featuresOf(revisionOf(context)).resourceNotFoundCode, `Resource not found: ${uri}`, {
          uri,
        });
      }
      const watches = session.watches;
      if (watches && !watches.has(uri) && watches.size >= maxSubscriptions) {
        throw JsonRpcError.invalidRequest(
          `this session already has ${maxSubscriptions} resource subscriptions, the most it may hold`,
        );
      }
      watchResource(session, uri, resources, logger);
      return afterChange(session);
    },
    unsubscribe: (params, _context, owner) => {
      const session = owner as Session;
      const uri = params.uri as string;
      session.watches?.get(uri)?.unsubscribe();
      session.watches?.delete(uri);
      return afterChange(session);
    },
  };
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
