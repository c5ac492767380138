/**
 * A task record as each design sends it: the 2025-11-25 core `Task` (`ttl`, `pollInterval`) and
 * the 2026-07-28 extension's task (`ttlMs`, `pollIntervalMs`, result and error inlined in `tasks/get`).
 */
import { JsonRpcError } from '../../jsonrpc/errors';
import type { DetailedTask, ExtensionCreateTaskResult, ExtensionTask, Task } from '../../schema/tasks';
import { RELATED_TASK } from './task-context';
import type { TaskRecord } from './task-store';

const iso = (ms: number) => new Date(ms).toISOString();

/** The fields both designs share. */
function common(record: TaskRecord) {
  const task = {
    taskId: record.taskId,
    status: record.status,
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
  };
  return record.statusMessage === undefined ? task : { ...task, statusMessage: record.statusMessage };
}

/** The 2025-11-25 `Task`. */
export function toCoreTask(record: TaskRecord): Task {
  const task: Task = { ...common(record), ttl: record.ttlMs };
  if (record.pollIntervalMs !== undefined) task.pollInterval = record.pollIntervalMs;
  return task;
}

/** The extension's task (SEP-2663): the durations carry their unit; no v1 `ttl` or `pollInterval`. */
export function toExtensionTask(record: TaskRecord): ExtensionTask {
  const task: ExtensionTask = { ...common(record), ttlMs: record.ttlMs };
  if (record.pollIntervalMs !== undefined) task.pollIntervalMs = record.pollIntervalMs;
  return task;
}

/** The extension's answer that hands the task to the client: flat, `resultType: "task"`. */
export function toExtensionCreateResult(record: TaskRecord): ExtensionCreateTaskResult {
  return { resultType: 'task', ...toExtensionTask(record) };
}

/**
 * The extension's `tasks/get` answer: the task with what its status calls for inlined (the input
 * requests it waits on, its result, or its error). The inlined result carries no related-task
 * `_meta`: the task's id is already at the root.
 */
export function toDetailedTask(record: TaskRecord): DetailedTask {
  const task: DetailedTask = toExtensionTask(record);
  if (record.status === 'input_required' && record.inputRequests !== undefined) {
    task.inputRequests = { ...record.inputRequests } as unknown as DetailedTask['inputRequests'];
  }
  if (record.status === 'completed' && record.result !== undefined) {
    const { _meta, ...result } = record.result;
    const meta = _meta as Record<string, unknown> | undefined;
    if (meta !== undefined) {
      const { [RELATED_TASK]: _related, ...rest } = meta;
      task.result = Object.keys(rest).length > 0 ? { ...result, _meta: rest } : result;
    } else task.result = result;
  }
  if (record.status === 'failed' && record.error !== undefined) task.error = record.error;
  return task;
}

/**
 * The 2025-11-25 `tasks/result` answer for a task in a final status: exactly what the request would
 * have answered (its result, with the related-task `_meta`, or its error).
 */
export function corePayload(record: TaskRecord): Record<string, unknown> {
  if (record.result !== undefined) {
    const meta = {
      ...(record.result._meta as Record<string, unknown> | undefined),
      [RELATED_TASK]: { taskId: record.taskId },
    };
    return { ...record.result, _meta: meta };
  }
  if (record.error !== undefined) throw JsonRpcError.fromObject(record.error);
  throw JsonRpcError.invalidRequest(`task ${record.taskId} was cancelled; it has no result`);
}
