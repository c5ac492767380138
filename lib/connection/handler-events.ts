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

/** Anything a handler's Observable may emit that is not (part of) its result. */
export type HandlerEvent = ProgressUpdate | LogUpdate | TaskStart;

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

/** Makes the event that turns the rest of a tool call into a task (see `TaskStart`). */
export function startTask(): TaskStart {
  return new TaskStart();
}

/** True for the events a handler emits besides its result. */
export function isHandlerEvent(value: unknown): value is HandlerEvent {
  return value instanceof ProgressUpdate || value instanceof LogUpdate || value instanceof TaskStart;
}

/** Where a message sent while handling a request belongs (see `SendOptions.relatedRequestId`). */
export interface Related {
  readonly relatedRequestId?: RequestId;
}
