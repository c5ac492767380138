/**
 * The per-request protocol of the modern revisions (2026-07-28 on; spec: Basic → `_meta`,
 * Versioning): what a request must carry, how a server admits it, and what every result carries
 * back. Shared by a server connection (stdio, WebSocket, in memory) and the modern endpoint that
 * serves Streamable HTTP requests with no connection at all, so both answer alike.
 */
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { JsonRpcRequest } from '../jsonrpc/message';
import { withProperty } from '../base/objects';
import { toValidationIssues } from '../validation/issues';
import {
  checkObjectParams,
  checkParams,
  hasCacheableResult,
  isKnownMethod,
  methodDefinition,
  methodsOf,
} from '../schema/methods';
import { isModernRevision, MODERN_REVISIONS } from '../schema/revisions';
import { extensionMethodParams } from '../schema/tasks';
import type { ModernRevision } from '../schema/revisions';
import { hasCapability } from './capabilities';
import { LOG_LEVELS } from './handler-events';
import { META, modernRevisionOf } from '../schema/request-meta';
import type { LogLevel } from './handler-events';
import type { AuthInfo } from '../transport/transport';

export { META, modernRevisionOf, isModernRevision, MODERN_REVISIONS };

/** Error codes the modern revisions add (spec 2026-07-28: Basic → Error Codes), from `ErrorCode`. */
export const ModernErrorCode = {
  HeaderMismatch: ErrorCode.HeaderMismatch,
  MissingRequiredClientCapability: ErrorCode.MissingRequiredClientCapability,
  UnsupportedProtocolVersion: ErrorCode.UnsupportedProtocolVersion,
} as const;

/** Methods whose complete results carry caching hints (spec 2026-07-28: Utilities → Caching), from the method registry. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set(
  MODERN_REVISIONS.flatMap((revision) =>
    methodsOf(revision)
      .filter((definition) => hasCacheableResult(definition.method, revision))
      .map((definition) => definition.method),
  ),
);

/** Whether a result may be cached, and by whom: `public` for anyone, `private` per authorization context. */
export type CacheScope = 'public' | 'private';

