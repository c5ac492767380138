/**
 * Requests a connection passes on to another connection as they came, with no handler of its own
 * between: a proxy's forwarded calls, when nothing of the caller's hop has to be translated. The
 * request still counts as in flight here (a duplicate id is refused, a cancellation or a close
 * cancels it upstream), and its answer goes back under the caller's id; what the handler would
 * have added (a request context, an output observer) is not made.
 */
import type { Unsubscribable } from '../rx/rxjs';
import { errorResponse, resultResponse } from '../jsonrpc/message';
import type { JsonRpcRequest } from '../jsonrpc/message';
import type { MessageParams } from '../schema/request-meta';
import type { Revision } from '../schema/revisions';
import type { Replier } from './connection-core';
import { passParamsThrough } from './dispatcher';
import type { Answer, Dispatcher, InFlight, OutputSink } from './dispatcher';
import type { RequestContext, RequestHandler } from './request-handler';
import type { RequestSink } from './request-pipeline';

/**
 * What a relay may ask of the request it is given, for work of its own before it sends the request
 * on (a gateway's limits): the request's context, made when first asked for, and a sink that reads
 * a handler's output as the dispatcher would (its events to the context, its last value the
 * result), for a request that needs its handler after all.
 */
export interface RelayedCall {
  context(): RequestContext;
  output(): OutputSink<unknown>;
}

/**
 * How a handler's requests may be relayed: `start` sends one on, answering `sink`, and returns what
 * cancels it (undefined when it already ended); or false, having sent nothing, when this request
 * needs the handler (its caller asked for progress, say). `owner` is the connection's (a session),
 * and `call` what the relay may ask of the request. A relay with `accepts` says beforehand, with
 * no side effect, whether `start` would take a request; `accepted` tells `start` that its caller
 * has just asked that of this request and had a yes, so that it need not ask again.
 */
export interface RequestRelay {
  accepts?(method: string, params: MessageParams, revision: Revision): boolean;
  start(
    method: string,
    params: MessageParams,
    revision: Revision,
    sink: RequestSink,
    owner: unknown,
    call: RelayedCall,
    accepted?: boolean,
  ): Unsubscribable | undefined | false;
}

const RELAY: unique symbol = Symbol('rxmcp.relay');

type RelayingHandler = RequestHandler & { [RELAY]?: RequestRelay };

/**
 * Marks `handler` as one whose requests `relay` may send on instead (see {@link RequestRelay}),
 * and whose params, relayed or not, are left to the next hop to check (`passParamsThrough`).
 * Returns it.
 */
export function relayThrough(handler: RequestHandler, relay: RequestRelay): RequestHandler {
  (handler as RelayingHandler)[RELAY] = relay;
  return passParamsThrough(handler);
}

/** The relay `handler` was marked with, if any. */
export function relayOf(handler: RequestHandler): RequestRelay | undefined {
  return (handler as RelayingHandler)[RELAY];
}

/**
 * Relays `request` through `relay` when the relay takes it and the request's id is free: true when
 * it did (the answer will come through `reply`), false when the request goes to its handler.
 */
export function relayRequest(
  dispatcher: Dispatcher,
  relay: RequestRelay,
  request: JsonRpcRequest,
  params: MessageParams,
  revision: Revision,
  owner: unknown,
  reply: Replier,
): boolean {
  const relayed = new RelayedRequest(dispatcher, request, params, revision, reply);
  if (!dispatcher.track(request.id, relayed)) return false;
  let upstream: Unsubscribable | undefined | false;
  try {
    upstream = relay.start(request.method, params, revision, relayed, owner, relayed);
  } catch (error) {
    // A relay that throws fails this request only, as a handler that throws does.
    relayed.error(error);
    return true;
  }
  if (upstream === false) {
    dispatcher.finish(request.id, relayed);
    return false;
  }
  // Cancelled while it was being sent: the request sent on is cancelled too.
  if (relayed.cancelled) upstream?.unsubscribe();
  else if (!relayed.answered) relayed.subscription = upstream;
  return true;
}

/** One relayed request: in flight at the dispatcher, and the sink of the request sent on. */
class RelayedRequest implements InFlight, RequestSink, RelayedCall {
  cancelled = false;
  subscription: Unsubscribable | undefined = undefined;
  abort: AbortController | undefined = undefined;
  /** Whether the request sent on ended (with a result or an error). */
  answered = false;
  private result: Record<string, unknown> | undefined = undefined;
  private made: RequestContext | undefined = undefined;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly request: JsonRpcRequest,
    private readonly params: MessageParams,
    private readonly revision: Revision,
    private readonly reply: Replier,
  ) {}

  context(): RequestContext {
    return (this.made ??= this.dispatcher.contextFor(this.request, this.params, this.revision, this));
  }

  output(): OutputSink<unknown> {
    return this.dispatcher.observer(this.request, this, this.context(), (answer: Answer) => {
      this.answered = true;
      const { id } = this.request;
      if (answer === null) this.reply.answer(null);
      else if ('error' in answer) this.reply.answer(errorResponse(id, answer.error));
      else this.reply.answer(resultResponse(id, answer.result));
    });
  }

  next(result: Record<string, unknown>): void {
    this.result = result;
  }

  error(error: unknown): void {
    this.answered = true;
    const { request } = this;
    if (this.dispatcher.finish(request.id, this))
      this.reply.answer(errorResponse(request.id, this.dispatcher.toError(error, request, undefined)));
  }

  complete(): void {
    this.answered = true;
    const { request } = this;
    if (this.dispatcher.finish(request.id, this)) this.reply.answer(resultResponse(request.id, this.result ?? {}));
  }
}
