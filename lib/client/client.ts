import type { Logger } from 'pino';
import { EmptyError, filter, firstValueFrom, lastValueFrom, map, of, takeUntil, tap, toArray } from 'rxjs';
import type { SchedulerLike , Observable} from 'rxjs';
import { hasCapability } from '../connection/capabilities';
import { createConnection } from '../connection/connection';
import type { Connection, ConnectionState } from '../connection/connection';
import type { RequestOptions } from '../connection/request-pipeline';
import { paginate } from '../operators/paginate';
import type { CompleteRequestParams, CompleteResult } from '../schema/completion';
import type { Implementation, ServerCapabilities } from '../schema/lifecycle';
import type { LoggingLevel, LoggingMessageNotificationParams } from '../schema/logging';
import type { GetPromptResult, Prompt } from '../schema/prompts';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../schema/resources';
import type { Revision } from '../schema/revisions';
import type { Root } from '../schema/roots';
import type { CallToolResult, Tool } from '../schema/tools';
import type { JsonSchemaValidatorFactory } from '../server/json-schema-validator';
import type { Transport, TransportClose } from '../transport/transport';
import { cachedList } from './cached-list';
import { keepalive } from './keepalive';
import type { KeepaliveOptions } from './keepalive';
import { createResourceWatcher } from './resource-watcher';
import type { ResourceWatcher } from './resource-watcher';
import { createSchemaCheck } from './schema-checks';
import type { SchemaCheck } from './schema-checks';
import { installServerRequestHandlers } from './server-requests';
import type { ElicitationHandler, ElicitationOptions, SamplingHandler } from './server-requests';
import { callTool } from './tool-call';
import type { CallToolOptions, ToolCallContext, ToolCallEvent } from './tool-call';
import type { JsonRpcNotification } from '../jsonrpc/message';
import { childLogger } from '../jsonrpc/logger';

/** Options of `connect`. */
export interface ClientOptions {
  /** The client's name, sent as `clientInfo.name`. */
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  /**
   * Extra capabilities to declare (e.g. `experimental`), merged over the ones derived from the
   * handlers given below.
   */
  readonly capabilities?: Record<string, unknown>;
  /** Answers the server's `sampling/createMessage`; declares the `sampling` capability. */
  readonly sampling?: SamplingHandler;
  /** Answers the server's `elicitation/create`; declares the `elicitation` capability. */
  readonly elicitation?: ElicitationHandler | ElicitationOptions;
  /** The roots offered to the server (`roots/list`); declares `roots.listChanged`. See `setRoots`. */
  readonly roots?: readonly Root[];
  /** The revision to offer. Default: the latest rxmcp supports (2025-11-25). */
  readonly protocolVersion?: Revision;
  /** Revisions accepted in the server's answer. Default: all that rxmcp supports. */
  readonly supportedRevisions?: readonly Revision[];
  /** Default timeout of requests. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Refuse locally a request whose capability the server did not declare. Default false. */
  readonly enforceServerCapabilities?: boolean;
  /** Most pages a listing may take before it fails with `PageLimitError`. Default 1000. */
  readonly maxListPages?: number;
  /** Ping the server periodically and close the connection after too many missed answers. */
  readonly keepalive?: KeepaliveOptions;
  /**
   * Compiles the JSON Schemas the server sends (tool output schemas, elicitation forms) into
   * checks. Default: rxmcp's own validator for the keywords these schemas use; plug in a full
   * validator for the rest.
   */
  readonly jsonSchemaValidator?: JsonSchemaValidatorFactory;
  /** Where timeouts and keepalive are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  readonly logger?: Logger;
}

/** The Promise forms of the client's calls, for code that wants one answer and no stream. */
export interface McpClientPromises {
  /** Resolves with the tool's result (no progress events; use `onProgress` for those). */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult>;
  listTools(options?: RequestOptions): Promise<Tool[]>;
  listResources(options?: RequestOptions): Promise<Resource[]>;
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]>;
  listPrompts(options?: RequestOptions): Promise<Prompt[]>;
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>;
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult>;
  complete(params: CompleteRequestParams, options?: RequestOptions): Promise<CompleteResult>;
  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void>;
  ping(options?: RequestOptions): Promise<void>;
}

