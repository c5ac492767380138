import { Observable } from '../rx/rxjs';
import type { Connection } from '../connection/connection';
import { isModernRevision } from '../connection/modern';
import { hasCapability } from '../connection/capabilities';
import { nodeCrypto } from '../base/node-builtins';
import type { NestedRequestOptions, RequestContext } from '../connection/dispatcher';
import type { LogLevel } from '../connection/handler-events';
import { CapabilityNotSupportedError } from '../jsonrpc/errors';
import type { ElicitRequestFormParams, ElicitResult } from '../schema/elicitation';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../schema/lifecycle';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import type { ListRootsResult } from '../schema/roots';
import type { CreateMessageRequestParams, CreateMessageResult } from '../schema/sampling';
import type { AuthInfo, Transport, TransportClose } from '../transport/transport';
import { inputCapabilityOf } from './input-round';
import type { InputRound } from './input-round';

/** Params of a form-mode elicitation: the message and the flat object schema of the form. */
export type ElicitFormParams = Pick<ElicitRequestFormParams, 'message' | 'requestedSchema' | '_meta'>;

/** Params of a URL-mode elicitation (2025-11-25): an id is made up when none is given. */
export interface ElicitUrlParams {
  readonly message: string;
  readonly url: string;
  readonly elicitationId?: string;
}

/**
 * Requests a server sends to its client. Each is cold: subscribing sends the request, and
 * unsubscribing before the answer sends `notifications/cancelled`. Each errors with
 * `CapabilityNotSupportedError`, without sending anything, when the client did not declare what
 * the request needs (or its revision lacks the feature), and otherwise as `Connection.request`.
 */
export interface ClientRequests {
  /** `sampling/createMessage`: asks the client's model for a completion. Needs `sampling` (and `sampling.tools` to pass tools). */
  sample(params: CreateMessageRequestParams, options?: NestedRequestOptions): Observable<CreateMessageResult>;
  /** `elicitation/create` in form mode: asks the user to fill a form. Needs `elicitation` (form) and 2025-06-18 or later. */
  elicit(params: ElicitFormParams, options?: NestedRequestOptions): Observable<ElicitResult>;
  /** `elicitation/create` in URL mode: asks the user to visit a URL. Needs `elicitation.url` and 2025-11-25. */
  elicitUrl(params: ElicitUrlParams, options?: NestedRequestOptions): Observable<ElicitResult>;
  /** `roots/list`: the client's roots. Needs `roots`. */
  listRoots(options?: NestedRequestOptions): Observable<ListRootsResult>;
}

/**
 * A session's state in a form that survives JSON, to resume it in another process (a cluster):
 * the connection's persisted lifecycle (revision, what the client declared, state), the
 * capabilities declared to the client, its log level and its resource subscriptions.
 */
export interface PersistedSession {
  readonly lifecycle: unknown;
  readonly declared: ServerCapabilities | undefined;
  readonly logLevel: LogLevel;
  readonly subscriptions: readonly string[];
}

