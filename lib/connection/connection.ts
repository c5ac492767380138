import { asyncScheduler, BehaviorSubject, Observable, ReplaySubject, Subject } from 'rxjs';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { Logger } from 'pino';
import { createActor } from 'xstate';
import type { AnyActorRef } from 'xstate';
import { classify } from '../jsonrpc/classify';
import type { Classified } from '../jsonrpc/classify';
import {
  CapabilityNotSupportedError,
  ConnectionClosedError,
  ErrorCode,
  JsonRpcError,
  NotInitializedError,
  ProtocolError,
  UnsupportedProtocolVersionError,
} from '../jsonrpc/errors';
import {
  errorResponse,
  notification as makeNotification,
  resultResponse,
} from '../jsonrpc/message';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../jsonrpc/message';
import { createRequestIdAllocator } from '../jsonrpc/request-id';
import { describeIssues, toValidationIssues } from '../schema/issues';
import { methodDefinition, paramsSchemaFor, resultSchemaFor } from '../schema/methods';
import { featuresOf, isSupportedRevision, LATEST_REVISION, SUPPORTED_REVISIONS } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import { MalformedFrame } from '../transport/transport';
import type { SendOptions, Transport, TransportClose } from '../transport/transport';
import { hasCapability } from './capabilities';
import { clientLifecycle } from './client-lifecycle.machine';
import { createCorrelator } from './correlator';
import type { ProgressParams } from './correlator';
import { createDispatcher } from './dispatcher';
import type { Answer, RequestHandler } from './dispatcher';
import type { LogLevel } from './handler-events';
import { schedulerClock } from './lifecycle-clock';
import { DEFAULT_REQUEST_TIMEOUT_MS, sendRequest } from './request-pipeline';
import type { RequesterDeps, RequestOptions } from './request-pipeline';
import { serverLifecycle } from './server-lifecycle.machine';
import { childLogger } from '../jsonrpc/logger';

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
  /** Revisions we speak, oldest first. Default: every revision rxmcp supports. */
  readonly supportedRevisions?: readonly Revision[];
  /** Client only: the revision offered in initialize. Default: the latest supported. */
  readonly protocolVersion?: Revision;
  /** Request handlers by method; more can be added with `setRequestHandler`. */
  readonly handlers?: Readonly<Record<string, RequestHandler>>;
  /**
   * Refuse locally, with `CapabilityNotSupportedError`, a request whose capability the peer did not
   * declare. Default: true for a server (sampling, elicitation, roots), false for a client.
   */
  readonly enforcePeerCapabilities?: boolean;
  /** Validate results the peer sends against the negotiated revision's schema. Default true. */
  readonly validateResults?: boolean;
  /** Default timeout of outbound requests. */
  readonly requestTimeoutMs?: number;
  /** Server only: how long to wait for initialize. Default 60 s; `Infinity` waits for ever. */
  readonly initializeTimeoutMs?: number;
  /** Decides whether a log message from a handler is sent (the server filters by the session's level). */
  readonly shouldSendLog?: (level: LogLevel) => boolean;
  readonly logger?: Logger;
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
   * sends `notifications/cancelled`.
   */
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Observable<Record<string, unknown>>;
  /** Sends a notification; dropped (and logged) once the connection is closed. */
  notify(method: string, params?: Record<string, unknown>, options?: SendOptions): void;
  /** Adds or replaces the handler of a request method. */
  setRequestHandler(method: string, handler: RequestHandler): void;
  removeRequestHandler(method: string): void;
  /**
   * Client only: runs the handshake (initialize, then notifications/initialized). Cold; emits the
   * server's InitializeResult and completes once the connection is operating. Errors with
   * `UnsupportedProtocolVersionError` (and closes) when the server answers a revision we do not speak.
   */
  initialize(): Observable<Record<string, unknown>>;
  /** Closes the connection: pending requests fail, handlers in flight are cancelled. Idempotent. */
  close(reason?: string): void;
}

let connectionCount = 0;

interface LifecycleFlags {
  acceptsInitialize: boolean;
  acceptsRequests: boolean;
  maySendRequests: boolean;
  maySendInitialize: boolean;
  closed: boolean;
}

type Reply = (response: JsonRpcResponse | null) => void;

/**
 * Creates the connection actor for a transport. It starts reading the transport at once; a server
 * connection then waits for initialize, a client connection for `initialize()`.
 */