/**
 * A connected MCP client. It exists only once the handshake is done. Every call returns a cold
 * Observable: subscribing sends the request, unsubscribing before the answer sends
 * `notifications/cancelled`, a JSON-RPC error arrives as a `JsonRpcError`, an answer that does not
 * match the revision's schema as a `ProtocolError` (failing that call only), and a connection that
 * closes fails every pending call with `ConnectionClosedError`. `promises` has the Promise forms.
 */
export interface McpClient {
  readonly connection: Connection;
  /** The negotiated protocol revision. */
  readonly revision: Revision;
  readonly serverInfo: Implementation;
  readonly serverCapabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  /** `operating` until the connection closes, then `shutdown`. */
  readonly state: ConnectionState;
  /** Replays the current state; completes on shutdown. */
  readonly state$: Observable<ConnectionState>;
  /** Emits once when the connection has closed (why, and the error if it failed), then completes. */
  readonly closed$: Observable<TransportClose>;
  /** Sends any request. Cold; see `Connection.request`. */
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Observable<Record<string, unknown>>;
  /** Pings the server; resolves when it answers. */
  ping(options?: RequestOptions): Promise<void>;

  /**
   * Every tool of the server, across pages, kept up to date: fetched on first subscription,
   * replayed to later subscribers, fetched again on `notifications/tools/list_changed`. Stays
   * cached when nobody listens; completes when the connection closes. `[]` when the server has no
   * `tools` capability.
   */
  readonly tools$: Observable<readonly Tool[]>;
  /** Every tool, across pages, fetched now. Cold. `[]` without the `tools` capability. */
  listTools(options?: RequestOptions): Observable<Tool[]>;
  /**
   * Calls a tool. Cold: emits `{ type: 'progress', ... }` events while it runs, then one
   * `{ type: 'result', result }` and completes; `.pipe(toolResult())` keeps the result only.
   * `structuredContent` is checked against the tool's `outputSchema` (the tool list is fetched
   * once when needed), failing with `ProtocolError` on a mismatch.
   */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Observable<ToolCallEvent>;

  /** Like `tools$`, for resources (refreshed on `notifications/resources/list_changed`). */
  readonly resources$: Observable<readonly Resource[]>;
  /** Like `tools$`, for resource templates (refreshed on `notifications/resources/list_changed`). */
  readonly resourceTemplates$: Observable<readonly ResourceTemplate[]>;
  listResources(options?: RequestOptions): Observable<Resource[]>;
  listResourceTemplates(options?: RequestOptions): Observable<ResourceTemplate[]>;
  /** Reads a resource once. Cold. */
  readResource(uri: string, options?: RequestOptions): Observable<ReadResourceResult>;
  /**
   * The contents of a resource as they change. The first subscriber sends `resources/subscribe`
   * and reads the resource; each `notifications/resources/updated` for the URI reads it again.
   * Later subscribers share the subscription and get the latest contents at once; when the last
   * one unsubscribes, `resources/unsubscribe` is sent. Errors with `CapabilityNotSupportedError`
   * when the server cannot subscribe; completes when the connection closes.
   */
  watchResource(uri: string): Observable<ReadResourceResult>;

  /** Like `tools$`, for prompts (refreshed on `notifications/prompts/list_changed`). */
  readonly prompts$: Observable<readonly Prompt[]>;
  listPrompts(options?: RequestOptions): Observable<Prompt[]>;
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Observable<GetPromptResult>;

  /** Asks for completions of a prompt or resource-template argument. Cold. */
  complete(params: CompleteRequestParams, options?: RequestOptions): Observable<CompleteResult>;
  /** Sets the level of the log messages the server sends. Cold; emits once the server agreed. */
  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Observable<void>;
  /** Hot: the server's log messages (`notifications/message`). Completes when the connection closes. */
  readonly logMessages$: Observable<LoggingMessageNotificationParams>;
  /** Hot: `notifications/elicitation/complete` (URL-mode elicitations finished out of band). */
  readonly elicitationComplete$: Observable<{ readonly elicitationId: string }>;

