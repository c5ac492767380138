/**
 * A verified caller's rights on any protected serving surface (Streamable HTTP, HTTP+SSE, WebSocket):
 * the scopes a message needs beyond the endpoint's own, and the check that `auth` is something the
 * surface can apply. How a refusal is answered stays with each transport.
 */
import type { AuthInfo, Transport } from '../transport';
import type { RequestAuthenticator } from './request-auth';

/**
 * The scopes one request needs beyond the endpoint's own: those of the tool it calls, the resource
 * it reads or the prompt it gets (`McpServer.requiredScopes`).
 */
export type ScopeRule = (method: string, params: unknown) => readonly string[];

/**
 * What a WebSocket or HTTP+SSE endpoint needs of the server it serves: `createServer`'s result fits.
 * Its `requiredScopes` are checked on every message under `auth`.
 */
export interface TransportServer {
  /** Serves a session on `transport`. */
  connect(transport: Transport): unknown;
  /** The scopes a request needs beyond the endpoint's own (a tool's, a resource's or a prompt's). */
  requiredScopes?(method: string, params: unknown): readonly string[];
}

/** The scope rule of `server`, bound to it; undefined when it has none. */
export function scopeRuleOf(server: TransportServer | undefined): ScopeRule | undefined {
  return server?.requiredScopes ? server.requiredScopes.bind(server) : undefined;
}

/**
 * When a message of `items` (one message, or a batch's) needs a scope `caller` does not hold: the
 * scopes to ask for, those held and those lacking, as a 403 `insufficient_scope` challenge names
 * them. Undefined when the caller holds every scope needed, or there is no rule.
 */
export function scopesToChallenge(
  caller: AuthInfo,
  rule: ScopeRule | undefined,
  items: readonly unknown[],
): string[] | undefined {
  if (rule === undefined) return undefined;
  const lacking = missingScopes(caller, rule, items);
  return lacking.length === 0 ? undefined : [...new Set([...caller.scopes, ...lacking])];
}

/** The scopes a message of `items` needs that `caller` does not hold, each once. */
export function missingScopes(caller: AuthInfo, rule: ScopeRule, items: readonly unknown[]): string[] {
  const lacking = new Set<string>();
  for (const item of items) {
    const message = item as { method?: unknown; params?: unknown } | null;
    if (typeof message !== 'object' || message === null || typeof message.method !== 'string') continue;
    for (const scope of rule(message.method, message.params)) if (!caller.scopes.includes(scope)) lacking.add(scope);
  }
  return [...lacking];
}

/**
 * Throws a `TypeError` naming `where` when `auth` is given but is not a {@link RequestAuthenticator}
 * (`createResourceServer`'s result): a function of the endpoint's URL, which only
 * `startStreamableHttpServer` takes, or anything else. A surface never runs open with an `auth` it
 * cannot apply.
 */
export function assertAuthenticator(auth: unknown, where: string): asserts auth is RequestAuthenticator | undefined {
  if (auth === undefined) return;
  const candidate = auth as Partial<RequestAuthenticator> | null;
  if (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.authenticate === 'function' &&
    typeof candidate.insufficientScope === 'function' &&
    typeof candidate.serveMetadata === 'function'
  )
    return;
  const hint =
    typeof auth === 'function'
      ? ': a function of the endpoint URL is taken by startStreamableHttpServer only; call it with the URL yourself'
      : '';
  throw new TypeError(`${where}: auth must be a RequestAuthenticator, as createResourceServer makes${hint}`);
}
