import type { Observable, SchedulerLike, Unsubscribable } from '../rx/rxjs';
import type { LifecycleInspector } from '../base/inspection';
import type { LoggerOption } from '../base/logger';
import type { JsonRpcNotification } from '../jsonrpc/message';
import type { ParamsOf, RequestMethod, ResultFor } from '../schema/method-map';
import type { Revision } from '../schema/revisions';
import type { SendOptions, Transport, TransportClose } from '../transport/transport';
import type { RequestHandler } from './dispatcher';
import type { LogLevel } from './handler-events';
import type { OutboundHook, RequestOptions, RequestSink } from './request-pipeline';
import type { CacheHint } from './modern';

export type { InspectionObserver, LifecycleInspectionEvent, LifecycleInspector } from '../base/inspection';

/** Which end of the protocol a connection is. */
export type Role = 'client' | 'server';

/** The coarse lifecycle state a user can observe. */
export type ConnectionState = 'initializing' | 'operating' | 'shutdown';

/** How long a server waits for the client's initialize before it gives up on the connection. */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 60_000;

/** Options of `createConnection`. */
export interface ConnectionOptions {
  readonly transport: Transport;
  readonly role: Role;
  /** Our name and version: `serverInfo` or `clientInfo` in the handshake. */
  readonly info: { readonly name: string; readonly version: string } & Record<string, unknown>;
  /** The capabilities we declare; read when the handshake runs and when a request arrives. */
  readonly capabilities?: () => Record<string, unknown>;
  /** Server only: instructions sent in the initialize result. */
  readonly instructions?: string;
  /**
   * Revisions we speak, oldest first. Default: every revision rxmcp supports. The handshake
   * revisions among them are negotiated by initialize; a server serves requests of the modern
   * ones (2026-07-28 on) as they come, and a client enters one with `useModern`.
   */
  readonly supportedRevisions?: readonly string[];
  /** Server only: caching hints for results of modern revisions, by method (see `DEFAULT_CACHE_HINTS`). */
  readonly cacheHints?: Readonly<Record<string, CacheHint>>;
  /**
   * Receives the lifecycle machine's XState inspection events, as `createActor`'s `inspect` does:
   * `@xstate.actor` once, then `@xstate.event`, `@xstate.action` and `@xstate.snapshot` as the
   * lifecycle steps (see `LifecycleRunner`). A function, or an observer whose `next` is called
   * (`inspector.inspect` of `@statelyai/inspect`). Read once, when the connection is made; without
   * it, no inspection work is done.
   * @example
   * import { createWebSocketInspector } from '@statelyai/inspect';
   * const inspector = createWebSocketInspector({ url: 'ws://localhost:8080' });
   * const connection = createConnection({ transport, role: 'client', info, inspect: inspector.inspect });
   */
  readonly inspect?: LifecycleInspector;
  /**
   * Resumes a connection from `getPersistedSnapshot()` of an earlier one (in another process, say):
   * its lifecycle state, negotiated revision and what the peer declared. Requests that were in
   * flight are not part of it.
   */
  readonly snapshot?: unknown;
  /** Client only: the revision offered in initialize. Default: the latest supported. */
  readonly protocolVersion?: Revision;
  /**
   * Request handlers by method; more can be added with `setRequestHandler`. The record is read,
   * never copied or changed, so one record can serve many connections (see `owner`).
   */
  readonly handlers?: Readonly<Record<string, RequestHandler>>;
  /** Passed to every request handler as its third argument: lets shared handlers find their session. */
  readonly owner?: unknown;
  /** Called with every valid notification from the peer, before `notifications$` emits it. */
  readonly onNotification?: (message: JsonRpcNotification) => void;
  /** Called once, when the connection has shut down, before `closed$` emits. */
  readonly onClose?: (close: TransportClose) => void;
  /**
   * Refuse locally, with `CapabilityNotSupportedError`, a request whose capability the peer did not
   * declare. Default: true for a server (sampling, elicitation, roots), false for a client.
   */
  readonly enforcePeerCapabilities?: boolean;
  /** Validate results the peer sends against the negotiated revision's schema. Default true. */
  readonly validateResults?: boolean;
  /** Default timeout of outbound requests. */
  readonly requestTimeoutMs?: number;
  /** Wraps every request sent with `request` (client middleware). Default: none, nothing in the way. */
  readonly outbound?: OutboundHook;
  /** Server only: how long to wait for initialize. Default 60 s; `Infinity` waits for ever. */
  readonly initializeTimeoutMs?: number;
  /** Decides whether a log message from a handler is sent (the server filters by the session's level). */
  readonly shouldSendLog?: (level: LogLevel) => boolean;
  readonly logger?: LoggerOption;
  /** Where timeouts and lifecycle delays are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * One MCP connection: a lifecycle actor, a correlator for the requests we send, a dispatcher for
 * the requests we serve, over one transport. Shared by client and server.
 */
export interface Connection {
  /** Unique within the process; appears in log lines. */
  readonly id: string;
  readonly role: Role;
  readonly state: ConnectionState;
  /** The lifecycle state; replays the current state to each subscriber. Completes on shutdown. */
  readonly state$: Observable<ConnectionState>;
  /** The negotiated revision, once initialize has been answered. */
  readonly revision: Revision | undefined;
  /** The capabilities the peer declared, once known. */
  readonly peerCapabilities: Record<string, unknown> | undefined;
  /** The peer's `clientInfo` or `serverInfo`, once known. */
  readonly peerInfo: Record<string, unknown> | undefined;
  /** Client only: the server's instructions, if it sent any. */
  readonly instructions: string | undefined;
  /** Hot: every valid notification from the peer, in order. Completes on shutdown. */
  readonly notifications$: Observable<JsonRpcNotification>;
  /** Emits once, when the connection has shut down, and completes; replays to late subscribers. */
  readonly closed$: Observable<TransportClose>;
  /** Requests we sent that await a response. */
  readonly pendingRequests: number;
  /** Requests from the peer that are being handled. */
  readonly inFlightRequests: number;
  /**
   * Sends a request. Cold: each subscription sends it once with a fresh id. Emits the result and
   * completes, or errors with the peer's `JsonRpcError`, a `RequestTimeoutError`, a
   * `ConnectionClosedError`, a `ProtocolError` (invalid result), or a local refusal
   * (`NotInitializedError`, `CapabilityNotSupportedError`). Unsubscribing before the response
   * sends `notifications/cancelled`. A method of the registry takes its params and emits its
   * result as the method map types them; any other takes and emits plain records.
   */
  request<M extends RequestMethod, P extends ParamsOf<M>>(
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
   * Sends a request as `request` does, delivering its result (or error) to `sink` with no
   * Observable in between: for code that forwards requests on the hot path (with client
   * middleware, the sink subscribes through it). Returns what cancels it, or undefined when `sink`
   * has already been told it failed.
   */
  startRequest(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
    sink: RequestSink,
  ): Unsubscribable | undefined;
  /** The capabilities we declare (read from the options' `capabilities`, as the handshake does). */
  capabilities(): Record<string, unknown>;
  /** Sends a notification; dropped (and logged) once the connection is closed. */
  notify(method: string, params?: Record<string, unknown>, options?: SendOptions): void;
  /**
   * Adds or replaces the handler of a request method: a method of the registry's handler gets its
   * params and answers its result as the method map types them.
   */
  setRequestHandler<M extends RequestMethod>(method: M, handler: RequestHandler<M>): void;
  /** Adds or replaces the handler of any request method, which takes and answers plain records. */
  setRequestHandler(method: string, handler: RequestHandler): void;
  /** Removes the handler of a request method. */
  removeRequestHandler(method: string): void;
  /**
   * Client only: speaks the modern `revision` (2026-07-28 on) from now on, instead of running
   * the handshake: every request carries the revision, our capabilities and info in `_meta`.
   * `server` is what `server/discover` said, when the client asked. Throws when the revision is
   * not one we speak, or when the connection has already initialized or closed.
   */
  useModern(
    revision: string,
    server?: {
      readonly capabilities?: Record<string, unknown>;
      readonly serverInfo?: Record<string, unknown>;
      readonly instructions?: string;
    },
  ): void;
  /**
   * Client only: runs the handshake (initialize, then notifications/initialized). Cold; emits the
   * server's InitializeResult and completes once the connection is operating. Errors with
   * `UnsupportedProtocolVersionError` (and closes) when the server answers a revision we do not speak.
   */
  initialize(): Observable<Record<string, unknown>>;
  /** The lifecycle's snapshot in a form that survives JSON: `snapshot` in the options of a later connection restores it. */
  getPersistedSnapshot(): unknown;
  /** Closes the connection: pending requests fail, handlers in flight are cancelled. Idempotent. */
  close(reason?: string): void;
}
