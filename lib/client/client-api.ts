import type { ClientMiddleware } from './middleware';
import type { LifecycleInspector } from '../base/inspection';
import type { LoggerOption } from '../base/logger';
import type { Observable, SchedulerLike } from '../rx/rxjs';
import type { Connection, ConnectionState } from '../connection/connection';
import type { RequestOptions } from '../connection/request-pipeline';
import type { CompleteRequestParams, CompleteResult } from '../schema/completion';
import type { Implementation, ServerCapabilities } from '../schema/lifecycle';
import type { LoggingLevel, LoggingMessageNotificationParams } from '../schema/logging';
import type { ClientRequestMap, ParamsOf, ResultFor } from '../schema/method-map';
import type { GetPromptResult, Prompt } from '../schema/prompts';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../schema/resources';
import type { Revision } from '../schema/revisions';
import type { Root } from '../schema/roots';
import type { CallToolResult, Tool } from '../schema/tools';
import type { JsonSchemaValidatorFactory } from '../validation/json-schema-validator';
import type { TransportClose } from '../transport/transport';
import type { Reconnection } from '../transport/http-client/streamable-http/session-renewal';
import type { KeepaliveOptions } from './keepalive';
import type { ElicitationHandler, ElicitationOptions, RootsHandler, SamplingHandler } from './server-requests';
import type { CallToolOptions, ToolCallEvent } from './tool-call';
import type { McpClientTasks } from './tasks/task-api';

/** A protocol revision a client may speak: a handshake one, or a modern one (2026-07-28 on). */
export type ClientRevision = Revision | '2026-07-28';

/**
 * The era of the server (spec 2026-07-28: Versioning → Terminology): `modern` when requests carry
 * their revision in `_meta` and there is no handshake (2026-07-28 on), `legacy` when an
 * `initialize` handshake opened a session (2025-11-25 and earlier).
 */
export type ServerEra = 'modern' | 'legacy';

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
  /**
   * Extensions the client supports, by identifier, with their settings (`{}` for none): declared
   * under `capabilities.extensions` to a modern server and under `capabilities.experimental`
   * in the `initialize` handshake, the place its revisions have for them.
   */
  readonly extensions?: Readonly<Record<string, Record<string, unknown>>>;
  /**
   * Declares partial tool results (SEP-2998, experimental; the `io.modelcontextprotocol/partial-results`
   * extension): with a server that declares them too, `callTool` emits each piece of a tool's
   * output as a `partial` event before its result. Default false.
   */
  readonly partialResults?: boolean;
  /** Answers the server's `sampling/createMessage`; declares the `sampling` capability. */
  readonly sampling?: SamplingHandler;
  /** Answers the server's `elicitation/create`; declares the `elicitation` capability. */
  readonly elicitation?: ElicitationHandler | ElicitationOptions;
  /**
   * The roots offered to the server (`roots/list`); declares `roots.listChanged`. See `setRoots`.
   * Or a handler that answers each `roots/list` (a proxy's router asks its own caller).
   */
  readonly roots?: readonly Root[] | RootsHandler;
  /**
   * Which revision to speak. `'auto'` (the default) asks the server first with `server/discover`
   * carrying the newest modern revision: a modern server (a `DiscoverResult`, or a modern
   * error naming what it supports) is spoken to in the modern way in a revision both support; anything
   * else (another error, an HTTP refusal, no answer within `discoverTimeoutMs`) means a legacy
   * server, which gets the `initialize` handshake offering the newest handshake revision. A
   * handshake revision (e.g. `'2025-11-25'`) skips the probe and offers it in `initialize`; a
   * modern one (`'2026-07-28'`) accepts no legacy server (`LegacyServerError`).
   */
  readonly protocolVersion?: 'auto' | ClientRevision;
  /** Revisions accepted from the server. Default: all that rxmcp supports. */
  readonly supportedRevisions?: readonly string[];
  /** How long the `server/discover` probe waits before deciding the server is legacy. Default 5 s. */
  readonly discoverTimeoutMs?: number;
  /**
   * Modern revisions: how many times one request may be answered `input_required` before it
   * fails with `InputRoundsExceededError`. Default 10.
   */
  readonly maxInputRounds?: number;
  /** Default timeout of requests. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Refuse locally a request whose capability the server did not declare. Default false. */
  readonly enforceServerCapabilities?: boolean;
  /**
   * Enables the tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28 on): the client
   * declares it in `capabilities.extensions`, so the server may answer a tool call with a task,
   * which `callTool` then follows to its result and `client.tasks` exposes. In a handshake revision
   * (2025-11-25) the client declares the `tasks` capability instead, for the requests it has
   * handlers for, and takes the server's task-augmented sampling and elicitation requests as tasks
   * (kept for the asked `ttl`, at most an hour). Default false: nothing declared. Calling the
   * server's tools as tasks in 2025-11-25 needs no option (see `client.tasks`).
   */
  readonly tasks?: boolean;
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
  /** Where timeouts, the probe and keepalive are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * The client's own logs: a pino logger or a console-like one (`console`, or any object with
   * `error`, `warn` and `info`, which gets info and above). Silent by default.
   */
  readonly logger?: LoggerOption;
  /**
   * Middleware around every request the client sends, the first outermost (see
   * `ClientMiddleware`). Default: none, and nothing in the request's way.
   */
  readonly middleware?: readonly ClientMiddleware[];
  /**
   * Receives the XState inspection events of the client's lifecycle machine (`initializing`, then
   * `operating` or `modern`, then `shutdown`), as `createActor`'s `inspect` does: a function, or
   * an observer whose `next` is called, such as `inspector.inspect` of `@statelyai/inspect`
   * (installed by you; rxmcp does not depend on it). Nothing is inspected before the era is known:
   * the connection, and its lifecycle, start after the `server/discover` probe. Default: none, and
   * no inspection work is done.
   * @example
   * import { createWebSocketInspector } from '@statelyai/inspect';
   * const inspector = createWebSocketInspector({ url: 'ws://localhost:8080' });
   * const client = await connect(transport, { name: 'demo-client', version: '1.0.0', inspect: inspector.inspect });
   */
  readonly inspect?: LifecycleInspector;
}

