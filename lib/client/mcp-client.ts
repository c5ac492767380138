import { isRecord } from '../base/objects';
import type { Logger } from 'pino';
import {
  asyncScheduler,
  defer,
  filter,
  finalize,
  map,
  merge,
  of,
  switchMap,
  takeUntil,
  tap,
  toArray,
} from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import { hasCapability } from '../connection/capabilities';
import type { Connection, ConnectionState } from '../connection/connection';
import type { RequestHandler } from '../connection/dispatcher';
import type { RequestOptions as Sending } from '../connection/request-pipeline';
import type { JsonRpcNotification } from '../jsonrpc/message';
import { paginate } from '../operators/paginate';
import type { CompleteRequestParams, CompleteResult } from '../schema/completion';
import type { ClientRequestMap, ParamsOf as Params, ResultFor as Result } from '../schema/method-map';
import type { Implementation, ServerCapabilities } from '../schema/lifecycle';
import type { LoggingLevel, LoggingMessageNotificationParams } from '../schema/logging';
import type { GetPromptResult, Prompt } from '../schema/prompts';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../schema/resources';
import type { Root } from '../schema/roots';
import type { Tool } from '../schema/tools';
import type { TransportClose } from '../transport/transport';
import { cachedList } from './cached-list';
import type { ClientOptions, ClientRevision, McpClient, McpClientPromises, ServerEra } from './client-api';
import type { InputRequests } from './input-requests';
import { keepalive, type KeepaliveOptions } from './keepalive';
import { ListFreshness } from './list-freshness';
import { createResourceWatcher } from './resource-watcher';
import type { SchemaCheck } from './schema-checks';
import { DEFAULT_MAX_INPUT_ROUNDS, modernRequest, type RoundHooks, type ModernRequesterDeps } from './modern-requests';
import { SubscriptionHub, type ListenTopic } from './subscriptions';
import { callTool, type CallToolOptions, type ToolCallContext, type ToolCallEvent } from './tool-call';
import { promisesOf } from './client-promises';
import { isHeaderMismatch, ToolDirectory, withToolHeaders } from './tool-directory';
import { createClientTasks } from './tasks/client-tasks';
import type { ClientSetup, LazyParts } from './client-setup';
import type { Reconnection } from '../transport/http-client/streamable-http/session-renewal';
import { restoreLevel } from './log-level-restore';

export type { ClientSetup } from './client-setup';

const DEFAULT_MAX_LIST_PAGES = 1000;
/** `timeoutMs` of a `subscriptions/listen` request: it lasts as long as anyone listens. */
const LISTEN_OPTIONS: Sending = { timeoutMs: Infinity };
type Plain = Record<string, unknown>;
type Sent = keyof ClientRequestMap;

/**
 * The client. A class, so that an idle client costs one object and its methods live on the
 * prototype; what most clients never use (list caches, log streams, the resource watcher, the
 * Promise forms) is built on first use (see benchmarks/results/ANALYSIS.md). Both eras share it:
 * `send` is where a request takes the era's path.
 */
export class Client implements McpClient, ToolCallContext {
  readonly connection: Connection;
  readonly revision: ClientRevision;
  readonly era: ServerEra;
  readonly serverInfo: Implementation;
  readonly serverCapabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  readonly check: SchemaCheck;
  /** Made on first use, as are `freshness` and `lazy`'s parts: see the getters. */
  private toolDirectory: ToolDirectory | undefined = undefined;
  private listFreshness: ListFreshness | undefined = undefined;
  private readonly capabilitiesKnown: boolean;
  private readonly log: Logger;
  private readonly options: ClientOptions;
  private logLevel: LoggingLevel | undefined;
  private readonly modern: ModernRequesterDeps | undefined;
  private lazyParts: LazyParts | undefined = undefined;
  private get lazy(): LazyParts {
    return (this.lazyParts ??= {});
  }

  /** The latest full tool listing, for output-schema checks and headers. */
  private get tools(): ToolDirectory {
    return (this.toolDirectory ??= new ToolDirectory(this.era === 'modern', this.log));
  }

