import { Observable } from '../rx/rxjs';
import type { SchedulerLike, Subscriber, Subscription } from '../rx/rxjs';
import type { HandlerResult, RequestContext } from '../connection/dispatcher';
import { JsonRpcError } from '../jsonrpc/errors';
import { timerScheduler } from '../operators/timer-scheduler';
import type { TimerAction } from '../operators/timer-scheduler';

/** How long a call waiting for a modern caller's answers is kept before it is cancelled upstream. */
export const DEFAULT_INPUT_WAIT_MS = 5 * 60_000;

/** What starts the upstream call of a bridged request; `current` is the caller's request of the round in progress (for its progress token). */
export type UpstreamCall = (current: () => RequestContext) => Observable<HandlerResult>;

/** One request for input the upstream made, waiting for the downstream caller's answer. */
interface PendingInput {
  readonly key: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly answer: Subscriber<Record<string, unknown>>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One upstream call made for a caller of a modern revision (2026-07-28 on), which cannot be
 * sent requests: what the upstream asks while the call runs (sampling, elicitation, roots — sent by
 * a server of a handshake revision, or an `input_required` of a modern one) ends the caller's
 * request with an `input_required` result (spec 2026-07-28: Multi Round-Trip Requests) whose
 * `requestState` names this call. The upstream call stays open meanwhile; the caller's retry
 * carries the answers, which go to the upstream as the answers to its requests, and the retry then
 * waits for the call's result or its next questions. So the upstream tool runs once, whatever the
 * number of rounds.
 */
export class BridgedCall {
  readonly token = globalThis.crypto.randomUUID();
  private readonly pending = new Map<string, PendingInput>();
  private keys = 0;
  private context: RequestContext;
  private round: Subscriber<HandlerResult> | undefined;
  private outcome: { readonly result: HandlerResult } | { readonly error: unknown } | undefined;
  private upstream: Subscription | undefined;
  private settling: Subscription | undefined;
  private expiry: Subscription | undefined;

  constructor(
    context: RequestContext,
    private readonly calls: BridgedCalls,
  ) {
    this.context = context;
  }

  /** The revision the caller speaks. */
  get revision(): string {
    return this.context.revision;
  }

  /** Starts the upstream call; returns the first round, which the downstream request answers with. */
  start(call: UpstreamCall): Observable<HandlerResult> {
    const round = this.nextRound(this.context);
    this.upstream = call(() => this.context).subscribe({
      next: (result) => this.finish({ result }),
      error: (error: unknown) => this.finish({ error }),
    });
    return round;
  }

  /** The caller's retry: its answers go upstream, and the retry answers with what comes next. */
  resume(context: RequestContext, params: Record<string, unknown>): Observable<HandlerResult> {
    if (this.round) throw JsonRpcError.invalidRequest('This requestState is being retried by another request already');
    this.expiry?.unsubscribe();
    this.context = context;
    const responses = isObject(params.inputResponses) ? params.inputResponses : {};
    const answered: Array<[PendingInput, Record<string, unknown>]> = [];
    for (const [key, answer] of Object.entries(responses)) {
      const input = this.pending.get(key);
      if (!input) continue; // an answer to a question already answered, or never asked: ignored
      if (!isObject(answer)) {
        throw JsonRpcError.invalidParams([{ path: `inputResponses.${key}`, message: 'Expected an object' }]);
      }
      answered.push([input, answer]);
    }
    const round = this.nextRound(context);
    for (const [input, answer] of answered) {
      this.pending.delete(input.key);
      input.answer.next(answer);
      input.answer.complete();
    }
    return round;
  }

  /** A request the upstream makes while the call runs: asked of the caller in the next `input_required`. */
  ask(method: string, params: Record<string, unknown>): Observable<Record<string, unknown>> {
    return new Observable((answer) => {
      const key = String(++this.keys);
      this.pending.set(key, { key, method, params, answer });
      this.settle();
      return () => this.pending.delete(key);
    });
  }

  /** Cancels the upstream call and forgets it. */
  cancel(): void {
    this.calls.forget(this);
    this.settling?.unsubscribe();
    this.settling = undefined;
    this.expiry?.unsubscribe();
    this.upstream?.unsubscribe();
  }

  private nextRound(context: RequestContext): Observable<HandlerResult> {
    return new Observable<HandlerResult>((round) => {
      this.round = round;
      this.context = context;
      this.deliver();
      return () => {
        if (this.round !== round) return;
        // The caller went away before an answer (cancelled, or its connection closed): so does the call.
        this.round = undefined;
        this.cancel();
      };
    });
  }

  /** The upstream answered. With no round waiting, the outcome is kept for the caller's retry (until it expires). */
  private finish(outcome: { readonly result: HandlerResult } | { readonly error: unknown }): void {
    this.outcome = outcome;
    this.deliver();
  }

  /** Answers the round in progress with the call's outcome, if it has one. */
  private deliver(): void {
    const round = this.round;
    if (!round || !this.outcome) {
      if (round && this.pending.size > 0) this.settle();
      return;
    }
    this.round = undefined;
    this.settling?.unsubscribe();
    this.settling = undefined;
    this.expiry?.unsubscribe();
    this.calls.forget(this);
    if ('result' in this.outcome) {
      round.next(this.outcome.result);
      round.complete();
    } else round.error(this.outcome.error);
  }

  /**
   * Once the upstream's requests of this turn are all in (the scheduler's next task), ends the
   * round with an `input_required` result naming them, and keeps the call for the retry.
   */
  private settle(): void {
    if (this.settling) return;
    this.settling = this.calls.scheduler.schedule(() => {
      this.settling = undefined;
      const round = this.round;
      if (!round || this.outcome || this.pending.size === 0) return;
      const inputRequests: Record<string, unknown> = {};
      for (const [key, input] of this.pending) inputRequests[key] = { method: input.method, params: input.params };
      this.round = undefined;
      this.calls.keep(this);
      // The wait does not keep the process alive: nothing but a retry that may never come needs it.
      const expiry: Subscription & Partial<TimerAction> = this.calls.scheduler.schedule(
        () => this.cancel(),
        this.calls.waitMs,
      );
      expiry.unref?.();
      this.expiry = expiry;
      round.next({ resultType: 'input_required', inputRequests, requestState: this.token });
      round.complete();
    });
  }
}

/** The calls of one proxy that wait for their modern callers' answers, by `requestState`. */
export class BridgedCalls {
  private readonly waiting = new Map<string, BridgedCall>();

  constructor(
    readonly scheduler: SchedulerLike = timerScheduler,
    readonly waitMs: number = DEFAULT_INPUT_WAIT_MS,
  ) {}

  /** How many calls wait for answers now. */
  get size(): number {
    return this.waiting.size;
  }

  /** The call a retry's `requestState` names; a clear error when it is unknown or has expired. */
  take(requestState: unknown): BridgedCall {
    const call = typeof requestState === 'string' ? this.waiting.get(requestState) : undefined;
    if (!call) {
      throw JsonRpcError.invalidParams([
        {
          path: 'requestState',
          message: 'Unknown or expired requestState: send the request again without inputResponses and requestState',
        },
      ]);
    }
    return call;
  }

  keep(call: BridgedCall): void {
    this.waiting.set(call.token, call);
  }

  forget(call: BridgedCall): void {
    if (this.waiting.get(call.token) === call) this.waiting.delete(call.token);
  }

  /** Cancels every waiting call (the proxy closed). */
  close(): void {
    for (const call of [...this.waiting.values()]) call.cancel();
  }
}
