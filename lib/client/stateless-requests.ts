/**
 * A client request in a stateless revision (2026-07-28 on), end to end: the per-request `_meta`
 * the client adds (log level), re-issuing a request whose HTTP response stream broke (Transports
 * → Streamable HTTP: no resumability, a new id), the result's `resultType`, multi round-trip input
 * (spec: Multi Round-Trip Requests), and the check of the final result against the revision.
 */
import type { Observable } from '../rx/rxjs';
import { catchError, defer, of, switchMap, throwError } from '../rx/rxjs';
import type { Connection } from '../connection/connection';
import type { RequestHandler } from '../connection/dispatcher';
import type { RequestOptions } from '../connection/request-pipeline';
import { CACHEABLE_METHODS, META } from '../connection/stateless';
import { JsonRpcError, ProtocolError } from '../jsonrpc/errors';
import { withProperty } from '../jsonrpc/objects';
import type { LoggingLevel } from '../schema/logging';
import { describeIssues, toValidationIssues } from '../schema/issues';
import { checkResult } from '../schema/methods';
import type { Revision } from '../schema/revisions';
import { STREAM_BROKEN } from '../transport/streamable-http/streamable-http-client-transport';
import { answerInputRequests, readInputRequests } from './input-requests';
import type { InputRequests } from './input-requests';

/** Requests a server may answer with `input_required` (Multi Round-Trip Requests → Supported Requests). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** The default bound on input rounds of one request. */
export const DEFAULT_MAX_INPUT_ROUNDS = 10;
/** How often a request whose response stream broke is re-issued before its caller sees the failure. */
const MAX_REISSUES = 2;

/** The server asked for input more times than the client allows for one request. */
export class InputRoundsExceededError extends Error {
  override readonly name: string = 'InputRoundsExceededError';

  constructor(
    readonly method: string,
    readonly rounds: number,
  ) {
    super(`${method}: the server still asked for input after ${rounds} rounds; giving up`);
  }
}

/** What the stateless requests of one client share. */
export interface StatelessRequesterDeps {
  readonly connection: Connection;
  readonly revision: string;
  /** The client's handlers for sampling, elicitation and roots, by method. */
  readonly inputHandlers: Readonly<Record<string, RequestHandler>>;
  readonly maxInputRounds: number;
  /** Check complete results against the revision's schema. */
  readonly validateResults: boolean;
  /** The log level set with `setLoggingLevel`, sent in each request's `_meta`. */
  logLevel(): LoggingLevel | undefined;
}

