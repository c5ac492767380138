/**
 * What the client reads of tasks on the wire, in both designs, turned into one shape:
 * - 2025-11-25, experimental core tasks (Basic → Utilities → Tasks): a task-augmented request is
 *   answered `{ task }`, `tasks/get` answers the task, `tasks/result` blocks for the payload,
 *   durations are `ttl` and `pollInterval`.
 * - 2026-07-28, the `io.modelcontextprotocol/tasks` extension (SEP-2663): the server may answer a
 *   request with a flat task handle (`resultType: "task"`); `tasks/get` answers a detailed task
 *   whose terminal states carry the `result` or the `error`, and whose `input_required` state
 *   carries `inputRequests`; durations are `ttlMs` and `pollIntervalMs`.
 */
import { z } from 'zod';
import { isRecord } from '../../base/objects';
import type { PartialResultParams } from '../../connection/correlator';
import { PARTIAL_RESULTS_EXTENSION, readPartialResult } from '../../connection/partial-results';
import { JsonRpcError, ProtocolError } from '../../jsonrpc/errors';
import type { RequestId } from '../../jsonrpc/message';
import { describeIssues, toValidationIssues } from '../../validation/issues';
import type { TaskStatus } from '../../schema/tasks';
import { readInputRequests } from '../input-requests';
import type { InputRequests } from '../input-requests';

/** The identifier of the tasks extension (2026-07-28 on), a key of `capabilities.extensions`. */
export { TASKS_EXTENSION } from '../../schema/tasks';
/** The `resultType` of a result that is a task handle (tasks extension). */
export const TASK_RESULT_TYPE = 'task';
/** The notification a server may send when a task changes state (2025-11-25). */
export const TASK_STATUS_NOTIFICATION = 'notifications/tasks/status';
/** The tasks extension's name for the same notification. */
export const TASK_NOTIFICATION_2026 = 'notifications/tasks';

/** One task's state, the same in both designs (durations in milliseconds, with the unit in the name). */
export interface TaskInfo {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** ISO 8601, when the task was created. */
  readonly createdAt: string;
  /** ISO 8601, when its status last changed. */
  readonly lastUpdatedAt: string;
  /** How long after creation the server keeps the task; `null` for no limit (or not said). */
  readonly ttlMs: number | null;
  /** How long the server suggests waiting between polls. */
  readonly pollIntervalMs?: number;
}

/** A task's state as one answer or notification gave it, with what the tasks extension inlines. */
export interface TaskSnapshot {
  readonly info: TaskInfo;
  /** A `completed` task's result (tasks extension). */
  readonly result?: Record<string, unknown>;
  /** A `failed` task's error (tasks extension). */
  readonly error?: JsonRpcError;
  /** What an `input_required` task waits for (tasks extension). */
  readonly inputRequests?: InputRequests;
  /** Pieces of the task's partial results the answer carried (tasks extension, SEP-2998). */
  readonly partials?: SnapshotPartials;
}

/**
 * The partial results a `tasks/get` answer carries in `_meta["io.modelcontextprotocol/partial-results"]`
 * (tasks extension): the pieces the server keeps from the `nextSeq` asked for, and how many of
 * the oldest it dropped to stay within its bound.
 */
export interface SnapshotPartials {
  /** The pieces, each with the token of the call that asked for them. */
  readonly pieces: readonly { readonly token: RequestId; readonly params: PartialResultParams }[];
  /** How many of the oldest pieces the server dropped (0 when none). */
  readonly dropped: number;
}

/**
 * The partial results in a task's `_meta`, when there are: a piece that is not well formed is
 * skipped (a peer's mistake costs that piece, never the task), and so is a `dropped` that is not a
 * non-negative integer.
 */
function readSnapshotPartials(meta: unknown): SnapshotPartials | undefined {
  const carried = isRecord(meta) ? meta[PARTIAL_RESULTS_EXTENSION] : undefined;
  if (!isRecord(carried) || !Array.isArray(carried.pieces)) return undefined;
  const pieces = carried.pieces.flatMap((piece: unknown) => {
    const read = isRecord(piece) ? readPartialResult(piece) : undefined;
    return read === undefined ? [] : [read];
  });
  const { dropped } = carried;
  return { pieces, dropped: typeof dropped === 'number' && Number.isInteger(dropped) && dropped > 0 ? dropped : 0 };
}

/** The statuses after which a task never changes again. */
export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

const Status = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const Duration = z.number().int().nonnegative();

const Task2025 = z.looseObject({
  taskId: z.string().min(1),
  status: Status,
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttl: Duration.nullable().optional(),
  pollInterval: Duration.optional(),
});

const Task2026 = z.looseObject({
  taskId: z.string().min(1),
  status: Status,
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttlMs: Duration.nullable().optional(),
  pollIntervalMs: Duration.optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  inputRequests: z.unknown().optional(),
  _meta: z.unknown().optional(),
});

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new ProtocolError(`Invalid ${what} from the server: ${describeIssues(toValidationIssues(parsed.error))}`);
  }
  return parsed.data;
}

function info(
  task: { taskId: string; status: TaskStatus; statusMessage?: string; createdAt: string; lastUpdatedAt: string },
  ttlMs: number | null | undefined,
  pollIntervalMs: number | undefined,
): TaskInfo {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: ttlMs ?? null,
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
  };
}

/**
 * Reads a 2025-11-25 task: the answer of `tasks/get` or `tasks/cancel`, the params of
 * `notifications/tasks/status`, or the `task` of a `CreateTaskResult`. Throws `ProtocolError`
 * naming the field that is wrong.
 */
export function readTask2025(value: unknown, what = 'task'): TaskSnapshot {
  const task = parse(Task2025, value, what);
  return { info: info(task, task.ttl, task.pollInterval) };
}

/**
 * Reads a task of the tasks extension: a task handle, the detailed task of `tasks/get`, or a
 * status notification's params. A `failed` task's inlined error becomes a `JsonRpcError`; the
 * partial results its `_meta` carries are read too.
 */
export function readTask2026(value: unknown, what = 'task'): TaskSnapshot {
  const task = parse(Task2026, value, what);
  const partials = readSnapshotPartials(task._meta);
  return {
    info: info(task, task.ttlMs, task.pollIntervalMs),
    ...(partials === undefined ? {} : { partials }),
    ...(task.result === undefined ? {} : { result: task.result }),
    ...(task.error === undefined ? {} : { error: JsonRpcError.fromObject(task.error) }),
    ...(task.inputRequests === undefined ? {} : { inputRequests: readInputRequests(task.inputRequests, 'tasks/get') }),
  };
}

/** Whether a modern result is a task handle rather than the request's own result. */
export function isTaskHandle(result: Record<string, unknown>): boolean {
  return result.resultType === TASK_RESULT_TYPE;
}

/** Whether `next` is older than `current` (a poll answer that lost a race with a notification). */
export function isOlder(next: TaskInfo, current: TaskInfo | undefined): boolean {
  if (current === undefined) return false;
  const a = Date.parse(next.lastUpdatedAt);
  const b = Date.parse(current.lastUpdatedAt);
  return Number.isFinite(a) && Number.isFinite(b) && a < b;
}