  /** How fresh the latest listings are (modern revisions), and the listings in flight. */
  private get freshness(): ListFreshness {
    return (this.listFreshness ??= new ListFreshness(this.options.scheduler ?? asyncScheduler));
  }

  /** The client's sampling, elicitation and roots handlers, by method (for the tasks API). */
  private readonly inputHandlers: Readonly<Record<string, RequestHandler>>;
  private readonly replaceRoots: ClientSetup['replaceRoots'];
  readonly reconnected$: Observable<Reconnection>;

  constructor(setup: ClientSetup) {
    this.inputHandlers = setup.inputHandlers;
    this.replaceRoots = setup.replaceRoots;
    this.reconnected$ = setup.reconnected$;
    this.connection = setup.connection;
    this.options = setup.options;
    this.log = setup.log;
    this.check = setup.check;
    this.revision = setup.revision;
    this.era = setup.era;
    this.serverInfo = (setup.serverInfo ?? {}) as Implementation;
    this.capabilitiesKnown = setup.serverCapabilities !== undefined;
    this.serverCapabilities = (setup.serverCapabilities ?? {}) as ServerCapabilities;
    this.instructions = setup.instructions;
    this.modern =
      setup.era === 'modern'
        ? {
            connection: setup.connection,
            revision: setup.revision,
            inputHandlers: setup.inputHandlers,
            maxInputRounds: setup.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
            scheduler: setup.options.scheduler,
            validateResults: true,
            logLevel: () => this.logLevel,
          }
        : undefined;
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
    // Neither made yet: no listing to forget, none fresh or in flight.
    if (message.method === 'notifications/tools/list_changed') this.toolDirectory?.forget();
    this.listFreshness?.onNotification(message.method);
  }

  keepAlive(settings: KeepaliveOptions): void {
    keepalive(() => this.pingRequest({ timeoutMs: settings.timeoutMs ?? settings.intervalMs }), {
      scheduler: this.options.scheduler,
      ...settings,
    })
      .pipe(takeUntil(this.connection.closed$))
      .subscribe({
        // A connection that closes fails the ping in flight before it reports closing: not a miss.
        next: (missed) => {
          if (missed > 0 && this.connection.state !== 'shutdown')
            this.log.warn({ missed }, 'keepalive ping unanswered');
        },
        error: (error: Error) => {
          if (this.connection.state === 'shutdown') return;
          this.log.warn({ err: error }, 'server unresponsive; closing');
          this.connection.close(error.message);
        },
      });
  }

  request<M extends Sent, P extends Params<M>>(method: M, params?: P, options?: Sending): Observable<Result<M, P>>;
  request(method: string, params?: Plain, options?: Sending): Observable<Plain>;
  request(method: string, params?: Plain, options: Sending = {}): Observable<Plain> {
    // A modern tools/call goes as callTool's: with its tool's headers, and a task it becomes followed.
    if (method === 'tools/call' && this.modern && params) return this.sendToolCall(params, options, () => {});
    return this.send(method, params, options);
  }

  /** Where every request takes its era's path. */
  private send(
    method: string,
    params: Record<string, unknown> | undefined,
    options: Sending = {},
    hooks?: RoundHooks,
  ): Observable<Record<string, unknown>> {
    if (!this.modern) return this.connection.request(method, params, options);
    return modernRequest(this.modern, method, params, options, hooks);
  }

  private pingRequest(options?: Sending): Observable<Record<string, unknown>> {
    // The modern revisions have no ping; discovery is the cheapest request every server answers.
    return this.send(this.modern ? 'server/discover' : 'ping', undefined, options);
  }

  ping(options?: Sending): Observable<void> {
    return this.pingRequest(options).pipe(map(() => undefined));
  }

  get tools$(): Observable<readonly Tool[]> {
    return (this.lazy.tools$ ??= this.cached('tools/list', () => this.listTools(), 'toolsListChanged'));
  }