  /** Replaces the roots offered to the server and sends `notifications/roots/list_changed`. */
  setRoots(roots: readonly Root[]): void;
  readonly promises: McpClientPromises;
  /** Closes the connection; pending calls fail with `ConnectionClosedError`. Idempotent. */
  close(reason?: string): void;
}

const DEFAULT_MAX_LIST_PAGES = 1000;

function mergeCapabilities(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    const bothObjects = [current, value].every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
    merged[key] = bothObjects ? { ...(current as object), ...(value as object) } : value;
  }
  return merged;
}

/**
 * Connects to a server over `transport` and resolves once the handshake is done (the connection is
 * `operating`). Offers `protocolVersion` (default 2025-11-25) and accepts any supported revision in
 * the answer; rejects with `UnsupportedProtocolVersionError` (and closes) otherwise, and with the
 * transport's or the server's error when the handshake fails.
 * @example
 * const client = await connect(createStdioClientTransport({ command: 'node', args: ['server.js'] }),
 *   { name: 'demo-client', version: '1.0.0' });
 * client.callTool('add', { a: 1, b: 2 }).pipe(toolResult()).subscribe(console.log);
 */
export async function connect(transport: Transport, options: ClientOptions): Promise<McpClient> {
  const info: { name: string; version: string; title?: string } = { name: options.name, version: options.version };
  if (options.title !== undefined) info.title = options.title;
  const log = childLogger(options.logger, { component: 'client', client: options.name });
  let declared: Record<string, unknown> = {};
  // Notifications reach the client once it exists; none can arrive before the handshake is done.
  const ready: { client?: Client } = {};
  const connection = createConnection({
    transport,
    role: 'client',
    info,
    capabilities: () => declared,
    protocolVersion: options.protocolVersion,
    supportedRevisions: options.supportedRevisions,
    requestTimeoutMs: options.requestTimeoutMs,
    enforcePeerCapabilities: options.enforceServerCapabilities ?? false,
    scheduler: options.scheduler,
    logger: log,
    onNotification: (message) => ready.client?.onNotification(message),
  });
  const check = createSchemaCheck(options.jsonSchemaValidator, log);
  const serverRequests = installServerRequestHandlers(connection, options, check, log);
  declared = mergeCapabilities(serverRequests.capabilities, options.capabilities ?? {});
  try {
    await firstValueFrom(connection.initialize());
  } catch (error) {
    connection.close('initialize failed');
    throw error;
  }
  const client = new Client(connection, options, log, check, serverRequests.setRoots);
  ready.client = client;
  if (options.keepalive) client.keepAlive(options.keepalive);
  return client;
}

/** The result of a tool call as a Promise (what `lastValueFrom(call.pipe(toolResult()))` gives, with fewer layers). */
function resultOf(call: Observable<ToolCallEvent>): Promise<CallToolResult> {
  return new Promise((resolve, reject) => {
    let result: CallToolResult | undefined;
    call.subscribe({
      next: (event) => {
        if (event.type === 'result') result = event.result;
      },
      error: reject,
      complete: () => (result ? resolve(result) : reject(new EmptyError())),
    });
  });
}

/**
 * The client. A class, so that an idle client costs one object and its methods live on the
 * prototype; what most clients never use (list caches, log streams, the resource watcher, the
 * Promise forms) is built on first use (see benchmarks/results/ANALYSIS.md).
 */
