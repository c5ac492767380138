/**
 * A client request in a modern revision (2026-07-28 on), end to end: the per-request `_meta`
 * the client adds (log level), re-issuing a request whose HTTP response stream broke (Transports
 * → Streamable HTTP: no resumability, a new id), the result's `resultType`, multi round-trip input
 * (spec: Multi Round-Trip Requests), and the check of the final result against the revision.
 */
import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
import { asyncScheduler, Observable } from '../rx/rxjs';
import type { SchedulerLike, Subscriber, Unsubscribable } from '../rx/rxjs';
import type { Connection } from '../connection/connection';
import type { RequestHandler } from '../connection/dispatcher';
import type { RequestOptions, RequestSink } from '../connection/request-pipeline';
import { CACHEABLE_METHODS, META } from '../connection/modern';
import { JsonRpcError, ProtocolError } from '../jsonrpc/errors';
import { withProperty } from '../base/objects';
import type { LoggingLevel } from '../schema/logging';
import { describeIssues, toValidationIssues } from '../validation/issues';
import { checkResult } from '../schema/methods';
import type { Revision } from '../schema/revisions';
import { STREAM_BROKEN } from '../transport/http-client/streamable-http/modern-calls';
import { answerInputRequests, readInputRequests } from './input-requests';
import type { InputRequests } from './input-requests';

/** Requests a server may answer with `input_required` (Multi Round-Trip Requests → Supported Requests). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** The default bound on input rounds of one request. */
export const DEFAULT_MAX_INPUT_ROUNDS = 10;
/**
 * How long each re-issue of a request whose response stream broke waits, in order: as many
 * re-issues as delays, then the caller sees the failure. A stream cut by a server going away is
 * not sent straight back into it: by the time the delay ends, a server that died refuses the
 * connection, and the transport reports that instead of a second broken stream.
 */
export const REISSUE_DELAYS_MS: readonly number[] = [100, 400];

/** The server asked for input more times than the client allows for one request. */
export class InputRoundsExceededError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.InputRoundsExceeded;
  override readonly name: string = 'InputRoundsExceededError';

  constructor(
    readonly method: string,
    readonly rounds: number,
  ) {
    super(`${method}: the server still asked for input after ${rounds} rounds; giving up`);
  }
}

/** What the modern requests of one client share. */
export interface ModernRequesterDeps {
  readonly connection: Connection;
  readonly revision: Revision;
  /** The client's handlers for sampling, elicitation and roots, by method. */
  readonly inputHandlers: Readonly<Record<string, RequestHandler>>;
  readonly maxInputRounds: number;
  /** Where re-issues wait (see {@link REISSUE_DELAYS_MS}). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
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
  /**
   * The request failed (after its re-issues): what answers it instead, or undefined to let the
   * caller see the error.
   */
  recover?(error: unknown): Observable<Record<string, unknown>> | undefined;
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
function checkedComplete(deps: ModernRequesterDeps, method: string, result: Record<string, unknown>) {
  const filled = assumed(method, result);
  const input = filled ? { ...result, ...filled } : result;
  const parsed = checkResult(method, deps.revision, input);
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
 * without the fields only the modern wire has (`resultType`, the server's identity in `_meta`,
 * which `client.serverInfo` holds). Copied key by key: a rest pattern copies on a slower path.
 */
function completed(
  deps: ModernRequesterDeps,
  method: string,
  result: Record<string, unknown>,
): Record<string, unknown> {
  const checked = deps.validateResults ? checkedComplete(deps, method, result) : result;
  const meta = checked._meta;
  const identified = isObject(meta) && META.serverInfo in meta;
  if (!identified && !('resultType' in checked)) return checked;
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(checked)) if (key !== 'resultType' && key !== '_meta') rest[key] = checked[key];
  if (!identified) {
    if ('_meta' in checked) rest._meta = meta;
    return rest;
  }
  let kept: Record<string, unknown> | undefined;
  for (const key of Object.keys(meta)) if (key !== META.serverInfo) (kept ??= {})[key] = meta[key];
  if (kept) rest._meta = kept;
  return rest;
}

/** The options of one request with the client's per-request `_meta` added. */
function withClientMeta(deps: ModernRequesterDeps, options: RequestOptions): RequestOptions {
  const level = deps.logLevel();
  if (level === undefined) return options;
  return withProperty(options, 'meta', { [META.logLevel]: level, ...options.meta });
}

/**
 * Sends a request of a modern revision. Cold: each subscription sends it; emits the complete
 * result and completes. When the server answers `input_required` (only for tools/call, prompts/get
 * and resources/read), the client's handlers answer its `inputRequests` and the request is sent
 * again, with a new id, carrying `inputResponses` and the exact `requestState` (none when the
 * server sent none), at most `maxInputRounds` times (`InputRoundsExceededError`). A request whose
 * response stream broke is re-issued, with a new id, up to twice per round, each after a short
 * delay ({@link REISSUE_DELAYS_MS}). Errors with `ProtocolError` for an unknown `resultType`, an
 * `input_required` answer to another method, or an invalid result; with the server's
 * `JsonRpcError`, a timeout or a closed connection otherwise.
 * Unsubscribing cancels the round in flight (and stops handlers still answering).
 */
export function modernRequest(
  deps: ModernRequesterDeps,
  method: string,
  params: Record<string, unknown> | undefined,
  options: RequestOptions = {},
  hooks: RoundHooks = {},
): Observable<Record<string, unknown>> {
  return new Observable<Record<string, unknown>>((subscriber) => {
    const exchange = new ModernExchange(deps, method, params ?? {}, options, hooks, subscriber);
    exchange.send();
    return () => exchange.stop();
  });
}

/**
 * One subscription of {@link modernRequest}: its rounds, each sent straight through the
 * connection, and between rounds what answers the server's input requests. Hand-wired rather than
 * composed of operators: every call of a modern revision runs through it, and almost all of
 * them end with the first answer.
 */
class ModernExchange {
  /** The params of the current round: the caller's, then with the round's answers and state. */
  private params: Record<string, unknown>;
  /** Input rounds so far (0 for the first request). */
  private round = 0;
  private reissues = 0;
  /** Counts sends, so that a send made while an earlier one starts keeps its own handle. */
  private sends = 0;
  /** The request in flight, or what runs between rounds (the input handlers, a task's follower). */
  private running: Unsubscribable | undefined;
  private stopped = false;

