import type { DestinationStream } from 'pino';
import type { LogLevel } from '../connection/handler-events';
import { childLogger } from '../base/logger';
import type { Implementation, ServerCapabilities } from '../schema/lifecycle';
import type { ModernReceiver, Transport } from '../transport/transport';
import { createClientLogDestination } from './client-log-destination';
import type { PromptDefinition, RegisteredPrompt } from './prompt-registry';
import { MiddlewareStack } from './middleware';
import type { ServerMiddleware } from './middleware';
import { requiredScopesOf } from './request-handlers';
import type { RegisteredResource, ResourceDefinition, ResourceTemplateDefinition } from './resource-registry';
import { deriveCapabilities, mergeCapabilities } from './server-capabilities';
import { TASK_CAPABILITIES } from './tasks/task-capabilities';
import type { ServerSession } from './server-context';
import { ServerSessions } from './server-sessions';
import type { ConnectOptions } from './server-sessions';
import { createModernEndpoint } from './server-modern-endpoint';
import type { ModernEndpoint } from '../connection/modern-endpoint';
import type { DefinitionParts } from './definition-parts';
import { checkExtension, extensionRequestHandlers } from './extensions';
import type { ServerExtension } from './extensions';
import type { RegisteredTool, ToolDefinition } from './tool-registry';
import type { ServerOptions } from './server-options';
import { announceListChanges, createRegistries, failurePolicyOf, sessionConfig, sharedHandlers } from './server-parts';
import type { CapabilitySources } from './server-parts';

export { DEFAULT_MAX_SUBSCRIPTIONS } from './server-parts';

export type { ServerOptions } from './server-options';

/**
 * An MCP server definition: registries of tools, resources, templates and prompts shared by any
 * number of sessions. Each `connect` starts a session with its own lifecycle actor, log level and
 * resource subscriptions. Registering, disabling or removing an item sends the matching
 * `list_changed` notification to every initialized session that was told `listChanged`.
 */
export interface McpServer {
  /** Registers a tool; throws a `TypeError` if the name is taken or the schema is not an object schema. */
  tool<Args, Structured = unknown>(definition: ToolDefinition<Args, Structured>): RegisteredTool;
  /** Removes a tool; true if it existed. */
  removeTool(name: string): boolean;
  /** Registers a resource with a fixed URI; throws a `TypeError` if the URI is taken. */
  resource(definition: ResourceDefinition): RegisteredResource;
  /** Registers a resource template; throws a `TypeError` if the template is taken or malformed. */
  resourceTemplate(definition: ResourceTemplateDefinition): RegisteredResource;
  /** Registers a prompt; throws a `TypeError` if the name is taken. */
  prompt(definition: PromptDefinition): RegisteredPrompt;
  /** Sends `notifications/resources/updated` to exactly the sessions subscribed to `uri`. */
  resourceUpdated(uri: string): void;
  /** Sends a log message to every session whose level lets it through (needs the `logging` capability). */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** A pino destination that forwards log lines to every session as `notifications/message`. */
  logDestination(): DestinationStream;
  /** The capabilities a session started now would declare. */
  capabilities(): ServerCapabilities;
  /**
   * Serves one client over `transport`; any number of sessions may be open at once. With
   * `restore`, resumes a session another process persisted (see `ServerSession.persist`); with
   * `inspect`, inspects this session's lifecycle instead of with the server's `inspect`.
   */
  connect(transport: Transport, options?: ConnectOptions): ServerSession;
  /** The sessions currently open. */
  readonly sessions: ReadonlySet<ServerSession>;
  /**
   * Serves requests of the modern revisions (2026-07-28 on) one by one, with no connection and
   * no session: give it to the Streamable HTTP handler (`modern: server.modern` there).
   * Connections made with `connect` serve such requests themselves.
   */
  readonly modern: ModernReceiver;
  /**
   * The OAuth scopes a request needs by what it uses: the `scopes` of the tool it calls, the
   * resource it reads or subscribes to, or the prompt it gets. A protected Streamable HTTP endpoint
   * asks this of every request and answers 403 `insufficient_scope` when the token lacks one.
   */
  requiredScopes(method: string, params: unknown): readonly string[];
  /**
   * Closes every session and ends every `subscriptions/listen` stream (with its final result).
   * The definition stays usable: `connect` may be called again.
   */
  close(reason?: string): void;
  /** Adds a middleware inside those already there; open sessions use it from their next request. */
  use(middleware: ServerMiddleware): void;
  /**
   * Serves an extension: declares it in the capabilities of sessions started from now on (and of
   * every modern request), answers its methods and runs its middleware. Throws a `TypeError`
   * for a malformed or repeated identifier, or a method already answered.
   */
  extension(extension: ServerExtension): void;
}