/** One client's connection to a server, with its own log level and resource subscriptions. */
export interface ServerSession extends ClientRequests {
  /** The connection's id; appears in log lines. */
  readonly id: string;
  /** Who the client is, as a protected endpoint verified its latest request (`auth`); else undefined. */
  readonly auth: AuthInfo | undefined;
  readonly connection: Connection;
  /** Emits once when the session ends, and completes; replays to late subscribers. */
  readonly closed$: Observable<TransportClose>;
  /** The negotiated revision, once initialized. */
  readonly revision: Revision | undefined;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** The least severe level the client asked for with `logging/setLevel` (the server's default until then). */
  readonly logLevel: LogLevel;
  /** The resource URIs this session is subscribed to. */
  readonly subscriptions: ReadonlySet<string>;
  /**
   * Sends `notifications/message` to this client when the server declared `logging` and the level
   * is at least the session's; otherwise does nothing.
   */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Ends the session: handlers in flight are cancelled, subscriptions dropped. Idempotent. */
  close(reason?: string): void;
  /** Its state as JSON-safe data, for `connect(transport, { restore })` in another process. */
  persist(): PersistedSession;
}

/**
 * What every server handler (tool, prompt, resource, completion) receives besides its input: the
 * request's id, revision, progress token and abort signal, `progress()` and `log()` routed with
 * the request, the session, and requests to the client related to this request.
 */
export interface ServerContext extends RequestContext, ClientRequests {
  /**
   * The session of a handshake revision (2024-11-05 to 2025-11-25). Undefined for a request of a
   * modern revision (2026-07-28 on), which belongs to no session: what it says of its client is
   * in `clientCapabilities`, `clientInfo` and `peer`.
   */
  readonly session: ServerSession | undefined;
  /**
   * Who made this request, as a protected HTTP endpoint verified its token (subject, client id,
   * scopes, claims); undefined on an open endpoint. The token itself is never passed on.
   */
  readonly auth: AuthInfo | undefined;
  /**
   * The HTTP headers (lower-case names) of the request that carried this call, when it came over
   * Streamable HTTP: a modern request's own, or the POST of a session's request. On a protected
   * endpoint the credentials (`authorization`, `dpop`, `x-api-key`) are left out: they are not passed on.
   */
  readonly headers: Readonly<Record<string, string | string[] | undefined>> | undefined;
  /** The capabilities of the client that sent this request (its session's, or its `_meta`'s). */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** The client's name and version, as it gave them. */
  readonly clientInfo: Implementation | undefined;
}

/** A session as a handler context holds it: with the transport that carries its requests, for their headers. */
export interface ContextSession extends ServerSession {
  readonly transport: Transport | undefined;
}

/** Where a modern request's handler asks its client for input: its {@link InputRound}, or a task's inputs. */
export type InputAsker = Pick<InputRound, 'ask'>;

/** What the client requests need to know of the client: its capabilities and revision. */
export interface ClientView {
  readonly peerCapabilities: Record<string, unknown> | undefined;
  readonly revision: string | undefined;
}

type Send = (
  method: string,
  params: Record<string, unknown> | undefined,
  options: NestedRequestOptions | undefined,
) => Observable<Record<string, unknown>>;

function refused(capability: string, method: string): Observable<never> {
  return new Observable((subscriber) =>
    subscriber.error(new CapabilityNotSupportedError(capability, method, 'client')),
  );
}

/**
 * Builds the client requests of a connection on top of `send` (the connection's `request`, or a
 * request context's, which relates them to the request being handled). The checks run at
 * subscription, when the handshake is done.
 */
export function createClientRequests(connection: ClientView, send: Send): ClientRequests {
  const capabilities = () => connection.peerCapabilities as ClientCapabilities | undefined;
  const features = () => (connection.revision ? featuresOf(connection.revision as Revision) : undefined);
  const checked = <T>(
    method: string,
    need: () => string | undefined,
    params: Record<string, unknown> | undefined,
    options?: NestedRequestOptions,
  ) =>
    new Observable<T>((subscriber) => {
      const missing = connection.revision ? need() : undefined;
      if (missing) return refused(missing, method).subscribe(subscriber);
      return (send(method, params, options) as Observable<T>).subscribe(subscriber);
    });

  return {
    sample: (params, options) =>
      checked<CreateMessageResult>(
        'sampling/createMessage',
        () =>
          (params.tools !== undefined || params.toolChoice !== undefined) &&
          !hasCapability(capabilities(), 'sampling.tools')
            ? 'sampling.tools'
            : undefined,
        params,
        options,
      ),
    elicit: (params, options) =>
      checked<ElicitResult>(
        'elicitation/create',
        () => {
          const elicitation = capabilities()?.elicitation as Record<string, unknown> | undefined;
          if (!features()?.elicitation || !elicitation) return 'elicitation';
          // 2025-11-25: `{}` still means form mode; a client that lists modes must list `form`.
          const listsModes = 'form' in elicitation || 'url' in elicitation;
          return listsModes && !hasCapability(capabilities(), 'elicitation.form') ? 'elicitation.form' : undefined;
        },
        params,
        options,
      ),
    elicitUrl: (params, options) =>
      checked<ElicitResult>(
        'elicitation/create',
        () =>
          features()?.urlElicitation && hasCapability(capabilities(), 'elicitation.url')
            ? undefined
            : 'elicitation.url',
        // 2026-07-28 dropped elicitationId: the outcome comes back with the retried request.
        connection.revision !== undefined && isModernRevision(connection.revision)
          ? { mode: 'url', message: params.message, url: params.url }
          : {
              mode: 'url',
              message: params.message,
              url: params.url,
              elicitationId: params.elicitationId ?? nodeCrypto().randomUUID(),
            },
        options,
      ),
    listRoots: (options) => checked<ListRootsResult>('roots/list', () => undefined, undefined, options),
  };
}

/**
 * What every server handler context shares: the request context it wraps, and the client requests
 * built on first use. A class with prototype methods, since one context is made per request.
 */
abstract class ContextBase implements ServerContext {
  // The fields of the contexts are assigned in their constructors, not declared as class fields:
  // V8 defines a derived class's declared fields after its base's, which costs a context about
  // twice as long to make as assignments do, and one context is made per request.
  declare protected readonly inner: RequestContext;
  declare private clientRequests: ClientRequests | undefined;

  constructor(inner: RequestContext) {
    this.inner = inner;
    this.clientRequests = undefined;
  }

  abstract readonly session: ContextSession | undefined;
  abstract readonly clientCapabilities: ClientCapabilities | undefined;
  abstract readonly clientInfo: Implementation | undefined;
  /** Builds the client requests of this context (on first use). */
  protected abstract makeRequests(): ClientRequests;

