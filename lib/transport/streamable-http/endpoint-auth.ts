/**
 * The Streamable HTTP endpoint's side of authorization, after a request's token was verified:
 * scopes per tool, resource or prompt, and sessions that stay with the user who opened them.
 */
import type { HttpRequestLike, HttpResponseLike } from '../http/http-exchange';
import type pino from 'pino';
import { refuse } from '../http/http-guards';
import { answerRefusal, verifiedCallers } from '../http/request-auth';
import type { RequestAuthenticator } from '../http/request-auth';
import type { AuthInfo } from '../transport';
import type { StreamableHttpServerTransport } from './streamable-http-session';

/** Refuses (403 `insufficient_scope`) a POST whose token lacks a scope its tool, resource or prompt needs. */
export function lacksScopes(
  auth: RequestAuthenticator,
  required: ((method: string, params: unknown) => readonly string[]) | undefined,
  req: HttpRequestLike,
  res: HttpResponseLike,
  items: readonly unknown[],
): boolean {
  const caller = verifiedCallers.get(req);
  if (!caller || !required) return false;
  const needed = new Set<string>();
  for (const item of items) {
    const message = item as { method?: unknown; params?: unknown };
    if (typeof message.method !== 'string') continue;
    for (const scope of required(message.method, message.params)) if (!caller.scopes.includes(scope)) needed.add(scope);
  }
  if (needed.size === 0) return false;
  answerRefusal(res, auth.insufficientScope([...new Set([...caller.scopes, ...needed])]));
  return true;
}

/** Notes on a session's transport who its latest request came from. */
export function setCaller(transport: StreamableHttpServerTransport, req: HttpRequestLike): void {
  const caller = verifiedCallers.get(req);
  if (caller) (transport as { auth?: AuthInfo }).auth = caller;
}

/** A session stays with the user who opened it: another subject's token is refused (403). */
export function sameCaller(
  transport: StreamableHttpServerTransport,
  req: HttpRequestLike,
  res: HttpResponseLike,
  log: pino.Logger,
): boolean {
  const owner = transport.auth?.subject;
  const caller = verifiedCallers.get(req)?.subject;
  if (owner === undefined || owner === caller) return true;
  log.warn({ sessionId: transport.sessionId }, 'request refused: the session belongs to another user');
  refuse(res, 403, 'Forbidden: this session belongs to another user');
  return false;
}