/** The Promise forms of the client's calls, for code that wants one answer and no stream. */
export interface McpClientPromises {
  /** Resolves with the tool's result (no progress events; use `onProgress` for those). */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult>;
  /**
   * A tool call's events as an async iterable (`for await`): progress, partial results and input
   * rounds, then the result. Leaving the loop early cancels the call. A reader that falls more
   * than 1,000 events behind loses the oldest partial results (best effort), never the result.
   */
  streamTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): AsyncIterable<ToolCallEvent>;
  /** Every tool, across pages, fetched now. */
  listTools(options?: RequestOptions): Promise<Tool[]>;
  /** Every resource, across pages, fetched now. */
  listResources(options?: RequestOptions): Promise<Resource[]>;
  /** Every resource template, across pages, fetched now. */
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]>;
  /** Every prompt, across pages, fetched now. */
  listPrompts(options?: RequestOptions): Promise<Prompt[]>;
  /** Reads a resource once. */
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>;
  /** Gets a prompt with its arguments filled in. */
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult>;
  /** Asks for completions of a prompt or resource-template argument. */
  complete(params: CompleteRequestParams, options?: RequestOptions): Promise<CompleteResult>;
  /** Sets the least severe level of the log messages the server sends. */
  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void>;
  /** Checks the server answers. */
  ping(options?: RequestOptions): Promise<void>;
}

/**
 * A connected MCP client. It exists only once the era is known (and, for a legacy server, the
 * handshake is done). The API is the same in both eras. Every call returns a cold Observable:
 * subscribing sends the request, unsubscribing before the answer cancels it, a JSON-RPC error
 * arrives as a `JsonRpcError`, an answer that does not match the revision's schema as a
 * `ProtocolError` (failing that call only), and a connection that closes fails every pending call
 * with `ConnectionClosedError`. `promises` has the Promise forms.
 */
export interface McpClient {
  readonly connection: Connection;
  /** The negotiated protocol revision. */
  readonly revision: ClientRevision;
  /** `modern` (modern, 2026-07-28 on) or `legacy` (initialize handshake). */
  readonly era: ServerEra;
  /** The server's identity: from `initialize`, or from `server/discover` (empty if it said none). */
  readonly serverInfo: Implementation;
  readonly serverCapabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  /** `operating` until the connection closes, then `shutdown`. */
  readonly state: ConnectionState;
  /** Replays the current state; completes on shutdown. */
  readonly state$: Observable<ConnectionState>;
  /** Emits once when the connection has closed (why, and the error if it failed), then completes. */
  readonly closed$: Observable<TransportClose>;
  /**
   * Emits each time the Streamable HTTP transport started a new session in place of one the server
   * forgot (it restarted; see the transport's `reinitialize`), once the new session is open. By
   * then the client has asked again for its resource subscriptions (`watchResource`) and its log
   * level (`setLoggingLevel`). Calls in flight on the lost session fail with
   * `REQUEST_OUTCOME_UNKNOWN` (they may have run); calls the server refused with the 404 are sent
   * again. Hot; never emits for the other transports; completes when the transport closes.
   */
  readonly reconnected$: Observable<Reconnection>;
  /**
   * Sends any request. Cold. In a modern revision the request carries the client's `_meta`,
   * and `input_required` answers are handled as for `callTool`; a `tools/call` also carries its
   * tool's `Mcp-Param` headers, and a task the server answers it with (tasks extension) is
   * followed to its result. A method of the registry takes its params and emits its result as the
   * method map types them; any other, plain records.
   */
  request<M extends keyof ClientRequestMap, P extends ParamsOf<M>>(
    method: M,
    params?: P,
    options?: RequestOptions,
  ): Observable<ResultFor<M, P>>;
  /** Sends a request of any method, with plain records for its params and result (see above). */
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Observable<Record<string, unknown>>;
  /**
   * Checks the server answers (`ping`; `server/discover` in the modern revisions, which have no
   * ping). Cold, like every call: emits `undefined` once when the answer arrives, then completes.
   */
  ping(options?: RequestOptions): Observable<void>;

