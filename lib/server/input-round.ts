import { asyncScheduler, isObservable, Observable, Subject } from '../rx/rxjs';
import type { SchedulerLike, Subscription } from '../rx/rxjs';
import type { HandlerOutput, HandlerResult } from '../connection/dispatcher';
import { JsonRpcError } from '../jsonrpc/errors';
import { toValidationIssues } from '../validation/issues';
import { inputResponseSchemaFor } from '../schema/input-requests';
import { requestBinding } from './request-state';
import type { RequestStatePayload, RequestStateSealer } from './request-state';

/** The methods a server may ask its client through an input-required result (spec 2026-07-28: MRTR). */
const INPUT_METHODS: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Methods whose requests may be answered with an input-required result. */
export const MULTI_ROUND_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** What one round needs from the server. */
export interface InputRoundOptions {
  readonly sealer: RequestStateSealer;
  readonly scheduler?: SchedulerLike;
  /** The authenticated principal of the request, when there is one: a state is bound to it. */
  readonly principal?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a client's answer to one input request against the schema of the request's result; -32602 when it does not fit. */
function checkAnswer(key: string, method: string, answer: unknown): unknown {
  const schema = inputResponseSchemaFor(method);
  if (!schema) return answer;
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const issues = toValidationIssues(parsed.error).map((issue) => ({
    path: `inputResponses.${key}${issue.path ? `.${issue.path}` : ''}`,
    message: issue.message,
  }));
  throw JsonRpcError.invalidParams(issues);
}

/**
 * One attempt at a multi round-trip request (spec 2026-07-28: MRTR) and how a handler's requests to
 * its client are answered in it. The handler runs from the start on every attempt; its n-th input
 * request is keyed by its order, so a deterministic handler asks the same keys each time:
 * - an input request answered in this attempt or an earlier one (kept in the sealed
 *   `requestState`) emits its answer at once, synchronously;
 * - one not answered yet emits nothing: once the handler's turn is over (the scheduler's next
 *   task), the round ends the attempt with an `InputRequiredResult` that carries every unanswered
 *   request and a state holding the answers so far, and the handler is unsubscribed.
 * So the work a handler does before its last input request runs again on each attempt: keep it
 * free of effects that must happen once, or do them after the inputs are in.
 */
export class InputRound {
  /** What ties a state to this request (a digest of its method and params), made when first needed. */
  private bound: string | undefined;
  private readonly answers: Record<string, unknown>;
  /** The answers this attempt carries, checked only when the handler asks for their key. */
  private readonly offered: Record<string, unknown>;
  /** The input requests not answered yet, made when the first one is asked. */
  private asked: Map<string, { readonly method: string; readonly params: unknown }> | undefined;
  /** Emits the input-required result that ends the attempt; made when the output is not a value. */
  private suspension: Subject<Record<string, unknown>> | undefined;
  private readonly scheduler: SchedulerLike;
  private count = 0;
  private settling: Subscription | undefined;

  /**
   * Opens the round of a request: verifies the `requestState` it carries (-32602 when forged,
   * expired or not this request's). Its `inputResponses` are checked when the handler asks for
   * their keys (-32602 for an answer of the wrong shape); answers to keys never asked are ignored.
   */
  constructor(
    private readonly method: string,
    private readonly params: Record<string, unknown>,
    private readonly options: InputRoundOptions,
  ) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.answers = {};
    this.offered = isObject(params.inputResponses) ? params.inputResponses : {};
    if (params.requestState === undefined) return;
    const state: RequestStatePayload = options.sealer.open(
      params.requestState,
      this.binding,
      this.scheduler.now(),
      options.principal,
    );
    Object.assign(this.answers, state.answers);
  }

  /** Most requests never ask for input: their digest is not worth computing until one does. */
  private get binding(): string {
    return (this.bound ??= requestBinding(this.method, this.params));
  }

  /**
   * Asks the client: cold; on subscription, emits the answer when this round has it, else waits
   * for the round to end the attempt (see the class).
   */
  ask<T>(method: string, params: Record<string, unknown> | undefined, inputKey?: string): Observable<T> {
    return new Observable<T>((subscriber) => {
      const index = this.count++;
      const key = inputKey ?? `${INPUT_METHODS[method] ?? 'input'}-${index}`;
      if (!Object.hasOwn(this.answers, key) && Object.hasOwn(this.offered, key)) {
        // Answers are the client's word with or without a state; they must fit what was asked.
        try {
          this.answers[key] = checkAnswer(key, method, this.offered[key]);
        } catch (error) {
          subscriber.error(error);
          return undefined;
        }
      }
      if (Object.hasOwn(this.answers, key)) {
        subscriber.next(this.answers[key] as T);
        subscriber.complete();
        return undefined;
      }
      (this.asked ??= new Map()).set(key, { method, params: params ?? {} });
      this.settling ??= this.scheduler.schedule(() => this.suspend());
      return undefined;
    });
  }

  /**
   * The handler's output, raced against the round: whatever the handler produces passes through
   * until the round suspends the attempt; then the input-required result is the last value and the
   * handler is unsubscribed. A plain value (not an Observable or a promise) is returned as it is:
   * the handler answered within its turn, so the round never suspends.
   */
  run<T>(output: Observable<T>): Observable<T | HandlerResult>;
  run<R>(output: HandlerOutput<R>): HandlerOutput<R | HandlerResult>;
  run(output: unknown): unknown {
    if (!isObservable(output) && typeof (output as PromiseLike<unknown> | undefined)?.then !== 'function') {
      // A value: the handler's turn is over and it answered, whatever it asked on the way.
      this.settling?.unsubscribe();
      return output;
    }
    return new Observable<unknown>((subscriber) => {
      const suspension = (this.suspension ??= new Subject()).subscribe({
        next: (result) => {
          subscriber.next(result);
          subscriber.complete();
        },
        error: (error: unknown) => subscriber.error(error),
      });
      const source = isObservable(output)
        ? output
        : new Observable<unknown>((inner) => {
            (output as PromiseLike<unknown>).then(
              (value) => {
                inner.next(value);
                inner.complete();
              },
              (error: unknown) => inner.error(error),
            );
          });
      const work = source.subscribe(subscriber);
      return () => {
        suspension.unsubscribe();
        work.unsubscribe();
        this.settling?.unsubscribe();
      };
    });
  }

  private suspend(): void {
    if (this.asked === undefined) return;
    const inputRequests: Record<string, unknown> = {};
    const asked: Record<string, string> = {};
    for (const [key, request] of this.asked) {
      inputRequests[key] = { method: request.method, params: request.params };
      asked[key] = request.method;
    }
    const payload: RequestStatePayload = {
      request: this.binding,
      expiresAt: this.options.sealer.expiry(this.scheduler.now()),
      answers: this.answers,
      asked,
      ...(this.options.principal === undefined ? {} : { principal: this.options.principal }),
    };
    let requestState: string;
    try {
      requestState = this.options.sealer.seal(payload);
    } catch (error) {
      this.suspension?.error(error);
      return;
    }
    this.suspension?.next({ resultType: 'input_required', inputRequests, requestState });
  }
}

/** Whether a request of `method` may be answered with an input-required result. */
export function isMultiRound(method: string): boolean {
  return MULTI_ROUND_METHODS.has(method);
}

/** The capability a client declares for an input request method. */
export function inputCapabilityOf(method: string): string | undefined {
  return INPUT_METHODS[method];
}
