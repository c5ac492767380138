/**
 * What a handler's unexpected failure becomes: the answer its client gets (the error's message,
 * or a generic one when the server hides messages) and the warning in the server's log.
 */
import type { Logger } from 'pino';
import { CapabilityNotSupportedError, ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { CallToolResult } from '../schema/tools';
import type { RequestContext } from '../connection/dispatcher';
import { errorResult, ToolError } from './tool-definition';

/** How a server reports handler failures. */
export interface FailurePolicy {
  /** Where failures are logged, at warn. */
  readonly log: Logger;
  /** Send clients a generic message instead of the error's; the message is only logged. */
  readonly hide: boolean;
}

/** The text of whatever was thrown: an error's message (its name when empty), else the value as text. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  if (typeof thrown === 'string') return thrown;
  try {
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    return String(thrown);
  }
}

const HIDDEN = "the details are in the server's log";

/**
 * Errors that are not handler failures: a `JsonRpcError` is the answer the handler chose, a missing
 * client capability of a modern request is answered -32021, and a cancelled request is
 * answered not at all. True when `error` must be rethrown as it is.
 */
function passesThrough(error: unknown, context: RequestContext): boolean {
  if (error instanceof JsonRpcError) return true;
  if (error instanceof CapabilityNotSupportedError && context.peer !== undefined) return true;
  return context.signal.aborted;
}

/**
 * A tool handler's failure as the result its client gets: a `ToolError` as its message and content;
 * anything else as its message (or, hidden, a generic text), logged at warn. Rethrows what
 * {@link passesThrough}.
 */
export function toolFailure(
  policy: FailurePolicy,
  name: string,
  error: unknown,
  context: RequestContext,
): CallToolResult {
  if (error instanceof ToolError) return errorResult(error.message, error.content);
  if (passesThrough(error, context)) throw error;
  policy.log.warn({ err: error, tool: name, id: context.requestId }, 'tool handler failed');
  return errorResult(policy.hide ? `Tool ${name} failed; ${HIDDEN}` : messageOf(error));
}

/**
 * A resource, prompt or completion handler's failure as a JSON-RPC error (-32603) whose message
 * says what failed and why (hidden: only what), logged at warn. `what` names the work, as in
 * `Reading resource test://a`. Rethrows what {@link passesThrough}.
 */
export function requestFailure(
  policy: FailurePolicy,
  what: string,
  error: unknown,
  context: RequestContext,
  fields: Record<string, unknown>,
): never {
  if (passesThrough(error, context)) throw error;
  policy.log.warn({ err: error, ...fields, id: context.requestId }, `${context.method} handler failed`);
  const detail = policy.hide ? HIDDEN : messageOf(error);
  throw new JsonRpcError(ErrorCode.InternalError, `${what} failed: ${detail}`);
}
