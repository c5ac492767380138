import type { DestinationStream, Logger } from 'pino';
import { Subject } from '../rx/rxjs';
import type { SchedulerLike } from '../rx/rxjs';
import type { LogLevel } from '../connection/handler-events';
import type { RequestHandler } from '../connection/dispatcher';
import { DEFAULT_CACHE_HINTS } from '../connection/stateless';
import type { CacheHint } from '../connection/stateless';
import { childLogger, stderrWarnLogger } from '../jsonrpc/logger';
import type { LoggerOption } from '../jsonrpc/logger';
import { compileJsonSchema } from '../schema/json-schema-validator';
import type { JsonSchemaValidatorFactory } from '../schema/json-schema-validator';
import type { Implementation, ServerCapabilities } from '../schema/lifecycle';
import type { StatelessReceiver, Transport } from '../transport/transport';
import { createClientLogDestination } from './client-log-destination';
import type { FailurePolicy } from './handler-failures';
import { createListenHandler } from './listen';
import { createPromptRegistry } from './prompt-registry';
import type { PromptDefinition, RegisteredPrompt } from './prompt-registry';
import { DEFAULT_PAGE_SIZE } from './registry';
import { MiddlewareStack } from './middleware';
import type { ServerMiddleware } from './middleware';
import { contextOf, inputRunner } from './request-contexts';
import { createRequestHandlers, requiredScopesOf, watchResource } from './request-handlers';
import { RequestStateSealer } from './request-state';
import type { RequestStateOptions } from './request-state';
import { createResourceRegistry } from './resource-registry';
import type { RegisteredResource, ResourceDefinition, ResourceTemplateDefinition } from './resource-registry';
import { deriveCapabilities, mergeCapabilities } from './server-capabilities';
import { handlersWithTasks, TASK_CAPABILITIES } from './tasks/tasks-options';
import type { TasksOptions } from './tasks/tasks-options';
import type { ServerSession } from './server-context';
import { ServerSessions } from './server-sessions';
import type { Session } from './session';
import type { ConnectOptions, SessionConfig } from './server-sessions';
import { LazyStatelessEndpoint } from './lazy-stateless-endpoint';
import { createToolRegistry } from './tool-registry';
import { checkExtension, extensionRequestHandlers } from './extensions';
import type { ServerExtension } from './extensions';
import type { RegisteredTool, ToolDefinition } from './tool-registry';

/** Options of `createServer`. */
export interface ServerOptions {
  /** The server's name, sent as `serverInfo.name`. */
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  /** Instructions for the client's model, sent in the initialize result. */
  readonly instructions?: string;
  /**
   * Capabilities to declare besides those derived from what is registered (`tools`, `resources`
   * with `subscribe`, `prompts`, each with `listChanged`, and `completions` when a completer
   * exists, and `logging` unless `logging: false`). An object given for a derived capability is
   * merged into it (`{ tools: { listChanged: false } }` stops the notifications).
   */
  readonly capabilities?: ServerCapabilities;
  /**
   * Declare `logging`: clients may set a level and handlers' log messages reach them. Default true;
   * with false, log messages are dropped (with a warning in the server's log).
   */
  readonly logging?: boolean;
  /**
   * Revisions the server accepts, oldest first. Default: all that rxmcp supports. The handshake
   * revisions (through 2025-11-25) are negotiated by `initialize` and held in a session; requests of
   * the stateless ones (2026-07-28) are served one by one, with no session. Leave out one family
   * to serve only the other.
   */
  readonly supportedRevisions?: readonly string[];
  /**
   * Caching hints (`ttlMs`, `cacheScope`) put on cacheable results of stateless revisions, by
   * method, over the defaults (a minute, public, for discovery and lists; stale and private for
   * `resources/read`). A resource may set its own (`cache`).
   */
  readonly cacheHints?: Readonly<Record<string, CacheHint>>;
  /**
   * How the `requestState` of multi round-trip requests (2026-07-28: a handler asking its client
   * for input) is authenticated and bounded. Give `keys` when several processes serve the same
   * clients, so a retry can land on any of them.
   */
  readonly requestState?: RequestStateOptions;
  /**
   * The most resources one session may subscribe to, and one `subscriptions/listen` stream may
   * name; past it, `resources/subscribe` answers -32600 and a listen stream acknowledges only the
   * first ones. Bounds what one client can make the server hold (#13). Default 1000.
   */
  readonly maxSubscriptionsPerSession?: number;
  /** Items per page of every list method. Default 100. */
  readonly pageSize?: number;
  /** The log level of a session until its client sends `logging/setLevel`. Default `debug` (everything). */
  readonly defaultLogLevel?: LogLevel;
  /** Compiles the raw JSON Schemas tools are registered with. Default: a small built-in validator (see `compileJsonSchema`). */
  readonly jsonSchemaValidator?: JsonSchemaValidatorFactory;
  /** Check results against the negotiated revision's schema before sending them. Default true. */
  readonly validateResults?: boolean;
  /** Default timeout of requests the server sends to clients (sampling, elicitation, roots). */
  readonly requestTimeoutMs?: number;
  /** How long a session waits for initialize before it closes. Default 60 s. */
  readonly initializeTimeoutMs?: number;
  /**
   * Server-side logs (not the MCP log messages sent to clients): a pino logger or a console-like
   * one (`console`, or any object with `error`, `warn` and `info`). Without one the server is
   * silent, except that handler failures (a tool, resource, prompt or completion handler that
   * throws something other than a `ToolError` or `JsonRpcError`) are still logged at warn, to
   * stderr (never stdout, which the stdio transport keeps for protocol messages).
   */
  readonly logger?: LoggerOption;
  /**
   * Hide the messages of errors handlers throw from clients, as production servers may want: a
   * failing tool's result then says only that the tool failed, and a failing read, prompt or
   * completion answers a generic -32603; the message goes only to the server's log. A `ToolError`
   * is always shown, and a `JsonRpcError` is always the answer. Default false: clients see the
   * message (`isError: true` with the message as text for a tool).
   */
  readonly hideErrorMessages?: boolean;
  /** Where timeouts are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Tasks: tools registered with `execution.taskSupport` may run as tasks, as the 2025-11-25
   * core tasks (a session's client sends `task` with its call) and as the 2026-07-28 tasks
   * extension `io.modelcontextprotocol/tasks` (for clients that declare it). `true` for the
   * defaults; off by default, and then nothing of tasks is declared.
   */
  readonly tasks?: TasksOptions | boolean;
  /**
   * Middleware around every request handler, in sessions and for stateless requests alike; the
   * first is the outermost (see `ServerMiddleware`). More can be added with `use`.
   */
  readonly middleware?: readonly ServerMiddleware[];
  /** Extensions to serve (see `ServerExtension`); more can be added with `extension`. */
  readonly extensions?: readonly ServerExtension[];
}