class Client implements McpClient, ToolCallContext {
  readonly revision: Revision;
  readonly serverInfo: Implementation;
  readonly serverCapabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  /** The latest full tool listing, for output-schema checks; forgotten when the list changes. */
  private knownTools: ReadonlyMap<string, Tool> | undefined;
  private lazy: Partial<{
    tools$: Observable<readonly Tool[]>;
    resources$: Observable<readonly Resource[]>;
    resourceTemplates$: Observable<readonly ResourceTemplate[]>;
    prompts$: Observable<readonly Prompt[]>;
    logMessages$: Observable<LoggingMessageNotificationParams>;
    elicitationComplete$: Observable<{ elicitationId: string }>;
    promises: McpClientPromises;
    resourceWatcher: ResourceWatcher;
  }> = {};

  constructor(
    readonly connection: Connection,
    private readonly options: ClientOptions,
    private readonly log: Logger,
    readonly check: SchemaCheck,
    private readonly replaceRoots: (roots: readonly Root[]) => void,
  ) {
    this.revision = connection.revision as Revision;
    this.serverInfo = (connection.peerInfo ?? {}) as Implementation;
    this.serverCapabilities = (connection.peerCapabilities ?? {}) as ServerCapabilities;
    this.instructions = connection.instructions;
  }

  get state(): ConnectionState {
    return this.connection.state;
  }

  get state$(): Observable<ConnectionState> {
    return this.connection.state$;
  }

  get closed$(): Observable<TransportClose> {
    return this.connection.closed$;
  }

  /** Sees every valid notification before `notifications$` (the connection calls it). */
  onNotification(message: JsonRpcNotification): void {
    if (message.method === 'notifications/tools/list_changed') this.knownTools = undefined;
  }

  keepAlive(settings: KeepaliveOptions): void {
    keepalive(() => this.request('ping', undefined, { timeoutMs: settings.timeoutMs ?? settings.intervalMs }), {
      scheduler: this.options.scheduler,
      ...settings,
    })
      .pipe(takeUntil(this.connection.closed$))
      .subscribe({
        next: (missed) => {
          if (missed > 0) this.log.warn({ missed }, 'keepalive ping unanswered');
        },
        error: (error: Error) => {
          this.log.warn({ err: error }, 'server unresponsive; closing');
          this.connection.close(error.message);
        },
      });
  }

  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Observable<Record<string, unknown>> {
    return this.connection.request(method, params, options);
  }

  async ping(options?: RequestOptions): Promise<void> {
    await firstValueFrom(this.request('ping', undefined, options));
  }

  get tools$(): Observable<readonly Tool[]> {
    return (this.lazy.tools$ ??= cachedList({
      fetch: () => this.listTools(),
      changed$: this.notified('notifications/tools/list_changed'),
    }));
  }

  listTools(options?: RequestOptions): Observable<Tool[]> {
    return this.listAll<Tool>('tools/list', 'tools', 'tools', options).pipe(
      tap((tools) => (this.knownTools = new Map(tools.map((tool) => [tool.name, tool])))),
    );
  }

  knowsTools(): boolean {
    return this.knownTools !== undefined;
  }

  /** The definition of a tool, for output checks (see `ToolCallContext`). */
  toolNamed(name: string, fetchIfUnknown: boolean): Observable<Tool | undefined> {
    if (this.knownTools) return of(this.knownTools.get(name));
    if (!fetchIfUnknown) return of(undefined);
    return this.listTools().pipe(map(() => this.knownTools?.get(name)));
  }

  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Observable<ToolCallEvent> {
    return callTool(this, name, args, options);
  }

  get resources$(): Observable<readonly Resource[]> {
    return (this.lazy.resources$ ??= cachedList({
      fetch: () => this.listResources(),
      changed$: this.notified('notifications/resources/list_changed'),
    }));
  }

  get resourceTemplates$(): Observable<readonly ResourceTemplate[]> {
    return (this.lazy.resourceTemplates$ ??= cachedList({
      fetch: () => this.listResourceTemplates(),
      changed$: this.notified('notifications/resources/list_changed'),
    }));
  }

  listResources(options?: RequestOptions): Observable<Resource[]> {
    return this.listAll<Resource>('resources/list', 'resources', 'resources', options);
  }

  listResourceTemplates(options?: RequestOptions): Observable<ResourceTemplate[]> {
    return this.listAll<ResourceTemplate>('resources/templates/list', 'resourceTemplates', 'resources', options);
  }