  /**
   * Every tool of the server, across pages, kept up to date: fetched on first subscription,
   * replayed to later subscribers, fetched again when the server says the list changed
   * (`notifications/tools/list_changed`; in a modern revision heard on a `subscriptions/listen`
   * stream while anyone is subscribed) and, in a modern revision, when a later subscriber
   * arrives after the list's `ttlMs` ran out. Stays cached when nobody listens; completes when the
   * connection closes. `[]` when the server has no `tools` capability.
   */
  readonly tools$: Observable<readonly Tool[]>;
  /**
   * Every tool, across pages, fetched now. Cold. `[]` without the `tools` capability. In a
   * modern revision, tools whose `x-mcp-header` annotations break the spec's rules are left
   * out (with a warning in the log).
   */
  listTools(options?: RequestOptions): Observable<Tool[]>;
  /**
   * Calls a tool. Cold: emits `{ type: 'progress', ... }` events while it runs and, in a modern
   * revision, `{ type: 'input_required', round, requests }` each time the server asks for input
   * (answered with the client's sampling, elicitation and roots handlers before the call is sent
   * again), then one `{ type: 'result', result }` and completes; `.pipe(toolResult())` keeps the
   * result only. `structuredContent` is checked against the tool's `outputSchema` (the tool list
   * is fetched once when needed), failing with `ProtocolError` on a mismatch.
   */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Observable<ToolCallEvent>;

  /**
   * Each time the server says one of its lists changed with notification `method` (an
   * extension's, such as `notifications/events/list_changed`): in a modern revision heard on a
   * `subscriptions/listen` stream whose filter asks for `filterKey`, open while anyone is
   * subscribed, which also emits once the server acknowledged the key (a refresh then covers what
   * changed before). Hot; completes when the connection closes.
   */
  listChanges(method: string, filterKey: string): Observable<unknown>;

  /** Like `tools$`, for resources (refreshed on `notifications/resources/list_changed`). */
  readonly resources$: Observable<readonly Resource[]>;
  /** Like `tools$`, for resource templates (refreshed on `notifications/resources/list_changed`). */
  readonly resourceTemplates$: Observable<readonly ResourceTemplate[]>;
  /** Every resource, across pages, fetched now. Cold. */
  listResources(options?: RequestOptions): Observable<Resource[]>;
  /** Every resource template, across pages, fetched now. Cold. */
  listResourceTemplates(options?: RequestOptions): Observable<ResourceTemplate[]>;
  /** Reads a resource once. Cold. */
  readResource(uri: string, options?: RequestOptions): Observable<ReadResourceResult>;
  /**
   * The contents of a resource as they change. The first subscriber subscribes to its updates
   * (`resources/subscribe`; in a modern revision, the URI joins the client's
   * `subscriptions/listen` filter) and reads the resource; each `notifications/resources/updated`
   * for the URI reads it again. Later subscribers share the subscription and get the latest
   * contents at once; when the last one unsubscribes, the subscription ends. Errors with
   * `CapabilityNotSupportedError` when the server cannot subscribe; completes when the connection
   * closes.
   */
  watchResource(uri: string): Observable<ReadResourceResult>;

  /** Like `tools$`, for prompts (refreshed on `notifications/prompts/list_changed`). */
  readonly prompts$: Observable<readonly Prompt[]>;
  /** Every prompt, across pages, fetched now. Cold. */
  listPrompts(options?: RequestOptions): Observable<Prompt[]>;
  /** Gets a prompt with its arguments filled in. Cold. */
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Observable<GetPromptResult>;

  /** Asks for completions of a prompt or resource-template argument. Cold. */
  complete(params: CompleteRequestParams, options?: RequestOptions): Observable<CompleteResult>;
  /**
   * Sets the level of the log messages the server sends. Cold; emits once the server agreed. In a
   * modern revision nothing is sent: every later request carries the level in its `_meta`.
   */
  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Observable<void>;
  /** Hot: the server's log messages (`notifications/message`). Completes when the connection closes. */
  readonly logMessages$: Observable<LoggingMessageNotificationParams>;
  /** Hot: `notifications/elicitation/complete` (URL-mode elicitations finished out of band; 2025-11-25). */
  readonly elicitationComplete$: Observable<{ readonly elicitationId: string }>;

  /**
   * Replaces the roots offered to the server: `notifications/roots/list_changed` tells a legacy
   * server; a modern revision asks for roots in each request that needs them.
   */
  setRoots(roots: readonly Root[]): void;
  /** Tool calls the server runs as tasks, followed by polling, in both designs (see `McpClientTasks`). */
  readonly tasks: McpClientTasks;
  readonly promises: McpClientPromises;
  /** Closes the connection; pending calls fail with `ConnectionClosedError`. Idempotent. */
  close(reason?: string): void;
}
