import type { HandlerOutput, RequestContext } from '../connection/dispatcher';
import type { CompleteResult } from '../schema/completion';
import { SessionContext, ModernContext } from './server-context';
import type { ContextSession, ServerContext } from './server-context';

/** The most values one `completion/complete` answer may carry (spec: Utilities → Completion). */
export const MAX_COMPLETION_VALUES = 100;

/** Completion values with optional totals, as a completer may return them. */
export interface CompletionValues {
  readonly values: readonly string[];
  /** How many values exist in all, when more are known than returned. */
  readonly total?: number;
  readonly hasMore?: boolean;
}

/** What a completer sees besides the partial value. */
export interface CompletionContext extends ServerContext {
  /** Arguments the user already chose (the request's `context.arguments`, from 2025-06-18). */
  readonly arguments: Readonly<Record<string, string>>;
}

/**
 * Suggests values for one prompt argument or template variable, given what was typed so far.
 * Returns the values (a list, or a list with totals), a Promise of them, or an Observable whose last
 * value is them. More than 100 values are cut to 100, with `total` and `hasMore` set.
 * @example
 * const colour: Completer = (value) => ['red', 'green', 'blue'].filter((c) => c.startsWith(value));
 */
export type Completer = (
  value: string,
  context: CompletionContext,
) => HandlerOutput<readonly string[] | CompletionValues>;

/** A completer's answer as a `completion/complete` result, capped at 100 values. */
export function toCompleteResult(output: unknown): CompleteResult {
  const given: CompletionValues =
    output === undefined
      ? { values: [] }
      : Array.isArray(output)
        ? { values: output as string[] }
        : (output as CompletionValues);
  const values = [...given.values].filter((value): value is string => typeof value === 'string');
  const completion: CompleteResult['completion'] = { values: values.slice(0, MAX_COMPLETION_VALUES) };
  const cut = values.length > MAX_COMPLETION_VALUES;
  const total = given.total ?? (cut ? values.length : undefined);
  if (total !== undefined) completion.total = total;
  if (given.hasMore !== undefined || cut) completion.hasMore = cut || given.hasMore === true;
  return { completion };
}

/** The context of a completion request: a session context plus the arguments already chosen. */
export class CompletionSessionContext extends SessionContext implements CompletionContext {
  declare readonly arguments: Readonly<Record<string, string>>;

  constructor(inner: RequestContext, session: ContextSession, chosen: Readonly<Record<string, string>>) {
    super(inner, session);
    this.arguments = chosen;
  }
}

/** The same for a request of a modern revision, which has no session. */
export class ModernCompletionContext extends ModernContext implements CompletionContext {
  declare readonly arguments: Readonly<Record<string, string>>;

  constructor(inner: RequestContext, chosen: Readonly<Record<string, string>>) {
    super(inner, undefined);
    this.arguments = chosen;
  }
}

/** The completion context of a request: its session's, or a modern one. */
export function completionContextOf(
  inner: RequestContext,
  session: ContextSession | undefined,
  chosen: Readonly<Record<string, string>>,
): CompletionContext {
  return inner.peer === undefined
    ? new CompletionSessionContext(inner, session!, chosen)
    : new ModernCompletionContext(inner, chosen);
}