export function createConnection(options: ConnectionOptions): Connection {
  const { transport, role } = options;
  const supported = options.supportedRevisions ?? SUPPORTED_REVISIONS;
  const scheduler = options.scheduler ?? asyncScheduler;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const enforcePeerCapabilities = options.enforcePeerCapabilities ?? role === 'server';
  const validateResults = options.validateResults ?? true;
  const capabilities = options.capabilities ?? (() => ({}));
  const id = `${role[0]}${++connectionCount}`;
  const log = childLogger(options.logger, { component: 'connection', connectionId: id, role });
  const traceEnabled = log.isLevelEnabled('trace');
  const handlers = new Map<string, RequestHandler>(Object.entries(options.handlers ?? {}));
  const ids = createRequestIdAllocator();
  const correlator = createCorrelator();
  const notifications$ = new Subject<JsonRpcNotification>();
  const state$ = new BehaviorSubject<ConnectionState>('initializing');
  const closed$ = new ReplaySubject<TransportClose>(1);
  const flags: LifecycleFlags = {
    acceptsInitialize: false,
    acceptsRequests: false,
    maySendRequests: false,
    maySendInitialize: false,
    closed: false,
  };
  let revision: Revision | undefined;
  let peerCapabilities: Record<string, unknown> | undefined;
  let peerInfo: Record<string, unknown> | undefined;
  let instructions: string | undefined;
  let closeReason = 'not closed';
  // Filled in at the end of setup; shutdown may run before that (a transport already closed).
  const wiring: { incoming?: Subscription; transportClosed?: Subscription } = {};

  const clock = schedulerClock(scheduler);
  const actor: AnyActorRef =
    role === 'server'
      ? createActor(serverLifecycle, {
          input: { supported, initializeTimeoutMs: options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS },
          clock,
        })
      : createActor(clientLifecycle, { input: { supported }, clock });

  function send(message: JsonRpcMessage | readonly JsonRpcMessage[], sendOptions?: SendOptions): void {
    if (traceEnabled) log.trace({ message }, 'message out');
    transport.send(message, sendOptions);
  }

  const dispatcher = createDispatcher(
    {
      notify: (method, params, relatedRequestId) => notify(method, params, { relatedRequestId }),
      log: (level, data, loggerName, relatedRequestId) => {
        if (options.shouldSendLog && !options.shouldSendLog(level)) return;
        const params: Record<string, unknown> = { level, data };
        if (loggerName !== undefined) params.logger = loggerName;
        notify('notifications/message', params, { relatedRequestId });
      },
      request: (method, params, nested, relatedRequestId) =>
        request(method, params, { timeoutMs: nested?.timeoutMs, signal: nested?.signal, relatedRequestId }),
    },
    log,
  );

  // ---- lifecycle -------------------------------------------------------------------------------

  const lifecycleSubscription = actor.subscribe((snapshot) => {
    flags.acceptsInitialize = snapshot.hasTag('accepts-initialize');
    flags.acceptsRequests = snapshot.hasTag('accepts-requests');
    flags.maySendRequests = snapshot.hasTag('may-send-requests');
    flags.maySendInitialize = snapshot.hasTag('may-send-initialize');
    if (log.isLevelEnabled('debug')) log.debug({ state: snapshot.value }, 'lifecycle transition');
    if (snapshot.hasTag('closed')) {
      shutdown(String(snapshot.context.closeReason ?? 'closed'));
      return;
    }
    const next: ConnectionState = snapshot.hasTag('may-send-requests') ? 'operating' : 'initializing';
    if (state$.value !== next) state$.next(next);
  });

  function shutdown(reason: string, error?: Error): void {
    if (flags.closed) return;
    flags.closed = true;
    flags.acceptsRequests = flags.maySendRequests = flags.acceptsInitialize = flags.maySendInitialize = false;
    closeReason = reason;
    log.info({ reason }, 'connection closed');
    actor.send({ type: 'local.close', reason });
    correlator.failAll((method, requestId) => new ConnectionClosedError(reason, { method, id: requestId }, { cause: error }));
    dispatcher.cancelAll(`connection closed: ${reason}`);
    wiring.incoming?.unsubscribe();
    wiring.transportClosed?.unsubscribe();
    lifecycleSubscription.unsubscribe();
    actor.stop();
    transport.close(reason);
    notifications$.complete();
    state$.next('shutdown');
    state$.complete();
    closed$.next(error ? { reason, error } : { reason });
    closed$.complete();
  }

  // ---- inbound ---------------------------------------------------------------------------------

  function onFrame(frame: unknown): void {
    if (frame instanceof MalformedFrame) {
      log.warn({ reason: frame.reason }, 'frame is not JSON');
      send(errorResponse(null, JsonRpcError.parseError(frame.reason).toJSON()));
      return;
    }
    if (traceEnabled) log.trace({ message: frame }, 'message in');
    const classified = classify(frame);
    if (classified.kind === 'batch') onBatch(classified.messages);
    else if (failMalformedResponse(frame, classified)) return;
    else onMessage(classified, (response) => {
      if (response) send(response, response.id === null ? undefined : { relatedRequestId: response.id });
    });
  }

  /** JSON-RPC batches exist only in 2025-03-26 (Basic → Messages); elsewhere an array is refused. */
  function onBatch(messages: readonly unknown[]): void {
    if (revision === undefined || !featuresOf(revision).batching) {
      log.warn({ size: messages.length, revision }, 'batch refused');
      const why = revision === undefined
        ? 'JSON-RPC batches are not accepted before initialization (and initialize may not be batched)'
        : `JSON-RPC batches are not supported by protocol revision ${revision}`;
      send(errorResponse(null, JsonRpcError.invalidRequest(why).toJSON()));
      return;
    }
    if (messages.length === 0) {
      send(errorResponse(null, JsonRpcError.invalidRequest('empty batch').toJSON()));
      return;
    }
    const responses: JsonRpcResponse[] = [];
    let outstanding = 0;
    let scanned = false;
    const flush = () => {
      if (scanned && outstanding === 0 && responses.length > 0) send(responses);
    };
    for (const item of messages) {
      const classified: Classified = Array.isArray(item)
        ? { kind: 'invalid', reason: 'a batch may not contain a batch', id: null }
        : classify(item);
      if (failMalformedResponse(item, classified)) continue;
      const answers = classified.kind === 'request' || classified.kind === 'invalid';
      if (answers) outstanding++;
      onMessage(classified, (response) => {
        if (response) responses.push(response);
        outstanding--;
        flush();
      });
    }
    scanned = true;
    flush();
  }

  /**
   * A frame shaped like a response (no method; a result or an error) that is not a valid one, for
   * a request we await: that request fails with a ProtocolError naming the problem, and nothing
   * else is affected. Responses are never answered. True when handled here.
   */
  function failMalformedResponse(frame: unknown, classified: Classified): boolean {
    if (classified.kind !== 'invalid' || classified.id === null) return false;
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame) || 'method' in frame) return false;
    if (!('result' in frame) && !('error' in frame)) return false;
    const { reason } = classified;
    const peer = role === 'server' ? 'client' : 'server';
    const failed = correlator.fail(classified.id, (method) => new ProtocolError(`Malformed response to ${method} from the ${peer}: ${reason}`));
    if (failed) log.warn({ id: classified.id, reason }, 'malformed response');
    return failed;
  }

  function onMessage(classified: Classified, reply: Reply): void {
    switch (classified.kind) {
      case 'request':
        onRequest(classified.message, reply);
        return;
      case 'notification':
        onNotification(classified.message);
        return;
      case 'result':
      case 'error':
        if (!correlator.settle(classified.message)) {
          log.warn({ id: classified.message.id }, 'response to no request in flight (late, cancelled or unknown id)');
        }
        return;
      case 'invalid':
        log.warn({ reason: classified.reason }, 'invalid JSON-RPC envelope');
        reply(errorResponse(classified.id, JsonRpcError.invalidRequest(classified.reason).toJSON()));
        return;
      case 'batch':
        reply(errorResponse(null, JsonRpcError.invalidRequest('a batch may not contain a batch').toJSON()));
    }
  }

  function refuse(request: JsonRpcRequest, error: JsonRpcError, reply: Reply): void {
    reply(errorResponse(request.id, error.toJSON()));
  }

  function onRequest(request: JsonRpcRequest, reply: Reply): void {
    const { method } = request;
    if (flags.closed) return;
    if (method === 'ping') {
      reply(resultResponse(request.id, {}));
      return;
    }
    if (method === 'initialize' && role === 'server') {
      onInitialize(request, reply);
      return;
    }
    if (!flags.acceptsRequests) {
      log.warn({ id: request.id, method }, 'request before initialization');
      refuse(
        request,
        new JsonRpcError(
          ErrorCode.InvalidRequest,
          role === 'server'
            ? `Invalid request: ${method} arrived before initialization; send initialize first`
            : `Invalid request: ${method} arrived before the client finished initializing`,
        ),
        reply,
      );
      return;
    }
    const handler = handlers.get(method);
    const negotiated = revision ?? LATEST_REVISION;
    const definition = methodDefinition(method, negotiated);
    if (!handler || (definition && definition.kind !== 'request')) {
      refuse(request, JsonRpcError.methodNotFound(method), reply);
      return;
    }
    if (definition?.capability && !hasCapability(capabilities(), definition.capability)) {
      refuse(request, JsonRpcError.methodNotFound(method, `the ${definition.capability} capability is not declared`), reply);
      return;
    }
    let params = request.params ?? {};
    if (definition) {
      const parsed = paramsSchemaFor(method, negotiated)?.safeParse(params);
      if (parsed && !parsed.success) {
        refuse(request, JsonRpcError.invalidParams(toValidationIssues(parsed.error)), reply);
        return;
      }
      if (parsed) params = parsed.data as Record<string, unknown>;
    }
    dispatcher.dispatch(request, params, handler, negotiated, (answer: Answer) => {
      if (answer === null) reply(null);
      else if ('error' in answer) reply(errorResponse(request.id, answer.error));
      else reply(resultResponse(request.id, answer.result));
    });
  }

  function onInitialize(request: JsonRpcRequest, reply: Reply): void {
    if (!flags.acceptsInitialize) {
      refuse(request, JsonRpcError.invalidRequest('the session is already initialized'), reply);
      return;
    }
    const parsed = paramsSchemaFor('initialize', LATEST_REVISION)?.safeParse(request.params ?? {});
    if (parsed && !parsed.success) {
      refuse(request, JsonRpcError.invalidParams(toValidationIssues(parsed.error)), reply);
      return;
    }
    const params = (parsed?.data ?? request.params) as {
      protocolVersion: string;
      capabilities: Record<string, unknown>;
      clientInfo: Record<string, unknown>;
    };
    actor.send({
      type: 'peer.initialize',
      protocolVersion: params.protocolVersion,
      capabilities: params.capabilities,
      clientInfo: params.clientInfo,
    });
    const context = actor.getSnapshot().context as { revision: Revision };
    revision = context.revision;
    peerCapabilities = params.capabilities;
    peerInfo = params.clientInfo;
    transport.setProtocolVersion?.(revision);
    log.info({ revision, requested: params.protocolVersion, client: peerInfo }, 'initialized');
    const result: Record<string, unknown> = {
      protocolVersion: revision,
      capabilities: capabilities(),
      serverInfo: options.info,
    };
    if (options.instructions !== undefined) result.instructions = options.instructions;
    reply(resultResponse(request.id, result));
  }

  function onNotification(message: JsonRpcNotification): void {
    const { method } = message;
    const negotiated = revision ?? LATEST_REVISION;
    let params = message.params ?? {};
    if (methodDefinition(method, negotiated)) {
      const parsed = paramsSchemaFor(method, negotiated)?.safeParse(params);
      if (parsed && !parsed.success) {
        log.warn({ method, problem: describeIssues(toValidationIssues(parsed.error)) }, 'invalid notification dropped');
        return;
      }
      if (parsed) params = parsed.data as Record<string, unknown>;
    }
    switch (method) {
      case 'notifications/initialized':
        if (role === 'server') actor.send({ type: 'peer.initialized' });
        break;
      case 'notifications/cancelled':
        dispatcher.cancel(params.requestId as RequestId, params.reason as string | undefined);
        break;
      case 'notifications/progress':
        correlator.progress(params.progressToken as RequestId, params as unknown as ProgressParams);
        break;
    }
    notifications$.next(params === message.params ? message : { ...message, params });
  }

  // ---- outbound --------------------------------------------------------------------------------

  function outboundRefusal(method: string): Error | undefined {
    if (flags.closed) return new ConnectionClosedError(closeReason, { method });
    if (method === 'ping') return undefined;
    if (!flags.maySendRequests) return new NotInitializedError(method);
    if (enforcePeerCapabilities && revision) {
      const capability = methodDefinition(method, revision)?.capability;
      if (capability && !hasCapability(peerCapabilities, capability)) {
        return new CapabilityNotSupportedError(capability, method, role === 'server' ? 'client' : 'server');
      }
    }
    return undefined;
  }

  function validateResult(method: string, result: Record<string, unknown>, taskAugmented: boolean): Record<string, unknown> {
    if (!validateResults) return result;
    // A task-augmented request (2025-11-25) is answered with a CreateTaskResult instead.
    const schema = resultSchemaFor(method, revision ?? LATEST_REVISION, { taskAugmented });
    if (!schema) return result;
    const parsed = schema.safeParse(result);
    if (parsed.success) return parsed.data as Record<string, unknown>;
    const problem = describeIssues(toValidationIssues(parsed.error));
    throw new ProtocolError(`Invalid result for ${method} from the ${role === 'server' ? 'client' : 'server'}: ${problem}`);
  }

  const requester: RequesterDeps = {
    ids,
    correlator,
    scheduler,
    requestTimeoutMs,
    refusal: outboundRefusal,
    validate: validateResult,
    send,
    notify,
  };

  function request(
    method: string,
    params?: Record<string, unknown>,
    requestOptions: RequestOptions = {},
  ): Observable<Record<string, unknown>> {
    return sendRequest(requester, method, params, requestOptions, true);
  }

  function notify(method: string, params?: Record<string, unknown>, sendOptions?: SendOptions): void {
    if (flags.closed) {
      log.debug({ method }, 'notification dropped: connection closed');
      return;
    }
    send(makeNotification(method, params), sendOptions);
  }

  function initialize(): Observable<Record<string, unknown>> {
    return new Observable<Record<string, unknown>>((subscriber) => {
      if (role !== 'client') {
        subscriber.error(new Error('initialize() is for client connections; a server answers initialize'));
        return undefined;
      }
      if (flags.closed) {
        subscriber.error(new ConnectionClosedError(closeReason, { method: 'initialize' }));
        return undefined;
      }
      if (!flags.maySendInitialize) {
        subscriber.error(new Error('initialize() may be called once per connection'));
        return undefined;
      }
      actor.send({ type: 'local.initialize' });
      const params = {
        protocolVersion: options.protocolVersion ?? supported.at(-1) ?? LATEST_REVISION,
        capabilities: capabilities(),
        clientInfo: options.info,
      };
      // Lifecycle → Initialization: the client MUST NOT cancel its initialize request.
      return sendRequest(requester, 'initialize', params, {}, false).subscribe({
        next: (result) => {
          const version = String(result.protocolVersion);
          if (!isSupportedRevision(version) || !supported.includes(version)) {
            // Lifecycle → Version Negotiation: a client that cannot speak the answer disconnects.
            const error = new UnsupportedProtocolVersionError(version, supported);
            shutdown(error.message, error);
            subscriber.error(error);
            return;
          }
          revision = version;
          peerCapabilities = result.capabilities as Record<string, unknown>;
          peerInfo = result.serverInfo as Record<string, unknown>;
          instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
          transport.setProtocolVersion?.(version);
          notify('notifications/initialized');
          actor.send({
            type: 'peer.initializeResult',
            protocolVersion: version,
            capabilities: peerCapabilities,
            serverInfo: peerInfo,
            instructions,
          });
          log.info({ revision, server: peerInfo }, 'initialized');
          subscriber.next(result);
          subscriber.complete();
        },
        error: (error: unknown) => {
          const reason = `initialize failed: ${error instanceof Error ? error.message : String(error)}`;
          actor.send({ type: 'peer.initializeFailed', reason });
          subscriber.error(error);
        },
      });
    });
  }

  // ---- wiring ----------------------------------------------------------------------------------

  actor.start();
  wiring.transportClosed = transport.closed$.subscribe((close) => shutdown(close.reason, close.error));
  if (!flags.closed) {
    wiring.incoming = transport.incoming$.subscribe({
      next: onFrame,
      // closed$ carries the reason and any error; some transports complete incoming$ just before
      // it, so wait a microtask before falling back to a generic reason.
      complete: () => queueMicrotask(() => shutdown('transport ended')),
    });
  }
  log.info('connection opened');

  return {
    id,
    role,
    get state() {
      return flags.closed ? 'shutdown' : state$.value;
    },
    state$: state$.asObservable(),
    get revision() {
      return revision;
    },
    get peerCapabilities() {
      return peerCapabilities;
    },
    get peerInfo() {
      return peerInfo;
    },
    get instructions() {
      return instructions;
    },
    notifications$: notifications$.asObservable(),
    closed$: closed$.asObservable(),
    get pendingRequests() {
      return correlator.size;
    },
    get inFlightRequests() {
      return dispatcher.size;
    },
    request,
    notify,
    setRequestHandler: (method, handler) => void handlers.set(method, handler),
    removeRequestHandler: (method) => void handlers.delete(method),
    initialize,
    close: (reason = 'closed locally') => shutdown(reason),
  };
}
