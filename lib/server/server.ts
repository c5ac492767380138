import type { DestinationStream, Logger } from 'pino';
import { Subject } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { hasCapability } from '../connection/capabilities';
import { createConnection } from '../connection/connection';
import type { HandlerOutput, HandlerResult, RequestContext } from '../connection/dispatcher';
import { StatelessEndpoint } from '../connection/stateless-endpoint';
import { DEFAULT_CACHE_HINTS, STATELESS_REVISIONS } from '../connection/stateless';
import type { CacheHint } from '../connection/stateless';
import { InputRound, isMultiRound } from './input-round';
import { createListenHandler } from './listen';
import { RequestStateSealer } from './request-state';
import type { RequestStateOptions } from './request-state';
import type { StatelessReceiver } from '../transport/transport';
import { LOG_LEVELS } from '../connection/handler-events';
import type { LogLevel } from '../connection/handler-events';
import type { Implementation, ServerCapabilities } from '../schema/lifecycle';
import { STATEFUL_REVISIONS as STATEFUL_DEFAULT } from '../schema/revisions';
import type { Transport } from '../transport/transport';
import { createClientLogDestination } from './client-log-destination';
import { compileJsonSchema } from '../schema/json-schema-validator';
import type { JsonSchemaValidatorFactory } from '../schema/json-schema-validator';
import { createPromptRegistry } from './prompt-registry';
import type { PromptDefinition, RegisteredPrompt } from './prompt-registry';
import { DEFAULT_PAGE_SIZE } from './registry';
import { createResourceRegistry } from './resource-registry';
import type { RegisteredResource, ResourceDefinition, ResourceTemplateDefinition } from './resource-registry';
import { SessionContext, StatelessContext } from './server-context';
import type { ServerContext, ServerSession } from './server-context';
import { Session } from './session';
import type { SessionHost } from './session';
import { createToolRegistry } from './tool-registry';
import type { RegisteredTool, ToolDefinition } from './tool-registry';
import { childLogger } from '../jsonrpc/logger';
import { createRequestHandlers, requiredScopesOf } from './request-handlers';

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
  /** Server-side logs (not the MCP log messages sent to clients). Silent by default. */
  readonly logger?: Logger;
  /** Where timeouts are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
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
  /** Serves one client over `transport`; any number of sessions may be open at once. */
  connect(transport: Transport): ServerSession;
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
}

