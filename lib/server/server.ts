import type { DestinationStream, Logger } from 'pino';
import type { SchedulerLike } from 'rxjs';
import { hasCapability } from '../connection/capabilities';
import { createConnection } from '../connection/connection';
import type { RequestContext, RequestHandler } from '../connection/dispatcher';
import { LOG_LEVELS } from '../connection/handler-events';
import type { LogLevel } from '../connection/handler-events';
import { JsonRpcError } from '../jsonrpc/errors';
import type { CompleteRequestParams } from '../schema/completion';
import type { Implementation, ServerCapabilities } from '../schema/lifecycle';
import type { GetPromptRequestParams } from '../schema/prompts';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import type { CallToolRequestParams } from '../schema/tools';
import type { Transport } from '../transport/transport';
import { createClientLogDestination } from './client-log-destination';
import { CompletionSessionContext, toCompleteResult } from './completion';
import type { Completer } from './completion';
import { compileJsonSchema } from './json-schema-validator';
import type { JsonSchemaValidatorFactory } from './json-schema-validator';
import { runHandler } from './handler-output';
import { createPromptRegistry } from './prompt-registry';
import type { PromptDefinition, RegisteredPrompt } from './prompt-registry';
import { DEFAULT_PAGE_SIZE } from './registry';
import { createResourceRegistry } from './resource-registry';
import type { RegisteredResource, ResourceDefinition, ResourceTemplateDefinition } from './resource-registry';
import { SessionContext } from './server-context';
import type { ServerContext, ServerSession } from './server-context';
import { Session } from './session';
import type { SessionHost } from './session';
import { createToolRegistry } from './tool-registry';
import type { RegisteredTool, ToolDefinition } from './tool-registry';
import { childLogger } from '../jsonrpc/logger';

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
  /** Revisions the server accepts, oldest first. Default: all that rxmcp supports. */
  readonly supportedRevisions?: readonly Revision[];
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
  /** Closes every session. The definition stays usable: `connect` may be called again. */
  close(reason?: string): void;
}

const levelRank = new Map<LogLevel, number>(LOG_LEVELS.map((level, index) => [level, index]));

function mergeCapabilities(derived: Record<string, unknown>, given: Record<string, unknown> | undefined): ServerCapabilities {
  const merged: Record<string, unknown> = { ...derived };
  for (const [key, value] of Object.entries(given ?? {})) {
    const base = merged[key];
    merged[key] =
      typeof base === 'object' && base !== null && typeof value === 'object' && value !== null ? { ...base, ...value } : value;
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
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
  const tools = createToolRegistry({ jsonSchemaValidator: options.jsonSchemaValidator ?? compileJsonSchema, validateResults, logger });
  const resources = createResourceRegistry({ validateResults, logger });
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
  resources.resourcesChanged$.subscribe(() => broadcast('notifications/resources/list_changed', 'resources.listChanged'));
  resources.templatesChanged$.subscribe(() => broadcast('notifications/resources/list_changed', 'resources.listChanged'));

  const withSession = (context: RequestContext, session: unknown): ServerContext => new SessionContext(context, session as Session);
  const revisionOf = (context: RequestContext) => context.revision as Revision;
  const cursorOf = (params: Record<string, unknown>) => params.cursor as string | undefined;

  // One set of handlers for every session: each finds its session as the connection's owner.
  const handlers: Readonly<Record<string, RequestHandler>> = {
    'tools/list': (params, context) => tools.list(cursorOf(params), pageSize, revisionOf(context)),
    'tools/call': (params, context, session) => tools.call(params as CallToolRequestParams, withSession(context, session)),
    'resources/list': (params, context, session) => resources.listResources(cursorOf(params), pageSize, withSession(context, session)),
    'resources/templates/list': (params, context) => resources.listTemplates(cursorOf(params), pageSize, revisionOf(context)),
    'resources/read': (params, context, session) => resources.read(params.uri as string, withSession(context, session)),
    'resources/subscribe': (params, context, owner) => {
      const session = owner as Session;
      const uri = params.uri as string;
      if (!resources.exists(uri)) {
        throw new JsonRpcError(featuresOf(revisionOf(context)).resourceNotFoundCode, `Resource not found: ${uri}`, { uri });
      }
      const watches = (session.watches ??= new Map());
      if (!watches.has(uri)) {
        const watching = resources.watch(uri).subscribe({
          next: () => {
            if (session.operating) session.connection.notify('notifications/resources/updated', { uri });
          },
          error: (error: unknown) => logger.error({ err: error, uri }, 'resource watch failed'),
        });
        watches.set(uri, watching);
      }
      return {};
    },
    'resources/unsubscribe': (params, _context, owner) => {
      const { watches } = owner as Session;
      const uri = params.uri as string;
      watches?.get(uri)?.unsubscribe();
      watches?.delete(uri);
      return {};
    },
    'prompts/list': (params, context) => prompts.list(cursorOf(params), pageSize, revisionOf(context)),
    'prompts/get': (params, context, session) => prompts.get(params as GetPromptRequestParams, withSession(context, session)),
    'completion/complete': (params, context, session) => {
      const { ref, argument, context: given } = params as CompleteRequestParams;
      let completer: Completer | undefined;
      if (ref.type === 'ref/prompt') {
        completer = prompts.completer(ref.name, argument.name);
      } else {
        const template = resources.template(ref.uri);
        if (!template) throw JsonRpcError.invalidParams([{ path: 'ref.uri', message: `unknown resource template ${ref.uri}` }]);
        completer = template.complete?.[argument.name];
      }
      if (!completer) return { completion: { values: [] } };
      const completionContext = new CompletionSessionContext(context, session as Session, given?.arguments ?? {});
      const complete = completer;
      return runHandler(() => complete(argument.value, completionContext), toCompleteResult);
    },
    'logging/setLevel': (params, _context, session) => {
      (session as Session).level = params.level as LogLevel;
      return {};
    },
  };

  function connect(transport: Transport): ServerSession {
    const session = new Session(host, defaultLogLevel);
    session.connection = createConnection({
      transport,
      role: 'server',
      info,
      instructions: options.instructions,
      // Fixed when first read, which is when initialize is answered.
      capabilities: () => (session.declared ??= capabilities()) as Record<string, unknown>,
      supportedRevisions: options.supportedRevisions,
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
      for (const session of sessions) {
        if (session.watches?.has(uri) && session.operating) session.connection.notify('notifications/resources/updated', { uri });
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
    close(reason = 'server closed') {
      for (const session of [...sessions]) session.close(reason);
    },
  };
}