  get auth(): AuthInfo | undefined {
    return this.inner.peer?.auth ?? this.session?.auth;
  }

  get headers(): Readonly<Record<string, string | string[] | undefined>> | undefined {
    const headers = this.inner.peer?.headers ?? this.session?.transport?.requestHeaders?.(this.inner.requestId);
    // A verified token stays with the endpoint that checked it: handlers never see it to pass it on.
    if (headers === undefined || this.auth === undefined) return headers;
    const { authorization: _token, dpop: _proof, 'x-api-key': _key, ...rest } = headers;
    return rest;
  }

  get requestId(): RequestContext['requestId'] {
    return this.inner.requestId;
  }
  get method(): string {
    return this.inner.method;
  }
  get revision(): Revision {
    return this.inner.revision;
  }
  get progressToken(): string | number | undefined {
    return this.inner.progressToken;
  }
  get meta(): Record<string, unknown> | undefined {
    return this.inner.meta;
  }
  get peer(): RequestContext['peer'] {
    return this.inner.peer;
  }
  get signal(): AbortSignal {
    return this.inner.signal;
  }

  progress(progress: number, total?: number, message?: string): void {
    this.inner.progress(progress, total, message);
  }
  log(level: LogLevel, data: unknown, logger?: string): void {
    this.inner.log(level, data, logger);
  }
  notify(method: string, params?: Record<string, unknown>): void {
    this.inner.notify(method, params);
  }
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: NestedRequestOptions,
  ): Observable<Record<string, unknown>> {
    return this.inner.request(method, params, options);
  }

  private get requests(): ClientRequests {
    return (this.clientRequests ??= this.makeRequests());
  }
  sample(params: CreateMessageRequestParams, options?: NestedRequestOptions): Observable<CreateMessageResult> {
    return this.requests.sample(params, options);
  }
  elicit(params: ElicitFormParams, options?: NestedRequestOptions): Observable<ElicitResult> {
    return this.requests.elicit(params, options);
  }
  elicitUrl(params: ElicitUrlParams, options?: NestedRequestOptions): Observable<ElicitResult> {
    return this.requests.elicitUrl(params, options);
  }
  listRoots(options?: NestedRequestOptions): Observable<ListRootsResult> {
    return this.requests.listRoots(options);
  }
}

/**
 * The context a server handler receives in a session of a handshake revision: the connection's
 * request context with the session, and requests to the client sent on the connection, related to
 * the request being handled (so Streamable HTTP sends them on its stream).
 */
export class SessionContext extends ContextBase {
  declare readonly session: ContextSession;

  constructor(inner: RequestContext, session: ContextSession) {
    super(inner);
    this.session = session;
  }

  get clientCapabilities(): ClientCapabilities | undefined {
    return this.session.clientCapabilities;
  }
  get clientInfo(): Implementation | undefined {
    return this.session.clientInfo;
  }

  protected makeRequests(): ClientRequests {
    return createClientRequests(this.session.connection, (method, params, options) =>
      this.inner.request(method, params, options),
    );
  }
}

/**
 * The context of a request of a modern revision (2026-07-28 on): no session; the client is
 * what the request's `_meta` says, and requests to the client go through the request's
 * {@link InputRound} (an input-required result and the client's retry) instead of the wire.
 */
export class ModernContext extends ContextBase {
  declare private readonly round: InputAsker | undefined;

  constructor(inner: RequestContext, round: InputAsker | undefined) {
    super(inner);
    this.round = round;
  }

  get session(): undefined {
    return undefined;
  }
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.inner.peer?.clientCapabilities as ClientCapabilities | undefined;
  }
  get clientInfo(): Implementation | undefined {
    return this.inner.peer?.clientInfo as Implementation | undefined;
  }

  override request(
    method: string,
    params?: Record<string, unknown>,
    options?: NestedRequestOptions,
  ): Observable<Record<string, unknown>> {
    if (!this.round || inputCapabilityOf(method) === undefined) {
      return new Observable((subscriber) =>
        subscriber.error(
          new Error(
            this.round
              ? `Cannot send ${method}: a modern request can only ask its client for elicitation, sampling or roots`
              : `Cannot send ${method}: ${this.inner.method} cannot ask its client for input (only tools/call, prompts/get and resources/read can)`,
          ),
        ),
      );
    }
    // Spec 2026-07-28: MRTR: a server MUST NOT ask for input the client did not declare support for.
    const capability = inputCapabilityOf(method)!;
    if (!hasCapability(this.inner.peer?.clientCapabilities, capability)) return refused(capability, method);
    return this.round.ask(method, params, options?.inputKey);
  }

  protected makeRequests(): ClientRequests {
    const view: ClientView = { peerCapabilities: this.inner.peer?.clientCapabilities, revision: this.inner.revision };
    return createClientRequests(view, (method, params, options) => this.request(method, params, options));
  }
}
