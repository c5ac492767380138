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
import type { Dispatcher, InFlight } from './dispatcher';
import type { RequestHandler } from './request-handler';
import type { RequestSink } from './request-pipeline';

/**
 * How a handler's requests may be relayed: `start` sends one on, answering `sink`, and returns what
 * cancels it (undefined when it already ended); or false, having sent nothing, when this request
 * needs the handler (its caller asked for progress, say).
 */
export interface RequestRelay {
  start(
    method: string,
    params: MessageParams,
    revision: Revision,
    sink: RequestSink,
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
  reply: Replier,
): boolean {
  const relayed = new RelayedRequest(dispatcher, request, reply);
  if (!dispatcher.track(request.id, relayed)) return false;
  let upstream: Unsubscribable | undefined | false;
  try {
    upstream = relay.start(request.method, params, revision, relayed);
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
class RelayedRequest implements InFlight, RequestSink {
  cancelled = false;
  subscription: Unsubscribable | undefined = undefined;
  /** Whether the request sent on ended (with a result or an error). */
  answered = false;
  private result: Record<string, unknown> | undefined = undefined;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly request: JsonRpcRequest,
    private readonly reply: Replier,
  ) {}

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