/**
 * Creates a server definition.
 * @example
 * const server = createServer({ name: 'demo', version: '1.0.0', capabilities: { logging: {} } });
 * server.tool({ name: 'echo', description: 'Echoes text', inputSchema: z.object({ text: z.string() }),
 *   handler: ({ text }) => ({ content: [{ type: 'text', text }] }) });
 * server.connect(createStdioServerTransport());
 */
export function createServer(options: ServerOptions): McpServer {
  return new ServerDefinition(options);
}

/** What `createServer` makes: a class, so that a definition per client costs a few small objects. */
class ServerDefinition implements McpServer {
  /** What the capabilities are derived from: the registries among them. */
  private readonly sources: CapabilitySources;
  private readonly parts: DefinitionParts;
  private readonly stack: MiddlewareStack;
  private readonly open: ServerSessions;
  /** Serves requests of the modern revisions; made on first use. */
  private modernEndpoint: ModernEndpoint | undefined = undefined;

  constructor(options: ServerOptions) {
    const logger = childLogger(options.logger, { component: 'server', server: options.name });
    const failures = failurePolicyOf(options, logger);
    const registries = createRegistries(options, logger, failures);
    const info: Implementation = { name: options.name, version: options.version };
    if (options.title !== undefined) info.title = options.title;
    const sources = (this.sources = {
      tools: registries.tools,
      resources: registries.resources,
      prompts: registries.prompts,
      completers: 0,
      logging: options.logging ?? true,
      given: options.tasks ? mergeCapabilities({ ...TASK_CAPABILITIES }, options.capabilities) : options.capabilities,
      extensions: undefined,
      derived: undefined,
      derivedFrom: 0,
    });
    const shared = sharedHandlers(options, sources, logger, failures);
    this.parts = shared.parts;
    this.stack = new MiddlewareStack(shared.handlers, options.middleware);
    this.open = new ServerSessions(
      sessionConfig(options, { info, handlers: this.stack.handlers, handlerParts: shared.parts, logger }),
    );
    announceListChanges(sources, this.open);
    for (const extension of options.extensions ?? []) this.extension(extension);
  }

  get sessions(): ReadonlySet<ServerSession> {
    return this.open.all;
  }

  get modern(): ModernReceiver {
    return (this.modernEndpoint ??= createModernEndpoint(this.open.shared));
  }

  tool<Args, Structured = unknown>(definition: ToolDefinition<Args, Structured>): RegisteredTool {
    return this.sources.tools.add(definition);
  }

  removeTool(name: string): boolean {
    return this.sources.tools.remove(name);
  }

  resource(definition: ResourceDefinition): RegisteredResource {
    return this.sources.resources.addResource(definition);
  }

  resourceTemplate(definition: ResourceTemplateDefinition): RegisteredResource {
    const registration = this.sources.resources.addTemplate(definition);
    if (Object.keys(definition.complete ?? {}).length > 0) this.sources.completers++;
    return registration;
  }

  prompt(definition: PromptDefinition): RegisteredPrompt {
    const registration = this.sources.prompts.add(definition);
    if ((definition.arguments ?? []).some((argument) => argument.complete !== undefined)) this.sources.completers++;
    return registration;
  }

  resourceUpdated(uri: string): void {
    this.parts.resourceUpdated(uri);
    this.open.resourceUpdated(uri);
  }

  log(level: LogLevel, data: unknown, loggerName?: string): void {
    this.open.log(level, data, loggerName);
  }

  logDestination(): DestinationStream {
    return createClientLogDestination((level, data, loggerName) => this.open.log(level, data, loggerName));
  }

  capabilities(): ServerCapabilities {
    return deriveCapabilities(this.sources);
  }

  connect(transport: Transport, connectOptions?: ConnectOptions): ServerSession {
    return this.open.open(transport, connectOptions);
  }

  requiredScopes(method: string, params: unknown): readonly string[] {
    return requiredScopesOf(method, params, this.sources);
  }

  close(reason = 'server closed'): void {
    this.parts.close();
    this.open.closeAll(reason);
    this.modernEndpoint?.close(reason);
    this.modernEndpoint = undefined;
  }

  use(middleware: ServerMiddleware): void {
    this.stack.use(middleware);
  }

  extension(extension: ServerExtension): void {
    const { stack, sources } = this;
    const handlers = extensionRequestHandlers(extension);
    checkExtension(extension, sources.extensions ?? {}, { has: (method: string) => stack.has(method) });
    stack.add(handlers);
    if (extension.middleware !== undefined) stack.use(extension.middleware);
    (sources.extensions ??= {})[extension.id] = { ...extension.settings };
    sources.derived = undefined;
    const { listChanged } = extension;
    if (listChanged) (this.parts.extensionLists ??= []).push(listChanged.attach(extension.id, this.open.all));
  }
}
