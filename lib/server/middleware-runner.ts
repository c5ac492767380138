/**
 * How a server runs its middleware around a handler. Middleware that decides at once (see
 * `withAdmission`: the rate and concurrency limits, the tool policy, `authorize`) runs on the
 * request's own path, with one object per request and no stream per step; the first middleware
 * that needs to see the request's events (or that asks for it for this request) runs the rest of
 * the chain as streams (`runMiddleware`). Both forms mean the same: the stream form is the
 * reference, and the specs of each middleware run through both.
 */
import { isObservable } from '../rx/rxjs';
import type { Unsubscribable } from '../rx/rxjs';
import { DeferredOutput, isThenable } from '../connection/dispatcher';
import type { HandlerResult, OutputSink, RequestContext, RequestHandler } from '../connection/dispatcher';
import type { HandlerEvent } from '../connection/handler-events';
import { admissionOf, RUN_MIDDLEWARE, runMiddleware } from '../connection/middleware';
import type { Admission, AdmissionHold, Middleware, MiddlewareRequest } from '../connection/middleware';
import { relayOf, relayThrough } from '../connection/relay';
import type { RelayedCall, RequestRelay } from '../connection/relay';
import type { RequestSink } from '../connection/request-pipeline';
import type { MessageParams } from '../schema/request-meta';
import type { Revision } from '../schema/revisions';
import { eventsOf, streamed, useAdmittedRunner } from './middleware';
import { contextOf } from './request-contexts';
import type { ServerContext } from './server-context';

type Chain = readonly Middleware<MiddlewareRequest, ServerContext>[];
type Admit = (request: MiddlewareRequest, context: ServerContext) => Admission;

/** Where a replaceable middleware keeps its list. */
const REPLACEABLE: unique symbol = Symbol('rxmcp.middleware.replaceable');

/** The list of a replaceable middleware, and how many times it was replaced. */
interface Replaceable {
  chain: Chain;
  version: number;
}

/** A place in a chain whose middleware can be replaced while requests run (see {@link replaceableMiddleware}). */
export interface ReplaceableMiddleware {
  /** What goes in the chain: it runs, for each request, the list it holds when the request starts. */
  readonly middleware: Middleware<MiddlewareRequest, ServerContext>;
  /** Replaces the list: requests that start from now on run `chain`, those under way keep theirs. */
  replace(chain: Chain): void;
}

/**
 * A middleware that stands for a list of them, replaceable while requests run: a gateway's
 * policies, replaced when its config is read again. In a chain, its list is run as if it were
 * there itself (middleware that decides at once still does).
 */
export function replaceableMiddleware(initial: Chain): ReplaceableMiddleware {
  useAdmittedRunner(runAround);
  const state: Replaceable = { chain: [...initial], version: 0 };
  const middleware: Middleware<MiddlewareRequest, ServerContext> = (request, context, next) =>
    runMiddleware(state.chain, request, context, (passed) => next(passed));
  Object.assign(middleware, { [REPLACEABLE]: state });
  return {
    middleware,
    replace: (chain) => {
      state.chain = [...chain];
      state.version++;
    },
  };
}

function replaceableOf(middleware: Middleware<MiddlewareRequest, ServerContext>): Replaceable | undefined {
  return (middleware as { [REPLACEABLE]?: Replaceable })[REPLACEABLE];
}

/**
 * Whether `middleware` decides every request at once (see `withAdmission`); a replaceable one
 * when every middleware of its list does, now.
 */
export function decidesAtOnce(middleware: Middleware<MiddlewareRequest, ServerContext>): boolean {
  const replaceable = replaceableOf(middleware);
  return replaceable === undefined ? admissionOf(middleware) !== undefined : replaceable.chain.every(decidesAtOnce);
}

/** `chain` with each replaceable middleware's list in its place; `seen` gets each replaceable and its version. */
function flatten(chain: Chain, seen: Array<[Replaceable, number]>): Chain {
  if (!chain.some((middleware) => replaceableOf(middleware) !== undefined)) return chain;
  return chain.flatMap((middleware) => {
    const replaceable = replaceableOf(middleware);
    if (replaceable === undefined) return [middleware];
    seen.push([replaceable, replaceable.version]);
    return flatten(replaceable.chain, seen);
  });
}

/** A chain with its leading decisions: those of the middleware before the first that has none. */
class AdmissionChain {
  readonly admits: readonly Admit[];
  /** The chain from each middleware on, for the request that goes on as streams from there. */
  readonly rests: readonly Chain[];
  readonly chain: Chain;
  /** The handler's relay (a proxy's forwarding handler): an admitted request is relayed through it. */
  readonly relay: RequestRelay | undefined;
  /** The replaceable middleware read, with the version read. */
  private readonly replaceables: Array<[Replaceable, number]> = [];

