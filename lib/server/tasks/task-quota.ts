/**
 * How many tasks one caller may run at once: a quota per session and one per principal, so that
 * no caller can take every slot of the server (2025-11-25: Tasks → Resource Management, "enforce
 * limits on concurrent tasks per requestor"). A slot is taken when a task is created and given
 * back when the task reaches a final status, expires, or is forgotten with its session.
 */
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';

/** The default of `TasksOptions.maxTasksPerSession`. */
export const DEFAULT_MAX_TASKS_PER_SESSION = 100;
/** The default of `TasksOptions.maxTasksPerPrincipal`. */
export const DEFAULT_MAX_TASKS_PER_PRINCIPAL = 250;

/** Which quota refused a task: `data.quota` of the error. */
export type TaskQuotaName = 'session' | 'principal' | 'server';

/**
 * The error a task-creating request gets when a quota is full: -32029 (the code rxmcp answers
 * every "too many, try later" with), `data` naming the quota and its limit.
 */
export function taskQuotaError(quota: TaskQuotaName, limit: number, option: string): JsonRpcError {
  const whose = quota === 'server' ? 'the server' : `this ${quota}`;
  return new JsonRpcError(
    ErrorCode.RateLimited,
    `Too many tasks: ${whose} already runs ${limit}, the most allowed (tasks.${option}); ` +
      'wait for one to finish or cancel one',
    { quota, limit },
  );
}

/** The counts of running tasks per session and per principal, in this process. */
export class TaskQuota {
  private readonly bySession = new Map<string, number>();
  private readonly byPrincipal = new Map<string, number>();

  constructor(
    private readonly perSession: number,
    private readonly perPrincipal: number,
  ) {
    for (const [name, value] of [
      ['maxTasksPerSession', perSession],
      ['maxTasksPerPrincipal', perPrincipal],
    ] as const) {
      if (!Number.isInteger(value) || value < 1)
        throw new RangeError(`tasks.${name} must be a positive integer, got ${value}`);
    }
  }

  /** Takes a slot for a task of `principal` in `session`; throws -32029 naming the quota that is full. */
  take(principal: string | undefined, session: string | undefined): void {
    if (principal !== undefined && (this.byPrincipal.get(principal) ?? 0) >= this.perPrincipal)
      throw taskQuotaError('principal', this.perPrincipal, 'maxTasksPerPrincipal');
    if (session !== undefined && (this.bySession.get(session) ?? 0) >= this.perSession)
      throw taskQuotaError('session', this.perSession, 'maxTasksPerSession');
    if (principal !== undefined) this.byPrincipal.set(principal, (this.byPrincipal.get(principal) ?? 0) + 1);
    if (session !== undefined) this.bySession.set(session, (this.bySession.get(session) ?? 0) + 1);
  }

  /** Gives back a slot `take` took (a session already ended has nothing to give back to). */
  give(principal: string | undefined, session: string | undefined): void {
    if (principal !== undefined) decrement(this.byPrincipal, principal);
    if (session !== undefined) decrement(this.bySession, session);
  }

  /** Forgets a session that ended: its count goes with it. */
  endSession(session: string): void {
    this.bySession.delete(session);
  }

  /** The tasks counted now against a principal, or a session (for tests and metrics). */
  count(of: { readonly principal?: string; readonly session?: string }): number {
    if (of.principal !== undefined) return this.byPrincipal.get(of.principal) ?? 0;
    return of.session === undefined ? 0 : (this.bySession.get(of.session) ?? 0);
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = counts.get(key);
  if (count === undefined) return;
  if (count <= 1) counts.delete(key);
  else counts.set(key, count - 1);
}
