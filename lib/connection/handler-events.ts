import type { RequestId } from '../jsonrpc/message';

/**
 * A progress update a request handler's Observable emits before its result. The dispatcher sends
 * it as `notifications/progress` when the request carried a progress token, and drops it otherwise
 * (spec: Utilities → Progress).
 */
export class ProgressUpdate {
  constructor(
    readonly progress: number,
    readonly total?: number,
    readonly message?: string,
  ) {}
}

/** Log severities of MCP, from least to most severe (RFC 5424 order). */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
/** One of the log severities of MCP, from `debug` to `emergency`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A log message a request handler's Observable emits; sent as `notifications/message`. */
export class LogUpdate {
  constructor(
    readonly level: LogLevel,
    readonly data: unknown,
    readonly logger?: string,
  ) {}
}

/**
 * Emitted by a tool handler registered with `taskStart: 'signalled'`: the work so far ran within
 * the request (asking its client for input there); from here on it runs as a task, and the request
 * is answered with the task's handle. Dropped where tasks are not in use.
 */
export class TaskStart {
  readonly event = 'task-start';
}

/**
 * A piece of a tool's output a handler's Observable emits before its result (SEP-2998, partial
 * tool results): sent as `notifications/tools/partial_result` to a client that asked for partial
 * results, where the server serves them (`partialResults()`); as a progress message otherwise.
 * The final result must still be complete: a client may miss any partial result.
 */
export class PartialResult {
  constructor(
    readonly content?: readonly Record<string, unknown>[],
    readonly structuredContent?: Record<string, unknown>,
    readonly final?: boolean,
  ) {}

  /** The text of its text content, for a progress message. */
  text(): string | undefined {
    const texts = (this.content ?? []).filter((block) => block.type === 'text').map((block) => String(block.text));
    return texts.length === 0 ? undefined : texts.join('');
  }
}

/** Anything a handler's Observable may emit that is not (part of) its result. */
export type HandlerEvent = ProgressUpdate | LogUpdate | TaskStart | PartialResult;

/**
 * Makes a progress event for a handler's Observable to emit.
 * @example
 * return interval(100).pipe(take(3), map((i) => progress(i + 1, 3)), endWith({ content: [] }));
 */
export function progress(value: number, total?: number, message?: string): ProgressUpdate {
  return new ProgressUpdate(value, total, message);
}

/** Makes a log event for a handler's Observable to emit. */
export function log(level: LogLevel, data: unknown, logger?: string): LogUpdate {
  return new LogUpdate(level, data, logger);
}

/**
 * Marks a value of a tool handler's Observable as a partial result (see `PartialResult`): text, or
 * content blocks and structured content. With no change to the handler, a client that did not ask
 * for partial results gets each as a progress message.
 * @example
 * return tokens$.pipe(map((token) => partialResult(token)), endWith(textResult(whole)));
 */
export function partialResult(
  output:
    | string
    | { content?: readonly Record<string, unknown>[]; structuredContent?: Record<string, unknown>; final?: boolean },
): PartialResult {
  if (typeof output === 'string') return new PartialResult([{ type: 'text', text: output }]);
  return new PartialResult(output.content, output.structuredContent, output.final);
}

/** Makes the event that turns the rest of a tool call into a task (see `TaskStart`). */
export function startTask(): TaskStart {
  return new TaskStart();
}

/** True for the events a handler emits besides its result. */
export function isHandlerEvent(value: unknown): value is HandlerEvent {
  return (
    value instanceof ProgressUpdate ||
    value instanceof LogUpdate ||
    value instanceof TaskStart ||
    value instanceof PartialResult
  );
}

/** Where a message sent while handling a request belongs (see `SendOptions.relatedRequestId`). */
export interface Related {
  readonly relatedRequestId?: RequestId;
}