/**
 * An MCP server definition: registries of tools, resources, templates and prompts shared by any
 * number of sessions. Each `connect` starts a session with its own lifecycle actor, log level and
 * resource subscriptions. Registering, disabling or removing an item sends the matching
 * `list_changed` notification to every initialized session that was told `listChanged`.
 */
export interface McpServer {
  /** Registers a tool; throws a `TypeError` if the name is taken or the schema is not an object schema. */
  tool<Args>(definition: ToolDefinition<Args>): RegisteredTool;
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
   * `restore`, resumes a session another process persisted (see `ServerSession.persist`).
   */
  connect(transport: Transport, options?: ConnectOptions): ServerSession;
  /** The sessions currently open. */
  readonly sessions: ReadonlySet<ServerSession>;
  /**
   * Serves requests of the stateless revisions (2026-07-28 on) one by one, with no connection and
   * no session: give it to the Streamable HTTP handler (`stateless: server.stateless` there).
   * Connections made with `connect` serve such requests themselves.
   */
  readonly stateless: StatelessReceiver;
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
   * every stateless request), answers its methods and runs its middleware. Throws a `TypeError`
   * for a malformed or repeated identifier, or a method already answered.
   */
  extension(extension: ServerExtension): void;
}

/** The default of `maxSubscriptionsPerSession`. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 1000;

/** The registries of a server definition. */
interface Registries {
  readonly tools: ReturnType<typeof createToolRegistry>;
  readonly resources: ReturnType<typeof createResourceRegistry>;
  readonly prompts: ReturnType<typeof createPromptRegistry>;
}

function createRegistries(options: ServerOptions, logger: Logger, failures: FailurePolicy): Registries {
  const validateResults = options.validateResults ?? true;
  const tools = createToolRegistry({
    jsonSchemaValidator: options.jsonSchemaValidator ?? compileJsonSchema,
    validateResults,
    logger,
    failures,
  });
  const resources = createResourceRegistry({
    validateResults,
    logger,
    failures,
    readCacheHint: options.cacheHints?.['resources/read'] ?? DEFAULT_CACHE_HINTS['resources/read'],
  });
  const prompts = createPromptRegistry({ validateResults, logger, failures });
  return { tools, resources, prompts };
}

/** Handler failures go to the server's logger, or to stderr at warn when it has none. */
function failurePolicyOf(options: ServerOptions, logger: Logger): FailurePolicy {
  const log =
    options.logger === undefined ? stderrWarnLogger().child({ component: 'server', server: options.name }) : logger;
  return { log, hide: options.hideErrorMessages ?? false };
}

/** Every registry change becomes the matching `list_changed` notification to the sessions told `listChanged`. */
function announceListChanges({ tools, resources, prompts }: Registries, sessions: ServerSessions): void {
  tools.changed$.subscribe(() => sessions.broadcast('notifications/tools/list_changed', 'tools.listChanged'));
  prompts.changed$.subscribe(() => sessions.broadcast('notifications/prompts/list_changed', 'prompts.listChanged'));
  const resourcesChanged = () => sessions.broadcast('notifications/resources/list_changed', 'resources.listChanged');
  resources.resourcesChanged$.subscribe(resourcesChanged);
  resources.templatesChanged$.subscribe(resourcesChanged);
}