/** Hooks a caller may pass to watch a request's rounds. */
export interface RoundHooks {
  /** The server asked for input: `round` counts from 1. */
  onInputRequired?(round: number, requests: InputRequests): void;
  /**
   * The server answered with a task handle (`resultType: "task"`, the tasks extension): what this
   * gives is the request's answer. Without it, a task handle is a `ProtocolError`.
   */
  onTask?(handle: Record<string, unknown>): Observable<Record<string, unknown>>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether an error is the transport's "response stream broke before the response". */
export function isBrokenStream(error: unknown): boolean {
  return error instanceof JsonRpcError && isObject(error.data) && error.data[STREAM_BROKEN] === true;
}

/** `resultType` of a result: absent means complete (Basic → Responses). */
function resultTypeOf(result: Record<string, unknown>): unknown {
  return result.resultType ?? 'complete';
}

/**
 * The fields a result may leave out and a client must assume (spec 2026-07-28: a missing
 * `resultType` is `complete`; Caching: a missing `ttlMs` is 0), filled in for the schema check
 * only; undefined when the result left none out.
 */
function assumed(method: string, result: Record<string, unknown>): Record<string, unknown> | undefined {
  let filled: Record<string, unknown> | undefined;
  if (result.resultType === undefined) filled = { resultType: 'complete' };
  if (CACHEABLE_METHODS.has(method)) {
    if (result.ttlMs === undefined) (filled ??= {}).ttlMs = 0;
    if (result.cacheScope === undefined) (filled ??= {}).cacheScope = 'private';
  }
  return filled;
}

/** The result checked against the revision (as the schema gives it back), without the assumed fields. */
function checkedComplete(deps: StatelessRequesterDeps, method: string, result: Record<string, unknown>) {
  const filled = assumed(method, result);
  const input = filled ? { ...result, ...filled } : result;
  const parsed = checkResult(method, deps.revision as Revision, input);
  if (!parsed) return result;
  if (!parsed.success) {
    throw new ProtocolError(
      `Invalid result for ${method} from the server: ${describeIssues(toValidationIssues(parsed.error))}`,
    );
  }
  if (parsed.data === result) return result;
  // The schema's own copy, or the one made above for the check: either may lose the assumed fields.
  const checked = parsed.data === input ? input : { ...(parsed.data as Record<string, unknown>) };
  if (filled) for (const key of Object.keys(filled)) delete checked[key];
  return checked;
}

/**
 * A complete result as the client API gives it in every era: checked against the revision, then
 * without the fields only the stateless wire has (`resultType`, the server's identity in `_meta`,
 * which `client.serverInfo` holds).
 */
function completed(
  deps: StatelessRequesterDeps,
  method: string,
  result: Record<string, unknown>,
): Record<string, unknown> {
  const checked = deps.validateResults ? checkedComplete(deps, method, result) : result;
  const { resultType: _complete, ...rest } = checked;
  if (!isObject(rest._meta) || !(META.serverInfo in rest._meta)) return rest;
  const { [META.serverInfo]: _identity, ...meta } = rest._meta;
  if (Object.keys(meta).length > 0) return { ...rest, _meta: meta };
  const { _meta: _empty, ...bare } = rest;
  return bare;
}

/** Sends once, re-issuing (with a new id, as each subscription makes) when the response stream broke. */
function sendReissuing(
  deps: StatelessRequesterDeps,
  method: string,
  params: Record<string, unknown>,
  options: RequestOptions,
  attempt = 0,
): Observable<Record<string, unknown>> {
  return deps.connection.request(method, params, options).pipe(
    catchError((error: unknown) =>
      // A listen stream is not re-issued here: the subscriptions hub opens it again, and re-listens.
      isBrokenStream(error) &&
      attempt < MAX_REISSUES &&
      method !== 'subscriptions/listen' &&
      deps.connection.state !== 'shutdown'
        ? sendReissuing(deps, method, params, options, attempt + 1)
        : throwError(() => error),
    ),
  );
}

/** The options of one request with the client's per-request `_meta` added. */
function withClientMeta(deps: StatelessRequesterDeps, options: RequestOptions): RequestOptions {
  const level = deps.logLevel();
  if (level === undefined) return options;
  return withProperty(options, 'meta', { [META.logLevel]: level, ...options.meta });
}

/**
 * Sends a request of a stateless revision. Cold: each subscription sends it; emits the complete
 * result and completes. When the server answers `input_required` (only for tools/call, prompts/get
 * and resources/read), the client's handlers answer its `inputRequests` and the request is sent
 * again, with a new id, carrying `inputResponses` and the exact `requestState` (none when the
 * server sent none), at most `maxInputRounds` times (`InputRoundsExceededError`). Errors with
 * `ProtocolError` for an unknown `resultType`, an `input_required` answer to another method, or an
 * invalid result; with the server's `JsonRpcError`, a timeout or a closed connection otherwise.
 * Unsubscribing cancels the round in flight (and stops handlers still answering).
 */
export function statelessRequest(
  deps: StatelessRequesterDeps,
  method: string,
  params: Record<string, unknown> | undefined,
  options: RequestOptions = {},
  hooks: RoundHooks = {},
): Observable<Record<string, unknown>> {
  const base = params ?? {};
  const round = (n: number, retry?: Record<string, unknown>): Observable<Record<string, unknown>> =>
    // The first round sends the params as given (the connection copies them to add its _meta).
    sendReissuing(deps, method, retry ? { ...base, ...retry } : base, withClientMeta(deps, options)).pipe(
      switchMap((result) => {
        const kind = resultTypeOf(result);
        if (kind === 'complete') return of(completed(deps, method, result));
        if (kind === 'task' && hooks.onTask) return hooks.onTask(result);
        if (kind !== 'input_required') {
          throw new ProtocolError(
            `Invalid result for ${method} from the server: unknown resultType ${JSON.stringify(kind)}`,
          );
        }
        if (!INPUT_REQUIRED_METHODS.has(method)) {
          throw new ProtocolError(`Invalid result for ${method} from the server: ${method} may not ask for input`);
        }
        if (n >= deps.maxInputRounds) throw new InputRoundsExceededError(method, n);
        return nextRound(n + 1, result);
      }),
    );
  const nextRound = (n: number, result: Record<string, unknown>): Observable<Record<string, unknown>> => {
    const requests = readInputRequests(result.inputRequests, method);
    const { requestState } = result;
    if (requestState !== undefined && typeof requestState !== 'string') {
      throw new ProtocolError(`Invalid input_required result for ${method}: requestState must be a string`);
    }
    if (Object.keys(requests).length === 0 && requestState === undefined) {
      throw new ProtocolError(`Invalid input_required result for ${method}: neither inputRequests nor requestState`);
    }
    hooks.onInputRequired?.(n, requests);
    return answerInputRequests(requests, deps.inputHandlers, deps.revision).pipe(
      switchMap((responses) => {
        const retry: Record<string, unknown> = {};
        if (Object.keys(requests).length > 0) retry.inputResponses = responses;
        // MRTR → Client Requirements: echo the exact requestState, and none when there was none.
        if (requestState !== undefined) retry.requestState = requestState;
        return round(n, retry);
      }),
    );
  };
  return defer(() => round(0));
}