  constructor(
    readonly handler: RequestHandler,
    given: Chain,
  ) {
    this.relay = relayOf(handler);
    const chain = (this.chain = flatten(given, this.replaceables));
    const admits: Admit[] = [];
    for (const middleware of chain) {
      const admit = admissionOf(middleware);
      if (admit === undefined) break;
      admits.push(admit);
    }
    this.admits = admits;
    this.rests = Array.from({ length: admits.length + 1 }, (_, index) => chain.slice(index));
  }

  /** Whether a replaceable middleware of the chain was replaced since. */
  get stale(): boolean {
    for (const [replaceable, version] of this.replaceables) if (replaceable.version !== version) return true;
    return false;
  }

  /** Whether the chain has replaceable middleware. */
  get replaceable(): boolean {
    return this.replaceables.length > 0;
  }
}

/**
 * `handler` with `chain` around it: with middleware that decides at once in front, each request is
 * an {@link AdmittedCall}; otherwise the whole chain runs as streams.
 */
function runAround(handler: RequestHandler, chain: Chain): RequestHandler {
  if (chain.length === 0) return handler;
  const admissions = new Admissions(handler, chain);
  if (admissions.current.admits.length === 0 && !admissions.current.replaceable) return streamed(handler, chain);
  const around: RequestHandler = (params, context, owner) => new AdmittedCall(admissions.now(), params, context, owner);
  // A relaying handler's admitted requests are relayed from the connection, with no handler between.
  const { relay, admits, chain: flat } = admissions.current;
  if (relay?.accepts === undefined || admits.length < flat.length) return around;
  return relayThrough(around, new AdmittingRelay(admissions, relay));
}

/** The admission chain of a handler and its middleware, made again when replaceable middleware was replaced. */
class Admissions {
  current: AdmissionChain;

  constructor(
    private readonly handler: RequestHandler,
    private readonly chain: Chain,
  ) {
    this.current = new AdmissionChain(handler, chain);
  }

  now(): AdmissionChain {
    const current = this.current;
    if (!current.replaceable || !current.stale) return current;
    return (this.current = new AdmissionChain(this.handler, this.chain));
  }
}

/**
 * The relay of a handler with middleware that decides at once around it: a request the handler's
 * relay accepts is admitted on the relay's own path (with the request's context made for the
 * middleware), then relayed; one that the chain sends on as streams gets the handler, through the
 * dispatcher's reading of its output. A chain that no longer decides at once (replaced) declines.
 */
class AdmittingRelay implements RequestRelay {
  constructor(
    private readonly admissions: Admissions,
    private readonly relay: RequestRelay,
  ) {}

  accepts(method: string, params: MessageParams, revision: Revision): boolean {
    return this.relay.accepts!(method, params, revision);
  }

  start(
    method: string,
    params: MessageParams,
    revision: Revision,
    sink: RequestSink,
    owner: unknown,
    call: RelayedCall,
  ): Unsubscribable | undefined | false {
    const admitting = this.admissions.now();
    if (admitting.admits.length < admitting.chain.length || !this.relay.accepts!(method, params, revision))
      return false;
    return new AdmittedCall(admitting, params, call.context(), owner, call).start(sink);
  }
}

/**
 * One request through a chain whose leading middleware decide at once: started (subscribed) by its
 * reader, it asks each decision in order; a refusal ends it with that error, a hold is released
 * when it ends (answered, failed or cancelled). It then starts the handler with the reader's own
 * sink (or, with holds, with itself in between), or the rest of the chain as streams.
 */
class AdmittedCall extends DeferredOutput implements OutputSink<unknown>, Unsubscribable, RelayedCall {
  // Assigned in the constructor, not declared as class fields: V8 defines a derived class's
  // fields by a step of their own after its base's constructor, and one call is made per request.
  declare private readonly admitting: AdmissionChain;
  declare private readonly params: Record<string, unknown>;
  declare private readonly requestContext: RequestContext;
  declare private readonly owner: unknown;
  /** The relayed request this call admits, whose sink takes results only. */
  declare private readonly relayed: RelayedCall | undefined;
  declare private sink: OutputSink<unknown> | undefined;
  declare private holds: AdmissionHold | AdmissionHold[] | undefined;
  declare private inner: Unsubscribable | undefined;
  declare private ended: boolean;
  /** Where the handler's output goes, once known: what a relay asks for as `output()`. */
  declare private target: OutputSink<unknown> | undefined;

  constructor(
    admitting: AdmissionChain,
    params: Record<string, unknown>,
    requestContext: RequestContext,
    owner: unknown,
    relayed?: RelayedCall,
  ) {
    super();
    this.admitting = admitting;
    this.params = params;
    this.requestContext = requestContext;
    this.owner = owner;
    this.relayed = relayed;
    this.sink = undefined;
    this.holds = undefined;
    this.inner = undefined;
    this.ended = false;
    this.target = undefined;
  }

