/**
 * Tasks (experimental, from 2025-11-25): durable requests that the requester polls for status and
 * fetches the result of later.
 */
import { z } from 'zod';
import { perRevision } from './build';
import { envelopeSchemas, notificationShape, requestShape } from './envelope';
import { LATEST_LEGACY_REVISION } from './revisions';

/** Builds the task schemas of one revision (only 2025-11-25 exposes them; 2026-07-28 moved tasks to an extension). */
export const taskSchemas = perRevision((revision) => {
  const { RequestParams, NotificationParams, PaginatedRequestParams, PaginatedResult, Result } =
    envelopeSchemas(revision);
  const TaskStatus = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
  const TaskMetadata = z.looseObject({ ttl: z.number().int().optional() });
  const Task = z.looseObject({
    taskId: z.string(),
    status: TaskStatus,
    statusMessage: z.string().optional(),
    createdAt: z.string(),
    lastUpdatedAt: z.string(),
    ttl: z.number().int().nullable(),
    pollInterval: z.number().int().optional(),
  });
  const TaskIdParams = z.looseObject({ taskId: z.string() });
  const TaskResult = Result.extend(Task.shape);
  const TaskStatusNotificationParams = NotificationParams.extend(Task.shape);

  return {
    TaskStatus,
    TaskMetadata,
    RelatedTaskMetadata: z.looseObject({ taskId: z.string() }),
    Task,
    TaskAugmentedRequestParams: RequestParams.extend({ task: TaskMetadata.optional() }),
    CreateTaskResult: Result.extend({ task: Task }),
    GetTaskRequest: z.looseObject(requestShape(revision, 'tasks/get', TaskIdParams)),
    GetTaskResult: TaskResult,
    GetTaskPayloadRequest: z.looseObject(requestShape(revision, 'tasks/result', TaskIdParams)),
    GetTaskPayloadResult: Result,
    CancelTaskRequest: z.looseObject(requestShape(revision, 'tasks/cancel', TaskIdParams)),
    CancelTaskResult: TaskResult,
    ListTasksRequest: z.looseObject(requestShape(revision, 'tasks/list', PaginatedRequestParams.optional())),
    ListTasksResult: PaginatedResult.extend({ tasks: z.array(Task) }),
    TaskStatusNotificationParams,
    TaskStatusNotification: z.looseObject(
      notificationShape(revision, 'notifications/tasks/status', TaskStatusNotificationParams),
    ),
  };
});

const latest = () => taskSchemas(LATEST_LEGACY_REVISION);
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof taskSchemas>;

/** Where a task is: `working`, `input_required`, `completed`, `failed` or `cancelled`. */
export type TaskStatus = z.infer<Schemas['TaskStatus']>;

/** The `task` param that makes a request task-augmented: the requested time to live. */
export type TaskMetadata = z.infer<Schemas['TaskMetadata']>;

/** `_meta` entry that ties a message to the task it belongs to. */
export type RelatedTaskMetadata = z.infer<Schemas['RelatedTaskMetadata']>;

/** The state of one task. */
export type Task = z.infer<Schemas['Task']>;

/** Params of a request that may be task-augmented. */
export type TaskAugmentedRequestParams = z.infer<Schemas['TaskAugmentedRequestParams']>;

/** The immediate answer to a task-augmented request: the task that was created. */
export const CreateTaskResultSchema = z.lazy(() => latest().CreateTaskResult);
/** The answer to a task-augmented request (2025-11-25): the task it created. */
export type CreateTaskResult = z.infer<typeof CreateTaskResultSchema>;

/** A `tasks/get` request. */
export type GetTaskRequest = z.infer<Schemas['GetTaskRequest']>;
/** The result of `tasks/get`. */
export const GetTaskResultSchema = z.lazy(() => latest().GetTaskResult);
/** The result of `tasks/get`. */
export type GetTaskResult = z.infer<typeof GetTaskResultSchema>;

