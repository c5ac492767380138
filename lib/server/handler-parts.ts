/**
 * What a server definition's request handlers work with, and how they find it: the handlers are the
 * same functions for every definition (see request-handlers.ts).
 */
import type { Logger } from 'pino';
import type { HandlerOutput, HandlerResult, RequestContext } from '../connection/dispatcher';
import type { FailurePolicy } from './handler-failures';
import type { ListenedList } from './extension-lists';
import type { ListenSources } from './listen';
import type { PromptRegistry } from './prompt-registry';
import type { ResourceRegistry } from './resource-registry';
import type { ServerContext } from './server-context';
import type { ToolRegistry } from './tool-registry';

/**
 * What the handlers work with: one per server definition. It is what `subscriptions/listen`
 * follows too, so that the definition holds no object for that alone.
 */
export interface HandlerParts extends ListenSources {
  readonly tools: ToolRegistry;
  readonly resources: ResourceRegistry;
  readonly prompts: PromptRegistry;
  readonly pageSize: number;
  readonly maxSubscriptions: number;
  readonly logger: Logger;
  /** How a completion handler's unexpected failure is answered and logged. */
  readonly failures: FailurePolicy;
  /** Made when the first extension with a changing list is served. */
  extensionLists: ListenedList[] | undefined;
  /** The context of a request that asks its client for nothing. */
  withSession(context: RequestContext, session: unknown): ServerContext;
  /** Runs work that may ask its client for input (requests in a session, input rounds when modern). */
  withInput(
    params: Record<string, unknown>,
    context: RequestContext,
    session: unknown,
    work: (context: ServerContext) => HandlerOutput<HandlerResult>,
  ): HandlerOutput<HandlerResult>;
}

/**
 * What the handlers are given as their `owner`: a session of a handshake revision, or the stand-in
 * a server's modern endpoint passes for requests of the modern revisions. Either names the
 * parts of the definition it belongs to, so that one set of handler functions serves every
 * definition (a definition built per client holds no handler closures).
 */
export interface HandlerOwner {
  readonly handlerParts: HandlerParts;
}

/** The parts of the definition a handler was called for. */
export const partsOf = (owner: HandlerOwner): HandlerParts => owner.handlerParts;

/** Whether `owner` names the parts of a definition (a session, or a modern endpoint's stand-in). */
export function isHandlerOwner(owner: unknown): owner is HandlerOwner {
  return typeof owner === 'object' && owner !== null && 'handlerParts' in owner;
}
