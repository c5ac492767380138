import type { Logger } from 'pino';
import { filter, firstValueFrom, lastValueFrom, map, of, takeUntil, tap, toArray } from 'rxjs';
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
import { createSchemaCheck } from './schema-checks';
import type { SchemaCheck } from './schema-checks';
import { installServerRequestHandlers } from './server-requests';
import type { ElicitationHandler, ElicitationOptions, SamplingHandler } from './server-requests';
import { callTool, toolResult } from './tool-call';
import type { CallToolOptions, ToolCallEvent } from './tool-call';
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
  return createClient(connection, options, log, check, serverRequests.setRoots);
}

function createClient(
  connection: Connection,
  options: ClientOptions,
  log: Logger,
  check: SchemaCheck,
  replaceRoots: (roots: readonly Root[]) => void,
): McpClient {
  const { request, notifications$ } = connection;
  const serverCapabilities = (connection.peerCapabilities ?? {}) as ServerCapabilities;
  const maxPages = options.maxListPages ?? DEFAULT_MAX_LIST_PAGES;
  const notified = (method: string) => notifications$.pipe(filter((message) => message.method === method));
  const paramsOf = <T>(method: string) => notified(method).pipe(map((message) => (message.params ?? {}) as T));

  const listAll = <T>(method: string, key: string, capability: string, requestOptions?: RequestOptions): Observable<T[]> =>
    hasCapability(serverCapabilities, capability)
      ? paginate<Record<string, unknown>, T>({
          fetchPage: (cursor) => request(method, cursor === undefined ? {} : { cursor }, requestOptions),
          items: (page) => page[key] as T[],
          nextCursor: (page) => page.nextCursor as string | undefined,
          maxPages,
        }).pipe(toArray())
      : of([]);

  // The latest full tool listing, for output-schema checks; forgotten when the list changes.
  let knownTools: ReadonlyMap<string, Tool> | undefined;
  notified('notifications/tools/list_changed').subscribe(() => (knownTools = undefined));
  const listTools = (requestOptions?: RequestOptions) =>
    listAll<Tool>('tools/list', 'tools', 'tools', requestOptions).pipe(
      tap((tools) => (knownTools = new Map(tools.map((tool) => [tool.name, tool])))),
    );
  const toolNamed = (name: string, fetchIfUnknown: boolean): Observable<Tool | undefined> => {
    if (knownTools) return of(knownTools.get(name));
    if (!fetchIfUnknown) return of(undefined);
    return listTools().pipe(map(() => knownTools?.get(name)));
  };

  const listResources = (o?: RequestOptions) => listAll<Resource>('resources/list', 'resources', 'resources', o);
  const listResourceTemplates = (o?: RequestOptions) =>
    listAll<ResourceTemplate>('resources/templates/list', 'resourceTemplates', 'resources', o);
  const listPrompts = (o?: RequestOptions) => listAll<Prompt>('prompts/list', 'prompts', 'prompts', o);
  const readResource = (uri: string, o?: RequestOptions) =>
    request('resources/read', { uri }, o) as Observable<ReadResourceResult>;
  const getPrompt = (name: string, args?: Record<string, string>, o?: RequestOptions) =>
    request('prompts/get', args === undefined ? { name } : { name, arguments: args }, o) as Observable<GetPromptResult>;
  const complete = (params: CompleteRequestParams, o?: RequestOptions) =>
    request('completion/complete', params as Record<string, unknown>, o) as Observable<CompleteResult>;
  const setLoggingLevel = (level: LoggingLevel, o?: RequestOptions) =>
    request('logging/setLevel', { level }, o).pipe(map((): void => undefined));
  const callToolEvents = (name: string, args?: Record<string, unknown>, o?: CallToolOptions) =>
    callTool({ connection, toolNamed, check }, name, args, o);
  const ping = async (o?: RequestOptions) => {
    await firstValueFrom(request('ping', undefined, o));
  };

  // What most clients never use is built on first use: a client is per connection, and an idle
  // connection should cost little (see benchmarks/results/ANALYSIS.md).
  let resourceWatcher: ReturnType<typeof createResourceWatcher> | undefined;
  const lazy: {
    tools$?: Observable<readonly Tool[]>;
    resources$?: Observable<readonly Resource[]>;
    resourceTemplates$?: Observable<readonly ResourceTemplate[]>;
    prompts$?: Observable<readonly Prompt[]>;
    logMessages$?: Observable<LoggingMessageNotificationParams>;
    elicitationComplete$?: Observable<{ elicitationId: string }>;
    promises?: McpClientPromises;
  } = {};

  if (options.keepalive) {
    keepalive(() => request('ping', undefined, { timeoutMs: options.keepalive?.timeoutMs ?? options.keepalive?.intervalMs }), {
      scheduler: options.scheduler,
      ...options.keepalive,
    })
      .pipe(takeUntil(connection.closed$))
      .subscribe({
        next: (missed) => {
          if (missed > 0) log.warn({ missed }, 'keepalive ping unanswered');
        },
        error: (error: Error) => {
          log.warn({ err: error }, 'server unresponsive; closing');
          connection.close(error.message);
        },
      });
  }

  return {
    connection,
    revision: connection.revision as Revision,
    serverInfo: (connection.peerInfo ?? {}) as Implementation,
    serverCapabilities,
    instructions: connection.instructions,
    get state() {
      return connection.state;
    },
    state$: connection.state$,
    closed$: connection.closed$,
    request,
    ping,
    get tools$() {
      return (lazy.tools$ ??= cachedList({ fetch: listTools, changed$: notified('notifications/tools/list_changed') }));
    },
    listTools,
    callTool: callToolEvents,
    get resources$() {
      return (lazy.resources$ ??= cachedList({ fetch: listResources, changed$: notified('notifications/resources/list_changed') }));
    },
    get resourceTemplates$() {
      return (lazy.resourceTemplates$ ??= cachedList({
        fetch: listResourceTemplates,
        changed$: notified('notifications/resources/list_changed'),
      }));
    },
    listResources,
    listResourceTemplates,
    readResource,
    watchResource: (uri) =>
      (resourceWatcher ??= createResourceWatcher({ connection, serverCapabilities, readResource, logger: log })).watch(uri),
    get prompts$() {
      return (lazy.prompts$ ??= cachedList({ fetch: listPrompts, changed$: notified('notifications/prompts/list_changed') }));
    },
    listPrompts,
    getPrompt,
    complete,
    setLoggingLevel,
    get logMessages$() {
      return (lazy.logMessages$ ??= paramsOf<LoggingMessageNotificationParams>('notifications/message'));
    },
    get elicitationComplete$() {
      return (lazy.elicitationComplete$ ??= paramsOf<{ elicitationId: string }>('notifications/elicitation/complete'));
    },
    setRoots: (roots) => {
      replaceRoots(roots);
      if (options.roots === undefined) {
        log.warn('setRoots called, but the client was connected without roots; the server was not told');
        return;
      }
      connection.notify('notifications/roots/list_changed');
    },
    get promises() {
      return (lazy.promises ??= {
        callTool: (name, args, o) => lastValueFrom(callToolEvents(name, args, { progress: false, ...o }).pipe(toolResult())),
        listTools: (o) => lastValueFrom(listTools(o)),
        listResources: (o) => lastValueFrom(listResources(o)),
        listResourceTemplates: (o) => lastValueFrom(listResourceTemplates(o)),
        listPrompts: (o) => lastValueFrom(listPrompts(o)),
        readResource: (uri, o) => lastValueFrom(readResource(uri, o)),
        getPrompt: (name, args, o) => lastValueFrom(getPrompt(name, args, o)),
        complete: (params, o) => lastValueFrom(complete(params, o)),
        setLoggingLevel: (level, o) => lastValueFrom(setLoggingLevel(level, o)),
        ping,
      });
    },
    close: (reason) => connection.close(reason),
  };
}