/** A `tasks/result` request. */
export type GetTaskPayloadRequest = z.infer<Schemas['GetTaskPayloadRequest']>;
/** The result of `tasks/result`. */
export type GetTaskPayloadResult = z.infer<Schemas['GetTaskPayloadResult']>;

/** A `tasks/cancel` request. */
export type CancelTaskRequest = z.infer<Schemas['CancelTaskRequest']>;
/** The result of `tasks/cancel`. */
export type CancelTaskResult = z.infer<Schemas['CancelTaskResult']>;

/** A `tasks/list` request. */
export type ListTasksRequest = z.infer<Schemas['ListTasksRequest']>;
/** The result of `tasks/list`. */
export const ListTasksResultSchema = z.lazy(() => latest().ListTasksResult);
/** The result of `tasks/list`. */
export type ListTasksResult = z.infer<typeof ListTasksResultSchema>;

/** The params of `notifications/tasks/status`. */
export type TaskStatusNotificationParams = z.infer<Schemas['TaskStatusNotificationParams']>;
/** `notifications/tasks/status`: a task changed state. */
export type TaskStatusNotification = z.infer<Schemas['TaskStatusNotification']>;

/*
 * The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663). Tasks left the core
 * protocol: the server alone decides to answer a request with a task handle, the client polls
 * `tasks/get` (which inlines the result), answers input requests with `tasks/update` and stops a
 * task with `tasks/cancel`. Durations carry their unit (`ttlMs`, `pollIntervalMs`).
 */

/** The identifier of the tasks extension, under `capabilities.extensions` (2026-07-28). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

const ExtensionTaskIdParams = z.looseObject({
  taskId: z.string(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

/** A task as the extension sends it: `ttlMs` and `pollIntervalMs` in whole milliseconds. */
export const ExtensionTaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttlMs: z.number().int().positive().nullable(),
  pollIntervalMs: z.number().int().positive().optional(),
});
export type ExtensionTask = z.infer<typeof ExtensionTaskSchema>;

/** The answer that hands a task to the client: a flat `Result & Task` with `resultType: "task"`. */
export const ExtensionCreateTaskResultSchema = ExtensionTaskSchema.extend({ resultType: z.literal('task') });
export type ExtensionCreateTaskResult = z.infer<typeof ExtensionCreateTaskResultSchema>;

/**
 * The answer to `tasks/get`: the task, with the input requests it waits on (`input_required`), the
 * result it produced (`completed`) or the JSON-RPC error it ended with (`failed`) inlined.
 */
export const DetailedTaskSchema = ExtensionTaskSchema.extend({
  inputRequests: z.record(z.string(), z.looseObject({ method: z.string() })).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
});
export type DetailedTask = z.infer<typeof DetailedTaskSchema>;

/** Params of `tasks/get` and `tasks/cancel` in the extension. */
export const ExtensionTaskIdParamsSchema = ExtensionTaskIdParams;

/** Params of `tasks/update`: answers to some or all of the task's pending input requests, by key. */
export const UpdateTaskRequestParamsSchema = ExtensionTaskIdParams.extend({
  inputResponses: z.record(z.string(), z.unknown()),
});
export type UpdateTaskRequestParams = z.infer<typeof UpdateTaskRequestParamsSchema>;

/** The methods the extension adds (client to server), with the schema of their params. */
const EXTENSION_METHODS: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ['tasks/get', ExtensionTaskIdParams],
  ['tasks/update', UpdateTaskRequestParamsSchema],
  ['tasks/cancel', ExtensionTaskIdParams],
]);

/**
 * The params schema of a request method an extension adds to the modern revisions (the tasks
 * extension's `tasks/get`, `tasks/update` and `tasks/cancel`), or undefined for any other method.
 * Whether a server serves it is up to the server: it has a handler for it or answers -32601.
 */
export function extensionMethodParams(method: string): z.ZodType | undefined {
  return EXTENSION_METHODS.get(method);
}
