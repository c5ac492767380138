/**
 * The Streamable HTTP endpoint's side of authorization, after a request's token was verified:
 * scopes per tool, resource or prompt, and sessions that stay with the principal who opened them.
 */
import type { HttpRequestLike, HttpResponseLike } from '../http/http-exchange';
import type pino from 'pino';
import { refuse } from '../http/http-guards';
import { answerRefusal, verifiedCallers } from '../http/request-auth';
import type { RequestAuthenticator } from '../http/request-auth';
import { scopesToChallenge } from '../http/caller';
import type { ScopeRule } from '../http/caller';
import { principalOf } from '../transport';
import type { AuthInfo } from '../transport';
import type { StreamableHttpServerTransport } from './streamable-http/streamable-http-session';

/** Refuses (403 `insufficient_scope`) a POST whose token lacks a scope its tool, resource or prompt needs. */
export function lacksScopes(
  auth: RequestAuthenticator,
  required: ScopeRule | undefined,
  req: HttpRequestLike,
  res: HttpResponseLike,
  items: readonly unknown[],
): boolean {
  const caller = verifiedCallers.get(req);
  const scopes = caller === undefined ? undefined : scopesToChallenge(caller, required, items);
  if (scopes === undefined) return false;
  answerRefusal(res, auth.insufficientScope(scopes));
  return true;
}

/**
 * The principal each session was opened by, fixed when it was made. A session opened by a request
 * no `auth` checked has none (`undefined`), and then serves anyone who has its id.
 */
const owners = new WeakMap<StreamableHttpServerTransport, string | undefined>();

/**
 * Binds a new session to the principal of the request that opened it (or, for a session restored
 * from elsewhere, to the principal it was opened by), and gives its transport that caller's
 * `auth`. Called once, when the session is made; the binding never changes afterwards.
 */
export function bindOwner(
  transport: StreamableHttpServerTransport,
  req: HttpRequestLike | undefined,
  principal?: string,
): void {
  const caller = req === undefined ? undefined : verifiedCallers.get(req);
  owners.set(transport, caller ? principalOf(caller) : principal);
  if (caller) (transport as { auth?: AuthInfo }).auth = caller;
}

/** The principal a session is bound to; `undefined` when it was opened without `auth`. */
export function ownerOf(transport: StreamableHttpServerTransport): string | undefined {
  return owners.get(transport);
}

/**
 * Refreshes a session's `auth` with its latest request's verified caller (a new token of the same
 * principal: other scopes, a later expiry). Only after {@link sameCaller} let the request through:
 * a caller of another principal never reaches here, and is never noted.
 */
export function setCaller(transport: StreamableHttpServerTransport, req: HttpRequestLike): void {
  const caller = verifiedCallers.get(req);
  if (caller && principalOf(caller) === owners.get(transport)) (transport as { auth?: AuthInfo }).auth = caller;
}

/**
 * A session stays with the principal who opened it: a request of another principal, or of none
 * when the session has one, is refused (403) and touches nothing.
 */
export function sameCaller(
  transport: StreamableHttpServerTransport,
  req: HttpRequestLike,
  res: HttpResponseLike,
  log: pino.Logger,
): boolean {
  const owner = owners.get(transport);
  if (owner === undefined || owner === principalOf(verifiedCallers.get(req))) return true;
  log.warn({ sessionId: transport.sessionId }, 'request refused: the session belongs to another principal');
  refuse(res, 403, 'Forbidden: this session belongs to another user');
  return false;
}
