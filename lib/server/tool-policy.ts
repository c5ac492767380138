import { map, throwError } from '../rx/rxjs';
import { isResultEvent, RUN_MIDDLEWARE, withAdmission } from '../connection/middleware';
import type { MiddlewareRequest } from '../connection/middleware';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { AuthInfo } from '../transport/transport';
import type { ServerMiddleware } from './middleware';
import type { ServerContext } from './server-context';
import { admitted } from './middleware-runner';

/** Who may use one tool. */
export interface ToolRule {
  /** OAuth scopes the caller's token must hold, all of them. */
  readonly scopes?: readonly string[];
  /** Roles of which the caller must hold at least one (read from the token's `rolesClaim`). */
  readonly roles?: readonly string[];
}

/** Options of `toolPolicy`. */
export interface ToolPolicyOptions {
  /** The rule of each tool, by name, read when the policy is made; a tool without a rule is open to every caller. */
  readonly tools: Readonly<Record<string, ToolRule>>;
  /**
   * The token claim that holds the caller's roles: an array of strings or a space-separated
   * string. A claim of that exact name is read first, else a dotted path (`realm_access.roles`).
   * Default `roles`.
   */
  readonly rolesClaim?: string;
}

/**
 * A server middleware that shows each caller only the tools it may use: a tool whose rule the
 * caller does not meet is left out of `tools/list`, and its `tools/call` is refused with -32003
 * (Forbidden, naming what was missing) before the handler runs. A caller meets a rule when its
 * token holds every scope of `scopes` and at least one role of `roles`; a caller without `auth`
 * meets only rules that ask for nothing. Pages of `tools/list` keep their cursors, so a page may
 * list fewer tools than the server's page size.
 * @example
 * toolPolicy({ tools: { deploy: { scopes: ['deploy'], roles: ['admin', 'release'] } } })
 */
export function toolPolicy(options: ToolPolicyOptions): ServerMiddleware {
  const { rolesClaim = 'roles' } = options;
  // The rules by name, read once: a lookup in a Map costs a call a fraction of `Object.hasOwn`'s.
  const rules = new Map(Object.entries(options.tools));
  /** What the caller lacks for tool `name`; the caller is read only for a tool with a rule. */
  const refusal = (name: string, context: ServerContext): string | undefined => {
    const rule = rules.get(name);
    return rule === undefined ? undefined : missingOf(rule, context.auth, rolesClaim);
  };
  /** The refusal of a call of a tool the caller may not use. */
  const callRefusal = (request: MiddlewareRequest, context: ServerContext): JsonRpcError | undefined => {
    const name = request.params.name;
    const missing = typeof name === 'string' ? refusal(name, context) : undefined;
    return missing === undefined
      ? undefined
      : new JsonRpcError(ErrorCode.Forbidden, `Forbidden: tool ${String(name)} needs ${missing}`);
  };
  const middleware: ServerMiddleware = (request, context, next) => {
    if (request.method === 'tools/call') {
      const refused = callRefusal(request, context);
      return refused === undefined ? next() : throwError(() => refused);
    }
    if (request.method !== 'tools/list') return next();
    return next().pipe(
      map((event) => {
        if (!isResultEvent(event) || !Array.isArray(event.tools)) return event;
        const shown = (event.tools as Array<{ name?: unknown }>).filter(
          (tool) => typeof tool.name !== 'string' || refusal(tool.name, context) === undefined,
        );
        return shown.length === event.tools.length ? event : { ...event, tools: shown };
      }),
    );
  };
  // A call is decided on its path; a listing is filtered as it comes back.
  return admitted(
    withAdmission(middleware, (request, context) => {
      if (request.method === 'tools/call') return callRefusal(request, context);
      return request.method === 'tools/list' ? RUN_MIDDLEWARE : undefined;
    }),
  );
}

/** What `auth` lacks to meet `rule`, in words; undefined when it meets it. */
function missingOf(rule: ToolRule, auth: AuthInfo | undefined, rolesClaim: string): string | undefined {
  const held = auth?.scopes ?? [];
  const scopes = (rule.scopes ?? []).filter((scope) => !held.includes(scope));
  if (scopes.length > 0) return `the scope${scopes.length > 1 ? 's' : ''} ${scopes.join(' ')}`;
  const roles = rule.roles ?? [];
  if (roles.length === 0) return undefined;
  const has = rolesOf(auth, rolesClaim);
  if (roles.some((role) => has.includes(role))) return undefined;
  return roles.length > 1 ? `one of the roles ${roles.join(' ')}` : `the role ${roles[0]}`;
}

/** The roles a token's claim names. */
function rolesOf(auth: AuthInfo | undefined, claim: string): readonly string[] {
  if (auth === undefined) return [];
  let value: unknown = auth.claims[claim];
  if (value === undefined && claim.includes('.')) {
    value = auth.claims;
    for (const part of claim.split('.')) {
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
    }
  }
  if (typeof value === 'string') return value.split(' ').filter((role) => role !== '');
  return Array.isArray(value) ? value.filter((role): role is string => typeof role === 'string') : [];
}
