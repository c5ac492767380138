import type { JsonRpcErrorObject, RequestId } from './message';

/**
 * Every JSON-RPC error code rxmcp sends or recognises: the five of JSON-RPC 2.0 and the ones MCP
 * adds. Codes whose use depends on the protocol revision (resource not found) are chosen by
 * `schema/revisions.ts`, not at the call site.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: a resource URI that the server does not know (up to 2025-11-25). */
  ResourceNotFound: -32002,
  /** MCP 2025-11-25: the request needs a URL-mode elicitation to finish first. */
  UrlElicitationRequired: -32042,
  /** Used by peers for a closed connection and for a request that timed out. */
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  /** MCP 2026-07-28: an HTTP request's `Mcp-*` headers disagree with its body. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability its `_meta` did not declare. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the server does not speak the revision the request names. */
  UnsupportedProtocolVersion: -32022,
  /** rxmcp: the `authorize` middleware refused the request (MCP defines no code for this). */
  Forbidden: -32003,
  /** rxmcp: the `rateLimit` middleware refused the request; `data.retryAfterMs` says when to try again. */
  RateLimited: -32029,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * What kind of failure an {@link RxmcpError} is: one code per error class, stable across versions,
 * for code that handles failures without `instanceof` (across bundles, or after serialization).
 * The guide's error table (docs/errors.md) says when each is raised and what to do.
 */
export const RxmcpErrorCode = {
  /** {@link JsonRpcError}: an error that crosses the wire, with its JSON-RPC `code`. */
  JsonRpc: 'JSON_RPC',
  RequestTimeout: 'REQUEST_TIMEOUT',
  ConnectionClosed: 'CONNECTION_CLOSED',
  NotInitialized: 'NOT_INITIALIZED',
  UnsupportedProtocolVersion: 'UNSUPPORTED_PROTOCOL_VERSION',
  CapabilityNotSupported: 'CAPABILITY_NOT_SUPPORTED',
  Transport: 'TRANSPORT',
  SessionNotFound: 'SESSION_NOT_FOUND',
  AuthorizationFailed: 'AUTHORIZATION_FAILED',
  BodyTooLarge: 'BODY_TOO_LARGE',
  SseEventTooLarge: 'SSE_EVENT_TOO_LARGE',
  Protocol: 'PROTOCOL',
  KeepaliveTimeout: 'KEEPALIVE_TIMEOUT',
  LegacyServer: 'LEGACY_SERVER',
  InputRoundsExceeded: 'INPUT_ROUNDS_EXCEEDED',
  TaskCancelled: 'TASK_CANCELLED',
  TaskNotSupported: 'TASK_NOT_SUPPORTED',
  PageLimit: 'PAGE_LIMIT',
  RepeatedCursor: 'REPEATED_CURSOR',
  MissingPage: 'MISSING_PAGE',
  SkillVerification: 'SKILL_VERIFICATION',
  SkillFrontmatter: 'SKILL_FRONTMATTER',
  SchemaConversion: 'SCHEMA_CONVERSION',
  Tool: 'TOOL',
  TracingUnavailable: 'TRACING_UNAVAILABLE',
  InvalidToken: 'INVALID_TOKEN',
  OAuth: 'OAUTH',
  SessionTakenOver: 'SESSION_TAKEN_OVER',
  BenchWorkload: 'BENCH_WORKLOAD',
  EventsTerminated: 'EVENTS_TERMINATED',
  MessageEncoding: 'MESSAGE_ENCODING',
} as const;
export type RxmcpErrorCode = (typeof RxmcpErrorCode)[keyof typeof RxmcpErrorCode];

/**
 * The base of every error rxmcp throws or rejects with: `error instanceof RxmcpError` tells an
 * rxmcp failure from any other, and `errorCode` says which one it is. (`JsonRpcError` keeps its
 * numeric JSON-RPC `code`, and `OAuthError` its OAuth `code`: hence a name of its own.)
 */
export abstract class RxmcpError extends Error {
  /** Which failure this is. */
  abstract readonly errorCode: RxmcpErrorCode;
}

const ERROR_CODES: ReadonlySet<unknown> = new Set(Object.values(RxmcpErrorCode));

/**
 * Whether `error` is an rxmcp error (of the given code, when one is given). It reads `errorCode`,
 * so an error from another copy of rxmcp in the same process (two bundles) is recognised too.
 */
export function isRxmcpError(error: unknown, code?: RxmcpErrorCode): error is RxmcpError {
  if (!(error instanceof Error)) return false;
  const errorCode = (error as { errorCode?: unknown }).errorCode;
  return code === undefined ? ERROR_CODES.has(errorCode) : errorCode === code;
}

/** How much of an unknown method's name an error repeats back. */
const MAX_ECHOED_METHOD = 128;

/** One problem found while validating params, in a shape that survives JSON. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * An error that crosses the wire: what a peer sent us in an error response, or what a handler
 * throws to answer with a specific code. Anything else a handler throws answers -32603.
 */
