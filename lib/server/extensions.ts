/**
 * Extensions on the server (spec 2026-07-28: Versioning → Extension Negotiation): what a server
 * declares, the methods an extension adds, and what a handler asks of its client's declarations.
 * A server declares its extensions under `capabilities.extensions` (2026-07-28) or, to a client of
 * a handshake revision, under `capabilities.experimental` (see `placeExtensions`). Whatever an
 * extension adds to core results (fields, listed items) goes only to a client that declared the
 * extension: its middleware takes it out for the others.
 */
import type { HandlerOutput, HandlerResult, RequestContext, RequestHandler } from '../connection/dispatcher';
import { declaredExtensions, isExtensionId } from '../schema/extensions';
import type { ExtensionMap, ExtensionSettings } from '../schema/extensions';
import type { ExtensionListChanges } from './extension-lists';
import type { ServerMiddleware } from './middleware';
import { contextOf } from './request-contexts';
import type { ServerContext } from './server-context';

/** A request handler of a method an extension adds; its params are as the client sent them (check them). */
export type ExtensionHandler = (
  params: Record<string, unknown>,
  context: ServerContext,
) => HandlerOutput<HandlerResult>;

/**
 * One extension as a server serves it: its identifier and settings, declared in the server's
 * capabilities; the methods it adds; and a middleware for what it changes of core requests.
 */
export interface ServerExtension {
  /** The extension identifier, with its mandatory prefix: `io.modelcontextprotocol/ui`. */
  readonly id: string;
  /** The settings object declared for it. Default `{}` (supported, no settings). */
  readonly settings?: ExtensionSettings;
  /**
   * The request methods the extension adds (`skills/list`), answered in sessions and in the modern way
   * alike. The server's middleware runs around them as around the core ones.
   */
  readonly handlers?: Readonly<Record<string, ExtensionHandler>>;
  /**
   * Runs around every request, inside the server's own middleware: typically it takes out of
   * core results what the extension added, for clients that did not declare it.
   */
  readonly middleware?: ServerMiddleware;
  /**
   * A list the extension serves that changes at runtime (its `events/list`): each
   * `changed()` is told to every client that declared the extension (see `ExtensionListChanges`).
   */
  readonly listChanged?: ExtensionListChanges;
}

export { ExtensionListChanges, type ListedSession, type ListenedList } from './extension-lists';

/** The extensions a client declared, as the request's context says (its session, or the request's `_meta`). */
export function clientExtensions(context: Pick<ServerContext, 'clientCapabilities'>): ExtensionMap {
  return declaredExtensions(context.clientCapabilities);
}

/** The settings the client of this request declared for extension `id`, or undefined when it did not. */
export function clientExtension(
  context: Pick<ServerContext, 'clientCapabilities'>,
  id: string,
): ExtensionSettings | undefined {
  return clientExtensions(context)[id];
}

/** Whether the client of this request declared extension `id`. */
export function clientSupportsExtension(context: Pick<ServerContext, 'clientCapabilities'>, id: string): boolean {
  return clientExtension(context, id) !== undefined;
}

/** The request handlers an extension adds, as the server's shared handlers: each gets the `ServerContext`. */
export function extensionRequestHandlers(extension: ServerExtension): Readonly<Record<string, RequestHandler>> {
  const handlers: Record<string, RequestHandler> = {};
  for (const [method, handler] of Object.entries(extension.handlers ?? {})) {
    handlers[method] = (params: Record<string, unknown>, context: RequestContext, owner: unknown) =>
      handler(params, contextOf(context, owner));
  }
  return handlers;
}

/**
 * Checks an extension before it is added to a server that already has `declared` extensions and
 * the request methods `methods`: a `TypeError` for a malformed identifier, one declared twice, or
 * a method that is already answered.
 */
export function checkExtension(
  extension: ServerExtension,
  declared: ExtensionMap,
  methods: { has(method: string): boolean },
): void {
  if (typeof extension.id !== 'string' || !isExtensionId(extension.id)) {
    throw new TypeError(
      `extension identifier ${JSON.stringify(extension.id)} must be a prefixed name such as io.modelcontextprotocol/ui`,
    );
  }
  if (Object.hasOwn(declared, extension.id)) throw new TypeError(`extension ${extension.id} is already declared`);
  for (const method of Object.keys(extension.handlers ?? {})) {
    if (methods.has(method)) throw new TypeError(`method ${method} of extension ${extension.id} is already answered`);
  }
}