/** The caching hints put on a cacheable result that does not set its own. */
export interface CacheHint {
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

/**
 * Default hints: lists and discovery are the same for every caller and change rarely (a client
 * that listens for list changes hears of a change at once), so a minute, shared; a resource's
 * contents may change at any time and may depend on who asks, so stale at once and private.
 */
export const DEFAULT_CACHE_HINTS: Readonly<Record<string, CacheHint>> = {
  'server/discover': { ttlMs: 60_000, cacheScope: 'public' },
  'tools/list': { ttlMs: 60_000, cacheScope: 'public' },
  'prompts/list': { ttlMs: 60_000, cacheScope: 'public' },
  'resources/list': { ttlMs: 60_000, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: 60_000, cacheScope: 'public' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
};

/** What one modern request says of its client, read from its `_meta`. */
export interface ModernPeer {
  readonly revision: ModernRevision;
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo: Record<string, unknown> | undefined;
  /** The least severe log level the client wants for this request; without it, no log messages at all. */
  readonly logLevel: LogLevel | undefined;
  /** The request's HTTP headers (lower-cased names), when it came over Streamable HTTP. */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** Who made the request, where a protected endpoint verified its credentials. */
  readonly auth?: AuthInfo;
}

/** How a server serves modern requests. */
export interface ModernPolicy {
  /** Every revision the server speaks (legacy ones too), listed in an unsupported-version error. */
  readonly supported: readonly string[];
  /** Our capabilities, read per request. */
  capabilities(): Record<string, unknown>;
  /**
   * Whether a method that no revision defines is answered here (an extension's, such as
   * `skills/list`): such a request is admitted with its params as sent, for its handler to check.
   */
  serves?(method: string): boolean;
}

/** A request refused before any handler ran, with the HTTP status Streamable HTTP answers it with. */
export interface Refusal {
  readonly error: JsonRpcError;
  readonly httpStatus: number;
}

/** A request admitted: its validated params and what its `_meta` says of the client. */
export interface Admitted {
  readonly params: Record<string, unknown>;
  readonly peer: ModernPeer;
}

const LEVELS: ReadonlySet<string> = new Set(LOG_LEVELS);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const badMeta = (detail: string): Refusal => ({
  error: new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: _meta ${detail}`),
  httpStatus: 400,
});

/** `UnsupportedProtocolVersionError`: lists what the server speaks (spec 2026-07-28: Versioning). */
export function unsupportedVersion(requested: unknown, supported: readonly string[]): JsonRpcError {
  return new JsonRpcError(
    ModernErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version ${JSON.stringify(requested)} (supported: ${supported.join(', ')})`,
    { supported: [...supported].reverse(), requested },
  );
}

/** `MissingRequiredClientCapabilityError` for capabilities the request's client did not declare. */
export function missingClientCapability(required: readonly string[], detail?: string): JsonRpcError {
  const what = required.join(', ');
  return new JsonRpcError(
    ModernErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: ${what}${detail ? ` (${detail})` : ''}`,
    { requiredCapabilities: Object.fromEntries(required.map((path) => [path.split('.')[0], {}])) },
  );
}

/**
 * Admits one modern request: its `_meta` must name a supported modern revision and carry
 * the client's capabilities (-32602, HTTP 400, when a required field is missing or malformed;
 * -32022 for an unsupported revision), the method must exist in that revision and be served here
 * (-32601, HTTP 404), and the params must match the revision's schema (-32602). `carrier` gives
 * what the transport knows of the request (its HTTP headers, a verified caller).
 */
export function admitModernRequest(
  request: JsonRpcRequest,
  policy: ModernPolicy,
  carrier?: Pick<ModernPeer, 'headers' | 'auth'>,
): Admitted | Refusal {
  const params: Record<string, unknown> = request.params ?? {};
  const meta = params._meta;
  if (!isObject(meta)) return badMeta(`is required: ${META.protocolVersion} and ${META.clientCapabilities}`);
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') return badMeta(`${META.protocolVersion} is required (a string)`);
  if (!isModernRevision(version) || !policy.supported.includes(version)) {
    return { error: unsupportedVersion(version, policy.supported), httpStatus: 400 };
  }
  const clientCapabilities = meta[META.clientCapabilities];
  if (!isObject(clientCapabilities)) return badMeta(`${META.clientCapabilities} is required (an object)`);
  const clientInfo = meta[META.clientInfo];
  if (clientInfo !== undefined && !isObject(clientInfo)) return badMeta(`${META.clientInfo} must be an object`);
  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && (typeof logLevel !== 'string' || !LEVELS.has(logLevel))) {
    return badMeta(`${META.logLevel} must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const definition = methodDefinition(request.method, version);
  // One shape for every peer, the transport's facts included (undefined when it has none): adding
  // them to a copy afterwards costs more than the whole object.
  const peer: ModernPeer = {
    revision: version,
    clientCapabilities,
    clientInfo: clientInfo as Record<string, unknown> | undefined,
    logLevel: logLevel as LogLevel | undefined,
    headers: carrier?.headers,
    auth: carrier?.auth,
  };
  // A method the tasks extension adds: its params are checked here, and the server serves it only
  // when it has a handler for it (-32601 otherwise).
  const extension = definition === undefined ? extensionMethodParams(request.method) : undefined;
  // A method no revision defines may be another extension's; one a revision dropped is not found.
  if (!definition && !extension && !isKnownMethod(request.method) && policy.serves?.(request.method))
    return { params, peer };
  if (
    extension === undefined &&
    (!definition || definition.kind !== 'request' || definition.direction === 'server-to-client')
  ) {
    return { error: JsonRpcError.methodNotFound(request.method), httpStatus: 404 };
  }
  if (definition?.capability && !hasCapability(policy.capabilities(), definition.capability)) {
    return {
      error: JsonRpcError.methodNotFound(request.method, `the ${definition.capability} capability is not declared`),
      httpStatus: 404,
    };
  }
  const checked = extension ? checkObjectParams(extension, params) : checkParams(request.method, version, params);
  if (checked && !checked.success) {
    return { error: JsonRpcError.invalidParams(toValidationIssues(checked.error)), httpStatus: 400 };
  }
  return { params: checked?.data ?? params, peer };
}

/** Whether `admitModernRequest` refused the request. */
export function isRefusal(outcome: Admitted | Refusal): outcome is Refusal {
  return 'error' in outcome;
}

/** What a server puts on every modern result. */
export interface ResultDecoration {
  readonly serverInfo: Record<string, unknown> | undefined;
  /** Caching hints by method; a method missing here gets the default. */
  readonly cacheHints?: Readonly<Record<string, CacheHint>>;
}

/**
 * A result as a modern revision sends it: `resultType` (`complete` unless the handler set
 * one, such as `input_required`), the server's identity in `_meta`, and, on a complete result of a
 * cacheable method, `ttlMs` and `cacheScope` unless the handler chose its own.
 */
export function decorateModernResult(
  method: string,
  result: Record<string, unknown>,
  decoration: ResultDecoration,
): Record<string, unknown> {
  const { serverInfo } = decoration;
  // The added keys first: V8 adds a property to a spread copy slowly (see base/objects.ts).
  const out: Record<string, unknown> =
    serverInfo === undefined
      ? { resultType: 'complete', ...result }
      : { resultType: 'complete', _meta: undefined, ...result };
  out.resultType ??= 'complete';
  if (out.resultType === 'complete' && CACHEABLE_METHODS.has(method)) {
    const hint = decoration.cacheHints?.[method] ?? DEFAULT_CACHE_HINTS[method]!;
    out.ttlMs ??= hint.ttlMs;
    out.cacheScope ??= hint.cacheScope;
  }
  if (serverInfo !== undefined) {
    out._meta = withProperty(isObject(result._meta) ? result._meta : undefined, META.serverInfo, serverInfo);
  }
  return out;
}

/** The answer to `server/discover` (spec 2026-07-28: Server → Discovery), before decoration. */
export function discoverResult(
  supported: readonly string[],
  capabilities: Record<string, unknown>,
  instructions: string | undefined,
): Record<string, unknown> {
  // Every revision served here, newest first: a dual-era client may still choose a handshake one.
  // The core `tasks` capability ended with 2025-11-25: tasks are an extension here (SEP-2663).
  const { tasks: _coreTasks, ...declared } = capabilities;
  const result: Record<string, unknown> = { supportedVersions: [...supported].reverse(), capabilities: declared };
  if (instructions !== undefined) result.instructions = instructions;
  return result;
}