  listTools(options?: Sending): Observable<Tool[]> {
    return this.listAll<Tool>('tools/list', 'tools', 'tools', options).pipe(map((tools) => this.tools.record(tools)));
  }

  knowsTools(): boolean {
    return this.tools.knows;
  }

  /** The definition of a tool, for output checks (see `ToolCallContext`). */
  toolNamed(name: string, fetchIfUnknown: boolean): Observable<Tool | undefined> {
    if (this.tools.knows || !fetchIfUnknown) return of(this.tools.named(name));
    return this.listTools().pipe(map(() => this.tools.named(name)));
  }

  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Observable<ToolCallEvent> {
    return callTool(this, name, args, options);
  }

  sendToolCall(
    params: Record<string, unknown>,
    options: Sending,
    onInputRequired: (round: number, requests: InputRequests) => void,
    onTask = (handle: Record<string, unknown>) => this.tasks.settle(handle, options.onPartialResult),
  ): Observable<Record<string, unknown>> {
    if (!this.modern) return this.tasks.plainCall(params, options);
    const attempt = (refreshed: boolean): Observable<Record<string, unknown>> =>
      defer(() => {
        const args = params.arguments;
        const headers = this.tools.headersFor(String(params.name), isRecord(args) ? args : undefined);
        // Custom Headers → Client Behavior: on HeaderMismatch, look at the tool again and retry once.
        const recover = refreshed
          ? undefined
          : (error: unknown) =>
              isHeaderMismatch(error) ? this.listTools().pipe(switchMap(() => attempt(true))) : undefined;
        return this.send('tools/call', params, withToolHeaders(options, headers), { onInputRequired, onTask, recover });
      });
    return attempt(false);
  }

  get resources$(): Observable<readonly Resource[]> {
    return (this.lazy.resources$ ??= this.cached('resources/list', () => this.listResources(), 'resourcesListChanged'));
  }

  get resourceTemplates$(): Observable<readonly ResourceTemplate[]> {
    return (this.lazy.resourceTemplates$ ??= this.cached(
      'resources/templates/list',
      () => this.listResourceTemplates(),
      'resourcesListChanged',
    ));
  }

  listResources(options?: Sending): Observable<Resource[]> {
    return this.listAll<Resource>('resources/list', 'resources', 'resources', options);
  }

  listResourceTemplates(options?: Sending): Observable<ResourceTemplate[]> {
    return this.listAll<ResourceTemplate>('resources/templates/list', 'resourceTemplates', 'resources', options);
  }

  readResource(uri: string, options?: Sending): Observable<ReadResourceResult> {
    return this.request('resources/read', { uri }, options);
  }

  watchResource(uri: string): Observable<ReadResourceResult> {
    const watcher = (this.lazy.resourceWatcher ??= createResourceWatcher({
      connection: this.connection,
      serverCapabilities: this.capabilitiesKnown ? this.serverCapabilities : undefined,
      readResource: (watched) => this.readResource(watched),
      reconnected$: this.reconnected$,
      ...(this.modern ? { hub: this.hub } : {}),
      logger: this.log,
    }));
    return watcher.watch(uri);
  }

  get prompts$(): Observable<readonly Prompt[]> {
    return (this.lazy.prompts$ ??= this.cached('prompts/list', () => this.listPrompts(), 'promptsListChanged'));
  }

  listPrompts(options?: Sending): Observable<Prompt[]> {
    return this.listAll<Prompt>('prompts/list', 'prompts', 'prompts', options);
  }