  start(sink: OutputSink<HandlerResult | HandlerEvent>): Unsubscribable | undefined {
    const server = contextOf(this.requestContext, this.owner);
    const request: MiddlewareRequest = { method: this.requestContext.method, params: this.params };
    const { admits, chain } = this.admitting;
    let index = 0;
    try {
      for (; index < admits.length; index++) {
        const admission = admits[index]!(request, server);
        if (admission === undefined) continue;
        if (admission === RUN_MIDDLEWARE) break;
        if (admission instanceof Error) return this.refuse(sink, admission);
        this.hold(admission);
      }
    } catch (error) {
      return this.refuse(sink, error);
    }
    const rest = index < chain.length;
    // What the rest of the chain emits may be events: a relayed request's own sink takes results only.
    const base = rest && this.relayed !== undefined ? this.relayed.output() : sink;
    // With holds, the end passes through this call (to release them); without, nothing does.
    const target = this.holds === undefined ? base : this.between(base);
    const inner = rest ? this.runRest(index, request, server, target) : this.runHandler(target);
    if (this.holds === undefined || this.ended) return inner;
    this.inner = inner;
    return this;
  }

  /** The dispatched request's context, for a relay that asks for it. */
  context(): RequestContext {
    return this.requestContext;
  }
  /** The dispatcher's reader of this call's output (or this call, holding its slots, in front of it). */
  output(): OutputSink<unknown> {
    return this.target!;
  }

  next(value: unknown): void {
    this.sink!.next(value as HandlerResult);
  }
  error(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.sink!.error(error);
    this.release();
  }
  complete(): void {
    if (this.ended) return;
    this.ended = true;
    this.sink!.complete();
    this.release();
  }
  /** The reader cancelled: the work below stops, and the holds go. */
  unsubscribe(): void {
    if (this.ended) return;
    this.ended = true;
    this.inner?.unsubscribe();
    this.release();
  }

  private runRest(index: number, request: MiddlewareRequest, server: ServerContext, target: OutputSink<unknown>) {
    const { handler, rests } = this.admitting;
    return runMiddleware(rests[index]!, request, server, (passed) =>
      eventsOf(handler(passed.params, this.requestContext, this.owner)),
    ).subscribe(target);
  }

  /** This call, as the sink of what it runs, passing on to `sink`. */
  private between(sink: OutputSink<unknown>): OutputSink<unknown> {
    this.sink = sink;
    return this;
  }

  private runHandler(target: OutputSink<unknown>): Unsubscribable | undefined {
    const { relay } = this.admitting;
    let output: unknown;
    try {
      if (relay !== undefined) {
        const { method, revision } = this.requestContext;
        // Dispatched, this call is what the relay may ask of the request (see `context`, `output`).
        this.target = target;
        // A relayed request was accepted by the relay just before it was admitted (see AdmittingRelay).
        const { relayed: call } = this;
        const relayed = relay.start(
          method,
          this.params,
          revision,
          target,
          this.owner,
          call ?? this,
          call !== undefined,
        );
        if (relayed !== false) return relayed;
        // Admitted on the relay's path for a relay that accepted it: it cannot go to the handler now.
        if (call !== undefined) throw new Error(`the relay declined ${method} after accepting it`);
      }
      output = this.admitting.handler(this.params, this.requestContext, this.owner);
    } catch (error) {
      target.error(error);
      return undefined;
    }
    return deliver(output, target);
  }

  private refuse(sink: OutputSink<unknown>, error: unknown): undefined {
    this.ended = true;
    sink.error(error);
    this.release();
    return undefined;
  }

  private hold(hold: AdmissionHold): void {
    if (this.holds === undefined) this.holds = hold;
    else if (Array.isArray(this.holds)) this.holds.push(hold);
    else this.holds = [this.holds, hold];
  }

  private release(): void {
    const holds = this.holds;
    this.holds = undefined;
    if (holds === undefined) return;
    if (!Array.isArray(holds)) holds.release();
    // The innermost first, as streams would finalize them.
    else for (let i = holds.length - 1; i >= 0; i--) holds[i]!.release();
  }
}

/** Hands what a handler gave, of any form, to `sink`; answers what cancels it. */
function deliver(output: unknown, sink: OutputSink<unknown>): Unsubscribable | undefined {
  if (output instanceof DeferredOutput) return output.start(sink);
  if (isObservable(output)) return output.subscribe(sink);
  if (isThenable(output)) {
    let live = true;
    output.then(
      (value) => {
        if (!live) return;
        sink.next(value ?? {});
        sink.complete();
      },
      (error: unknown) => {
        if (live) sink.error(error);
      },
    );
    return { unsubscribe: () => void (live = false) };
  }
  sink.next(output ?? {});
  sink.complete();
  return undefined;
}

/**
 * `middleware` itself, once servers run chains with {@link runAround}: this library's middleware
 * that decides at once passes through here as it is made, so a server whose middleware never did
 * runs its chains as streams, and a bundle without such middleware leaves this module out.
 */
export function admitted<M>(middleware: M): M {
  useAdmittedRunner(runAround);
  return middleware;
}
