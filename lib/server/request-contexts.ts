import type { SchedulerLike } from '../rx/rxjs';
import type { HandlerOutput, HandlerResult, RequestContext } from '../connection/dispatcher';
import { principalOf } from '../transport/transport';
import { InputRound, isMultiRound } from './input-round';
import type { RequestStateSealer } from './request-state';
import { SessionContext, ModernContext } from './server-context';
import type { ServerContext } from './server-context';
import type { Session } from './session';

/**
 * Whether a request came in a session of a handshake revision, which is then its owner (the
 * connection's): one without a modern peer always does. A modern request belongs to no session,
 * even on a connection a session owns. The one place this rule is stated: the handlers narrow
 * their owner with it rather than each asserting its type.
 */
export function inSession(context: RequestContext, _owner: unknown): _owner is Session {
  return context.peer === undefined;
}

/** The context of a request that asks its client nothing: its session's, or a modern request's. */
export function contextOf(context: RequestContext, session: unknown): ServerContext {
  return inSession(context, session) ? new SessionContext(context, session) : new ModernContext(context, undefined);
}

/**
 * Runs the work of a request that may ask its client for input: in a session, as requests on the
 * connection; under a modern revision, through the request's input round (spec 2026-07-28:
 * MRTR), which may end the attempt with an input-required result. The sealer is read only then.
 */
export function runWithInput(
  parts: { readonly sealer: RequestStateSealer },
  scheduler: SchedulerLike | undefined,
  params: Record<string, unknown>,
  context: RequestContext,
  session: unknown,
  work: (context: ServerContext) => HandlerOutput<HandlerResult>,
): HandlerOutput<HandlerResult> {
  if (inSession(context, session)) return work(new SessionContext(context, session));
  if (!isMultiRound(context.method)) return work(new ModernContext(context, undefined));
  // The state is bound to who asked: a retry by anyone else is refused before the handler runs.
  const round = new InputRound(context.method, params, {
    sealer: parts.sealer,
    scheduler,
    principal: principalOf(context.peer?.auth),
  });
  return round.run(work(new ModernContext(context, round)));
}