  getPrompt(name: string, args?: Record<string, string>, options?: Sending): Observable<GetPromptResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    return this.request('prompts/get', params, options);
  }

  complete(params: CompleteRequestParams, options?: Sending): Observable<CompleteResult> {
    return this.request('completion/complete', params, options);
  }

  setLoggingLevel(level: LoggingLevel, options?: Sending): Observable<void> {
    if (this.modern) {
      // Modern revisions have no logging/setLevel: the level rides in each request's _meta.
      return of(undefined).pipe(tap(() => (this.logLevel = level)));
    }
    return this.send('logging/setLevel', { level }, options).pipe(
      map((): void => {
        this.logLevel = level;
        this.lazy.levelRestore ??= restoreLevel(this.reconnected$.pipe(takeUntil(this.connection.closed$)), {
          level: () => this.logLevel,
          send: (params) => this.send('logging/setLevel', params),
          log: this.log,
        });
      }),
    );
  }

  get logMessages$(): Observable<LoggingMessageNotificationParams> {
    return (this.lazy.logMessages$ ??= this.paramsOf<LoggingMessageNotificationParams>('notifications/message'));
  }

  get elicitationComplete$(): Observable<{ readonly elicitationId: string }> {
    return (this.lazy.elicitationComplete$ ??= this.paramsOf<{ elicitationId: string }>(
      'notifications/elicitation/complete',
    ));
  }

  setRoots(roots: readonly Root[]): void {
    this.replaceRoots(roots);
    // A modern server asks for roots (input requests) whenever it needs them: nothing to tell.
    if (this.modern) return;
    if (this.options.roots === undefined) {
      this.log.warn('setRoots called, but the client was connected without roots; the server was not told');
      return;
    }
    this.connection.notify('notifications/roots/list_changed');
  }

  get tasks(): ReturnType<typeof createClientTasks> {
    return (this.lazy.tasks ??= createClientTasks(this, this.options, this.inputHandlers, this.log));
  }

  get promises(): McpClientPromises {
    return (this.lazy.promises ??= promisesOf(this));
  }

  close(reason?: string): void {
    this.connection.close(reason);
  }

  /** The `subscriptions/listen` streams of a modern client, made on first use. */
  private get hub(): SubscriptionHub {
    return (this.lazy.hub ??= new SubscriptionHub({
      request: (method, params) => this.send(method, params, LISTEN_OPTIONS),
      notifications$: this.connection.notifications$,
      closed$: this.connection.closed$,
      scheduler: this.freshness.scheduler,
      logger: this.log,
    }));
  }

  /** A self-refreshing list: on its change notification, and in a modern revision when stale. */
  private cached<T>(
    method: string,
    fetch: () => Observable<T[]>,
    topic: ListenTopic & string,
  ): Observable<readonly T[]> {
    const changed$ = this.listChanges(`notifications/${topic.replace('ListChanged', '')}/list_changed`, topic);
    const fresh = this.modern && { freshUntil: () => this.freshness.until(method), scheduler: this.options.scheduler };
    return cachedList({ fetch, changed$, ...fresh });
  }

  listChanges(method: string, filterKey: string): Observable<unknown> {
    if (!this.modern) return this.notified(method);
    // Listening starts with the acknowledgement: the refresh then covers changes made before it.
    const listening$ = this.hub.watch(filterKey).pipe(filter((event) => event.kind === 'listening'));
    return merge(this.notified(method), listening$);
  }

  private notified(method: string): Observable<JsonRpcNotification> {
    return this.connection.notifications$.pipe(filter((message) => message.method === method));
  }

  private paramsOf<T>(method: string): Observable<T> {
    return this.notified(method).pipe(map((message) => (message.params ?? {}) as T));
  }

  private listAll<T>(method: string, key: string, capability: string, options?: Sending): Observable<T[]> {
    if (this.capabilitiesKnown && !hasCapability(this.serverCapabilities, capability)) return of([]);
    const pages = this.modern ? this.freshness.track(method) : undefined;
    return paginate<Record<string, unknown>, T>({
      fetchPage: (cursor) => {
        const page$ = this.send(method, cursor === undefined ? {} : { cursor }, options);
        return pages ? page$.pipe(tap((page) => pages.page(page))) : page$;
      },
      items: (page) => (Array.isArray(page[key]) ? (page[key] as T[]) : []),
      nextCursor: (page) => page.nextCursor as string | undefined,
      maxPages: this.options.maxListPages ?? DEFAULT_MAX_LIST_PAGES,
    }).pipe(
      toArray(),
      tap({ complete: () => pages?.complete() }),
      finalize(() => pages?.end()),
    );
  }
}