  readResource(uri: string, options?: RequestOptions): Observable<ReadResourceResult> {
    return this.request('resources/read', { uri }, options) as Observable<ReadResourceResult>;
  }

  watchResource(uri: string): Observable<ReadResourceResult> {
    const watcher = (this.lazy.resourceWatcher ??= createResourceWatcher({
      connection: this.connection,
      serverCapabilities: this.serverCapabilities,
      readResource: (watched) => this.readResource(watched),
      logger: this.log,
    }));
    return watcher.watch(uri);
  }

  get prompts$(): Observable<readonly Prompt[]> {
    return (this.lazy.prompts$ ??= cachedList({
      fetch: () => this.listPrompts(),
      changed$: this.notified('notifications/prompts/list_changed'),
    }));
  }

  listPrompts(options?: RequestOptions): Observable<Prompt[]> {
    return this.listAll<Prompt>('prompts/list', 'prompts', 'prompts', options);
  }

  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Observable<GetPromptResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    return this.request('prompts/get', params, options) as Observable<GetPromptResult>;
  }

  complete(params: CompleteRequestParams, options?: RequestOptions): Observable<CompleteResult> {
    return this.request('completion/complete', params as Record<string, unknown>, options) as Observable<CompleteResult>;
  }

  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Observable<void> {
    return this.request('logging/setLevel', { level }, options).pipe(map((): void => undefined));
  }

  get logMessages$(): Observable<LoggingMessageNotificationParams> {
    return (this.lazy.logMessages$ ??= this.paramsOf<LoggingMessageNotificationParams>('notifications/message'));
  }

  get elicitationComplete$(): Observable<{ readonly elicitationId: string }> {
    return (this.lazy.elicitationComplete$ ??= this.paramsOf<{ elicitationId: string }>('notifications/elicitation/complete'));
  }

  setRoots(roots: readonly Root[]): void {
    this.replaceRoots(roots);
    if (this.options.roots === undefined) {
      this.log.warn('setRoots called, but the client was connected without roots; the server was not told');
      return;
    }
    this.connection.notify('notifications/roots/list_changed');
  }

  get promises(): McpClientPromises {
    return (this.lazy.promises ??= {
      callTool: (name, args, o) => resultOf(this.callTool(name, args, { progress: false, ...o })),
      listTools: (o) => lastValueFrom(this.listTools(o)),
      listResources: (o) => lastValueFrom(this.listResources(o)),
      listResourceTemplates: (o) => lastValueFrom(this.listResourceTemplates(o)),
      listPrompts: (o) => lastValueFrom(this.listPrompts(o)),
      readResource: (uri, o) => lastValueFrom(this.readResource(uri, o)),
      getPrompt: (name, args, o) => lastValueFrom(this.getPrompt(name, args, o)),
      complete: (params, o) => lastValueFrom(this.complete(params, o)),
      setLoggingLevel: (level, o) => lastValueFrom(this.setLoggingLevel(level, o)),
      ping: (o) => this.ping(o),
    });
  }

  close(reason?: string): void {
    this.connection.close(reason);
  }

  private notified(method: string): Observable<JsonRpcNotification> {
    return this.connection.notifications$.pipe(filter((message) => message.method === method));
  }

  private paramsOf<T>(method: string): Observable<T> {
    return this.notified(method).pipe(map((message) => (message.params ?? {}) as T));
  }

  private listAll<T>(method: string, key: string, capability: string, options?: RequestOptions): Observable<T[]> {
    if (!hasCapability(this.serverCapabilities, capability)) return of([]);
    return paginate<Record<string, unknown>, T>({
      fetchPage: (cursor) => this.request(method, cursor === undefined ? {} : { cursor }, options),
      items: (page) => page[key] as T[],
      nextCursor: (page) => page.nextCursor as string | undefined,
      maxPages: this.options.maxListPages ?? DEFAULT_MAX_LIST_PAGES,
    }).pipe(toArray());
  }
}