/** The request handlers every session shares; each finds its session as the connection's owner. */
function sharedHandlers(
  options: ServerOptions,
  registries: Registries,
  streams: {
    readonly capabilities: () => ServerCapabilities;
    readonly updates: Subject<string>;
    readonly closing: Subject<void>;
    readonly logger: Logger;
    readonly failures: FailurePolicy;
  },
): Readonly<Record<string, RequestHandler>> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
  const maxSubscriptions = options.maxSubscriptionsPerSession ?? DEFAULT_MAX_SUBSCRIPTIONS;
  const { logger, failures } = streams;
  const sealer = new RequestStateSealer(options.requestState);
  const listen = createListenHandler({
    ...registries,
    capabilities: () => streams.capabilities() as Record<string, unknown>,
    updates: streams.updates,
    closing: streams.closing,
    maxSubscriptions,
    logger,
  });
  const handlers = createRequestHandlers({
    ...registries,
    pageSize,
    maxSubscriptions,
    logger,
    failures,
    withSession: contextOf,
    withInput: inputRunner(sealer, options.scheduler),
    listen,
  });
  if (!options.tasks) return handlers;
  const tasks = options.tasks === true ? {} : options.tasks;
  return handlersWithTasks(handlers, tasks, {
    tools: registries.tools,
    sealer,
    scheduler: options.scheduler,
    logger,
    pageSize,
    closing: streams.closing,
  });
}

/** What every session of the definition is started with, from the server's options. */
function sessionConfig(
  options: ServerOptions,
  parts: Pick<SessionConfig, 'info' | 'capabilities' | 'handlers' | 'logger' | 'watch'>,
): SessionConfig {
  return {
    ...parts,
    instructions: options.instructions,
    supportedRevisions: options.supportedRevisions,
    cacheHints: options.cacheHints,
    requestTimeoutMs: options.requestTimeoutMs,
    initializeTimeoutMs: options.initializeTimeoutMs,
    defaultLogLevel: options.defaultLogLevel ?? 'debug',
    scheduler: options.scheduler,
  };
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
  const logger = childLogger(options.logger, { component: 'server', server: options.name });
  const failures = failurePolicyOf(options, logger);
  const registries = createRegistries(options, logger, failures);
  const { tools, resources, prompts } = registries;
  /** URIs named by `resourceUpdated`, for the `subscriptions/listen` streams. */
  const updates = new Subject<string>();
  /** Emits when the server closes: the listen streams end gracefully. */
  const closing = new Subject<void>();
  const info: Implementation = { name: options.name, version: options.version };
  if (options.title !== undefined) info.title = options.title;
  const sources = {
    tools,
    resources,
    prompts,
    completers: 0,
    logging: options.logging ?? true,
    given: options.tasks ? mergeCapabilities({ ...TASK_CAPABILITIES }, options.capabilities) : options.capabilities,
    extensions: {} as Record<string, Record<string, unknown>>,
  };
  const capabilities = (): ServerCapabilities => deriveCapabilities(sources);
  const stack = new MiddlewareStack(
    sharedHandlers(options, registries, { capabilities, updates, closing, logger, failures }),
    options.middleware,
  );
  const handlers = stack.handlers;
  const watch = (session: Session, uri: string) => watchResource(session, uri, resources, logger);
  const config = sessionConfig(options, { info, capabilities, handlers, logger, watch });
  const sessions = new ServerSessions(config);
  announceListChanges(registries, sessions);
  const stateless = new LazyStatelessEndpoint(config);
  const countCompleters = (has: boolean) => {
    if (has) sources.completers++;
  };
  const addExtension = (extension: ServerExtension) => {
    const handlers = extensionRequestHandlers(extension);
    checkExtension(extension, sources.extensions, { has: (method: string) => stack.has(method) });
    stack.add(handlers);
    if (extension.middleware !== undefined) stack.use(extension.middleware);
    sources.extensions[extension.id] = { ...extension.settings };
  };
  for (const extension of options.extensions ?? []) addExtension(extension);

  return {
    tool: (definition) => tools.add(definition),
    removeTool: (name) => tools.remove(name),
    resource: (definition) => resources.addResource(definition),
    resourceTemplate(definition) {
      const registration = resources.addTemplate(definition);
      countCompleters(Object.keys(definition.complete ?? {}).length > 0);
      return registration;
    },
    prompt(definition) {
      const registration = prompts.add(definition);
      countCompleters((definition.arguments ?? []).some((argument) => argument.complete !== undefined));
      return registration;
    },
    resourceUpdated(uri) {
      updates.next(uri);
      sessions.resourceUpdated(uri);
    },
    log: (level, data, loggerName) => sessions.log(level, data, loggerName),
    logDestination: () =>
      createClientLogDestination((level, data, loggerName) => sessions.log(level, data, loggerName)),
    capabilities,
    connect: (transport, connectOptions) => sessions.open(transport, connectOptions),
    sessions: sessions.all,
    requiredScopes: (method, params) => requiredScopesOf(method, params, registries),
    get stateless() {
      return stateless.endpoint;
    },
    close(reason = 'server closed') {
      closing.next();
      sessions.closeAll(reason);
      stateless.close(reason);
    },
    use: (middleware) => stack.use(middleware),
    extension: addExtension,
  };
}
