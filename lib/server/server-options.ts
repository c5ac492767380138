import type { SchedulerLike } from '../rx/rxjs';
import type { LogLevel } from '../connection/handler-events';
import type { CacheHint } from '../connection/modern';
import type { LifecycleInspector } from '../base/inspection';
import type { LoggerOption } from '../base/logger';
import type { JsonSchemaValidatorFactory } from '../validation/json-schema-validator';
import type { ServerCapabilities } from '../schema/lifecycle';
import type { ServerExtension } from './extensions';
import type { ServerMiddleware } from './middleware';
import type { RequestStateOptions } from './request-state';
import type { TasksOptions } from './tasks/task-capabilities';

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
   * the modern ones (2026-07-28) are served one by one, with no session. Leave out one family
   * to serve only the other.
   */
  readonly supportedRevisions?: readonly string[];
  /**
   * Caching hints (`ttlMs`, `cacheScope`) put on cacheable results of modern revisions, by
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
  /**
   * On a protected endpoint, the most `subscriptions/listen` streams (2026-07-28) one principal
   * (`principalOf`) may hold open at once; past it, a listen request is answered -32029 until one of
   * its streams ends. Default 100; 0 for no bound. Sessions of the handshake revisions have one
   * stream each, bounded with the sessions (`maxSessionsPerPrincipal` of the HTTP server).
   */
  readonly maxListenStreamsPerPrincipal?: number;
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
   * Middleware around every request handler, in sessions and for modern requests alike; the
   * first is the outermost (see `ServerMiddleware`). More can be added with `use`.
   */
  readonly middleware?: readonly ServerMiddleware[];
  /** Extensions to serve (see `ServerExtension`); more can be added with `extension`. */
  readonly extensions?: readonly ServerExtension[];
  /**
   * Receives the XState inspection events of the lifecycle machine of every session the server
   * connects (`initializing`, `operating`, `shutdown`; each session an actor of its own), as
   * `createActor`'s `inspect` does: a function, or an observer whose `next` is called, such as
   * `inspector.inspect` of `@statelyai/inspect` (installed by you; rxmcp does not depend on it).
   * `connect(transport, { inspect })` overrides it for one session. Requests of the modern
   * revisions build no session and are not inspected. Default: none, and no inspection work is done.
   * @example
   * import { createWebSocketInspector } from '@statelyai/inspect';
   * const inspector = createWebSocketInspector({ url: 'ws://localhost:8080' });
   * const server = createServer({ name: 'demo', version: '1.0.0', inspect: inspector.inspect });
   */
  readonly inspect?: LifecycleInspector;
}