/** The default of `maxSubscriptionsPerSession`. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 1000;

const levelRank = new Map<LogLevel, number>(LOG_LEVELS.map((level, index) => [level, index]));

function mergeCapabilities(
  derived: Record<string, unknown>,
  given: Record<string, unknown> | undefined,
): ServerCapabilities {
  const merged: Record<string, unknown> = { ...derived };
  for (const [key, value] of Object.entries(given ?? {})) {
    const base = merged[key];
    merged[key] =
      typeof base === 'object' && base !== null && typeof value === 'object' && value !== null
        ? { ...base, ...value }
        : value;
  }
  return merged as ServerCapabilities;
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
  const validateResults = options.validateResults ?? true;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const defaultLogLevel = options.defaultLogLevel ?? 'debug';
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
  const tools = createToolRegistry({
    jsonSchemaValidator: options.jsonSchemaValidator ?? compileJsonSchema,
    validateResults,
    logger,
  });
  const cacheHints: Readonly<Record<string, CacheHint>> | undefined = options.cacheHints;
  const resources = createResourceRegistry({
    validateResults,
    logger,
    readCacheHint: cacheHints?.['resources/read'] ?? DEFAULT_CACHE_HINTS['resources/read'],
  });
  const supportedRevisions = options.supportedRevisions;
  const sealer = new RequestStateSealer(options.requestState);
  const maxSubscriptions = options.maxSubscriptionsPerSession ?? DEFAULT_MAX_SUBSCRIPTIONS;
  /** URIs named by `resourceUpdated`, for the `subscriptions/listen` streams. */
  const updates = new Subject<string>();
  /** Emits when the server closes: the listen streams end gracefully. */
  const closing = new Subject<void>();
  const prompts = createPromptRegistry({ validateResults, logger });
  const sessions = new Set<Session>();
  const info: Implementation = { name: options.name, version: options.version };
  if (options.title !== undefined) info.title = options.title;
  let completers = 0;
  let warnedNoLogging = false;

  const capabilities = (): ServerCapabilities => {
    const derived: Record<string, unknown> = {};
    if (tools.size > 0) derived.tools = { listChanged: true };
    if (resources.size > 0) derived.resources = { subscribe: true, listChanged: true };
    if (prompts.size > 0) derived.prompts = { listChanged: true };
    if (completers > 0) derived.completions = {};
    if (options.logging ?? true) derived.logging = {};
    return mergeCapabilities(derived, options.capabilities as Record<string, unknown> | undefined);
  };

  function shouldSendLog(session: Session, level: LogLevel): boolean {
    if (!hasCapability(session.declared, 'logging')) {
      if (!warnedNoLogging) logger.warn('log message not sent: declare the logging capability to send log messages');
      warnedNoLogging = true;
      return false;
    }
    return levelRank.get(level)! >= levelRank.get(session.level)!;
  }

  const host: SessionHost = {
    sendLog(session, level, data, loggerName) {
      if (!session.operating || !shouldSendLog(session, level)) return;
      const params: Record<string, unknown> = { level, data };
      if (loggerName !== undefined) params.logger = loggerName;
      session.connection.notify('notifications/message', params);
    },
  };

  function broadcast(method: string, capability: string): void {
    for (const session of sessions) {
      if (session.operating && hasCapability(session.declared, capability)) session.connection.notify(method);
    }
  }
  tools.changed$.subscribe(() => broadcast('notifications/tools/list_changed', 'tools.listChanged'));
  prompts.changed$.subscribe(() => broadcast('notifications/prompts/list_changed', 'prompts.listChanged'));
  resources.resourcesChanged$.subscribe(() =>
    broadcast('notifications/resources/list_changed', 'resources.listChanged'),
  );
  resources.templatesChanged$.subscribe(() =>
    broadcast('notifications/resources/list_changed', 'resources.listChanged'),
  );

  const withSession = (context: RequestContext, session: unknown): ServerContext =>
    context.peer === undefined
      ? new SessionContext(context, session as Session)
      : new StatelessContext(context, undefined);

  /**
   * Runs the work of a request that may ask its client for input: in a session, as requests on the
   * connection; under a stateless revision, through the request's input round (spec 2026-07-28:
   * MRTR), which may end the attempt with an input-required result.
   */
  function withInput(
    params: Record<string, unknown>,
    context: RequestContext,
    session: unknown,
    work: (context: ServerContext) => unknown,
  ): HandlerOutput<HandlerResult> {
    if (context.peer === undefined)
      return work(new SessionContext(context, session as Session)) as HandlerOutput<HandlerResult>;
    if (!isMultiRound(context.method))
      return work(new StatelessContext(context, undefined)) as HandlerOutput<HandlerResult>;
    const round = new InputRound(context.method, params, { sealer, scheduler: options.scheduler });
    return round.run(work(new StatelessContext(context, round))) as Observable<HandlerResult>;
  }

  const listen = createListenHandler({
    capabilities: () => capabilities() as Record<string, unknown>,
    tools,
    prompts,
    resources,
    updates,
    closing,
    maxSubscriptions,
    logger,
  });
  // One set of handlers for every session: each finds its session as the connection's owner.
  const handlers = createRequestHandlers({
    tools,
    resources,
    prompts,
    pageSize,
    maxSubscriptions,
    logger,
    withSession,
    withInput,
    listen,
  });

  function connect(transport: Transport): ServerSession {
    const session = new Session(host, defaultLogLevel);
    session.transport = transport;
    session.connection = createConnection({
      transport,
      role: 'server',
      info,
      instructions: options.instructions,
      // Fixed when first read, which is when initialize is answered.
      capabilities: () => (session.declared ??= capabilities()) as Record<string, unknown>,
      supportedRevisions,
      cacheHints,
      requestTimeoutMs: options.requestTimeoutMs,
      initializeTimeoutMs: options.initializeTimeoutMs,
      shouldSendLog: (level) => shouldSendLog(session, level),
      scheduler: options.scheduler,
      logger,
      handlers,
      owner: session,
      onClose: () => {
        session.unwatchAll();
        sessions.delete(session);
      },
    });
    // A transport that was already closed ends the session before it is counted.
    if (session.connection.state !== 'shutdown') sessions.add(session);
    return session;
  }

  let endpoint: StatelessEndpoint | undefined;
  const statelessEndpoint = (): StatelessEndpoint =>
    (endpoint ??= new StatelessEndpoint({
      info,
      instructions: options.instructions,
      capabilities: () => capabilities() as Record<string, unknown>,
      handlers,
      supportedRevisions: supportedRevisions ?? [...STATEFUL_DEFAULT, ...STATELESS_REVISIONS],
      cacheHints,
      logger,
      scheduler: options.scheduler,
    }));

  const countCompleters = (has: boolean) => {
    if (has) completers++;
  };

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
      for (const session of sessions) {
        if (session.watches?.has(uri) && session.operating)
          session.connection.notify('notifications/resources/updated', { uri });
      }
    },
    log(level, data, loggerName) {
      for (const session of sessions) host.sendLog(session, level, data, loggerName);
    },
    logDestination: () =>
      createClientLogDestination((level, data, loggerName) => {
        for (const session of sessions) host.sendLog(session, level, data, loggerName);
      }),
    capabilities,
    connect,
    sessions,
    requiredScopes: (method, params) => requiredScopesOf(method, params, { tools, prompts, resources }),
    get stateless() {
      return statelessEndpoint();
    },
    close(reason = 'server closed') {
      closing.next();
      for (const session of [...sessions]) session.close(reason);
      endpoint?.close(reason);
      endpoint = undefined;
    },
  };
}