export class JsonRpcError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.JsonRpc;
  override readonly name: string = 'JsonRpcError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** The error object to put in a response. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** Rebuilds the error a peer sent. */
  static fromObject(error: JsonRpcErrorObject): JsonRpcError {
    return new JsonRpcError(error.code, error.message, error.data);
  }

  /** Parse error (-32700): a frame that is not JSON. */
  static parseError(detail: string): JsonRpcError {
    return new JsonRpcError(ErrorCode.ParseError, `Parse error: ${detail}`);
  }

  /** Invalid request (-32600): not a valid request, or not one allowed now. */
  static invalidRequest(detail: string): JsonRpcError {
    return new JsonRpcError(ErrorCode.InvalidRequest, `Invalid request: ${detail}`);
  }

  /** Method not found; a long method name is cut, so a peer's 20 MB name gets no 20 MB answer (#13). */
  static methodNotFound(method: string, reason?: string): JsonRpcError {
    const shown =
      method.length > MAX_ECHOED_METHOD
        ? `${method.slice(0, MAX_ECHOED_METHOD)}… (${method.length} characters)`
        : method;
    return new JsonRpcError(
      ErrorCode.MethodNotFound,
      reason ? `Method not found: ${shown} (${reason})` : `Method not found: ${shown}`,
    );
  }

  /** Invalid params; the message names the first offending field, `data.issues` lists them all. */
  static invalidParams(issues: readonly ValidationIssue[] | string): JsonRpcError {
    if (typeof issues === 'string') return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${issues}`);
    const first = issues[0];
    const summary = first ? `${first.path || '(root)'}: ${first.message}` : 'rejected';
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${summary}${more}`, { issues });
  }

  /** The generic internal error: never carries the cause's details to the peer. */
  static internalError(message = 'Internal error'): JsonRpcError {
    return new JsonRpcError(ErrorCode.InternalError, message);
  }
}

/** Fields that locate a request in an error message: its method and id. */
export interface RequestLocation {
  readonly method?: string;
  readonly id?: RequestId;
}

function where(context: RequestLocation): string {
  if (context.method === undefined) return '';
  return context.id === undefined ? ` (${context.method})` : ` (${context.method}, id ${String(context.id)})`;
}

/** A request passed one of its deadlines: `idle` (no response or progress for `afterMs`) or `total`. */
export class RequestTimeoutError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.RequestTimeout;
  override readonly name: string = 'RequestTimeoutError';
  readonly method?: string;
  readonly id?: RequestId;

  constructor(
    readonly deadline: 'idle' | 'total',
    readonly afterMs: number,
    context: RequestLocation = {},
  ) {
    super(
      deadline === 'idle'
        ? `Request timed out after ${afterMs} ms without a response or progress${where(context)}`
        : `Request exceeded its maximum total time of ${afterMs} ms${where(context)}`,
    );
    this.method = context.method;
    this.id = context.id;
  }
}

/** The connection closed (or was never open) while a request waited for its response. */
export class ConnectionClosedError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.ConnectionClosed;
  override readonly name: string = 'ConnectionClosedError';
  readonly method?: string;
  readonly id?: RequestId;

  constructor(
    readonly reason: string,
    context: RequestLocation = {},
    options?: { cause?: unknown },
  ) {
    // What failed underneath (a refused certificate, a reset socket) belongs in the message a caller sees.
    const detail = options?.cause instanceof Error ? `; ${options.cause.message}` : '';
    super(`Connection closed: ${reason}${where(context)}${detail}`, options);
    this.method = context.method;
    this.id = context.id;
  }
}

/** Something was sent, or asked for, before the initialization handshake finished. */
export class NotInitializedError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.NotInitialized;
  override readonly name: string = 'NotInitializedError';

  constructor(readonly method: string) {
    super(`Cannot send ${method}: the connection has not finished initializing`);
  }
}

/** The peer answered initialize with a protocol revision we do not support. */
export class UnsupportedProtocolVersionError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.UnsupportedProtocolVersion;
  override readonly name: string = 'UnsupportedProtocolVersionError';

  constructor(
    readonly requested: string,
    readonly supported: readonly string[],
  ) {
    super(`Unsupported protocol version ${JSON.stringify(requested)}; supported: ${supported.join(', ')}`);
  }
}

/** The peer did not declare the capability a call needs; raised locally, nothing is sent. */
export class CapabilityNotSupportedError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.CapabilityNotSupported;
  override readonly name: string = 'CapabilityNotSupportedError';

  constructor(
    readonly capability: string,
    readonly method: string,
    readonly peer: 'client' | 'server',
  ) {
    super(`Cannot send ${method}: the ${peer} did not declare the ${capability} capability`);
  }
}

/** A transport failed: the process died, the socket broke, a frame could not be written. */
export class TransportError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.Transport;
  override readonly name: string = 'TransportError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A message could not be written as JSON: it holds a cycle, a `BigInt`, or nesting deeper than
 * `JSON.stringify` can follow (a peer's deeply nested params, passed on by a proxy). A transport's
 * `send` throws it having sent nothing, and stays open: a request fails with it, a response is
 * answered with -32603 instead, a notification's sender gets it thrown.
 */
export class MessageEncodingError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.MessageEncoding;
  override readonly name: string = 'MessageEncodingError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A peer's message broke the protocol in a way that concerns one call (for example a malformed result). */
export class ProtocolError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.Protocol;
  override readonly name: string = 'ProtocolError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