  constructor(
    private readonly deps: ModernRequesterDeps,
    private readonly method: string,
    private readonly base: Record<string, unknown>,
    private readonly options: RequestOptions,
    private readonly hooks: RoundHooks,
    private readonly subscriber: Subscriber<Record<string, unknown>>,
  ) {
    // The first round sends the params as given (the connection copies them to add its _meta).
    this.params = base;
  }

  send(): void {
    const sent = ++this.sends;
    const handle = this.deps.connection.startRequest(
      this.method,
      this.params,
      withClientMeta(this.deps, this.options),
      new RoundSink(this),
    );
    if (sent === this.sends) this.running = handle;
  }

  stop(): void {
    this.stopped = true;
    this.running?.unsubscribe();
  }

  /** A request's result. */
  answer(result: Record<string, unknown>): void {
    try {
      this.answered(result);
    } catch (error) {
      this.subscriber.error(error);
    }
  }

  /** A request ended with no result (client middleware can end one so): so does the exchange. */
  unanswered(): void {
    this.subscriber.complete();
  }

  /** A request's failure. */
  fail(error: unknown): void {
    const { deps, method } = this;
    // A listen stream is not re-issued here: the subscriptions hub opens it again, and re-listens.
    if (
      isBrokenStream(error) &&
      this.reissues < REISSUE_DELAYS_MS.length &&
      method !== 'subscriptions/listen' &&
      deps.connection.state !== 'shutdown' &&
      !this.stopped
    ) {
      const delay = REISSUE_DELAYS_MS[this.reissues++] as number;
      const scheduler = deps.scheduler ?? asyncScheduler;
      this.running = scheduler.schedule(() => this.send(), delay);
      return;
    }
    let instead: Observable<Record<string, unknown>> | undefined;
    try {
      instead = this.hooks.recover?.(error);
    } catch (failure) {
      this.subscriber.error(failure);
      return;
    }
    if (instead) this.follow(instead);
    else this.subscriber.error(error);
  }

  private answered(result: Record<string, unknown>): void {
    const { method, hooks, subscriber } = this;
    const kind = resultTypeOf(result);
    if (kind === 'complete') {
      subscriber.next(completed(this.deps, method, result));
      subscriber.complete();
      return;
    }
    if (kind === 'task' && hooks.onTask) return this.follow(hooks.onTask(result));
    if (kind !== 'input_required') {
      throw new ProtocolError(
        `Invalid result for ${method} from the server: unknown resultType ${JSON.stringify(kind)}`,
      );
    }
    if (!INPUT_REQUIRED_METHODS.has(method)) {
      throw new ProtocolError(`Invalid result for ${method} from the server: ${method} may not ask for input`);
    }
    if (this.round >= this.deps.maxInputRounds) throw new InputRoundsExceededError(method, this.round);
    this.nextRound(result);
  }

  /** Answers the server's input requests, then sends the next round with the answers and state. */
  private nextRound(result: Record<string, unknown>): void {
    const { method } = this;
    const requests = readInputRequests(result.inputRequests, method);
    const { requestState } = result;
    if (requestState !== undefined && typeof requestState !== 'string') {
      throw new ProtocolError(`Invalid input_required result for ${method}: requestState must be a string`);
    }
    const asked = Object.keys(requests).length > 0;
    if (!asked && requestState === undefined) {
      throw new ProtocolError(`Invalid input_required result for ${method}: neither inputRequests nor requestState`);
    }
    const round = ++this.round;
    this.hooks.onInputRequired?.(round, requests);
    const answers = answerInputRequests(requests, this.deps.inputHandlers, this.deps.revision);
    this.follow(answers, (responses) => {
      const retry: Record<string, unknown> = {};
      if (asked) retry.inputResponses = responses;
      // MRTR → Client Requirements: echo the exact requestState, and none when there was none.
      if (requestState !== undefined) retry.requestState = requestState;
      this.params = { ...this.base, ...retry };
      this.reissues = 0;
      this.send();
    });
  }

  /** Runs `source` until it ends: its values go to `onValue`, or to the caller by default. */
  private follow(
    source: Observable<Record<string, unknown>>,
    onValue: (value: Record<string, unknown>) => void = (value) => this.subscriber.next(value),
  ): void {
    if (this.stopped) return;
    const sent = this.sends;
    const subscription = source.subscribe({
      next: onValue,
      error: (error: unknown) => this.subscriber.error(error),
      complete: () => {
        if (this.sends === sent) this.subscriber.complete();
      },
    });
    if (this.sends === sent) this.running = subscription;
  }
}

/** Where one request of an exchange answers: a request completes after its result, if it has one. */
class RoundSink implements RequestSink {
  private answered = false;

  constructor(private readonly exchange: ModernExchange) {}

  next(result: Record<string, unknown>): void {
    this.answered = true;
    this.exchange.answer(result);
  }

  error(error: unknown): void {
    this.exchange.fail(error);
  }

  complete(): void {
    if (!this.answered) this.exchange.unanswered();
  }
}
