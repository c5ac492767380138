/**
 * Tasks (experimental, from 2025-11-25): durable requests that the requester polls for status and
 * fetches the result of later.
 */
import { z } from 'zod';
import { perRevision } from './build';
import { envelopeSchemas, notificationShape, requestShape } from './envelope';
import { LATEST_STATEFUL_REVISION } from './revisions';

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

const latest = () => taskSchemas(LATEST_STATEFUL_REVISION);

/** Where a task is in its life: `working`, `input_required`, or one of the terminal states. */
export const TaskStatusSchema = z.lazy(() => latest().TaskStatus);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** The `task` param that makes a request task-augmented: the requested time to live. */
export const TaskMetadataSchema = z.lazy(() => latest().TaskMetadata);
export type TaskMetadata = z.infer<typeof TaskMetadataSchema>;

/** `_meta` entry that ties a message to the task it belongs to. */
export const RelatedTaskMetadataSchema = z.lazy(() => latest().RelatedTaskMetadata);
export type RelatedTaskMetadata = z.infer<typeof RelatedTaskMetadataSchema>;

/** The state of one task. */
export const TaskSchema = z.lazy(() => latest().Task);
export type Task = z.infer<typeof TaskSchema>;

/** Params of a request that may be task-augmented. */
export const TaskAugmentedRequestParamsSchema = z.lazy(() => latest().TaskAugmentedRequestParams);
export type TaskAugmentedRequestParams = z.infer<typeof TaskAugmentedRequestParamsSchema>;

/** The immediate answer to a task-augmented request: the task that was created. */
export const CreateTaskResultSchema = z.lazy(() => latest().CreateTaskResult);
export type CreateTaskResult = z.infer<typeof CreateTaskResultSchema>;

/** `tasks/get`: the current state of a task. */
export const GetTaskRequestSchema = z.lazy(() => latest().GetTaskRequest);
export type GetTaskRequest = z.infer<typeof GetTaskRequestSchema>;
/** The result of `tasks/get`. */
export const GetTaskResultSchema = z.lazy(() => latest().GetTaskResult);
export type GetTaskResult = z.infer<typeof GetTaskResultSchema>;

/** `tasks/result`: the result of the request a task stands for, once it is done. */
export const GetTaskPayloadRequestSchema = z.lazy(() => latest().GetTaskPayloadRequest);
export type GetTaskPayloadRequest = z.infer<typeof GetTaskPayloadRequestSchema>;
/** The result of `tasks/result`: whatever the original request's result is. */
export const GetTaskPayloadResultSchema = z.lazy(() => latest().GetTaskPayloadResult);
export type GetTaskPayloadResult = z.infer<typeof GetTaskPayloadResultSchema>;

/** `tasks/cancel`: stop a task. */
export const CancelTaskRequestSchema = z.lazy(() => latest().CancelTaskRequest);
export type CancelTaskRequest = z.infer<typeof CancelTaskRequestSchema>;
/** The result of `tasks/cancel`: the task's state afterwards. */
export const CancelTaskResultSchema = z.lazy(() => latest().CancelTaskResult);
export type CancelTaskResult = z.infer<typeof CancelTaskResultSchema>;

/** `tasks/list`: one page of the receiver's tasks. */
export const ListTasksRequestSchema = z.lazy(() => latest().ListTasksRequest);
export type ListTasksRequest = z.infer<typeof ListTasksRequestSchema>;
/** The result of `tasks/list`. */
export const ListTasksResultSchema = z.lazy(() => latest().ListTasksResult);
export type ListTasksResult = z.infer<typeof ListTasksResultSchema>;

/** Params of `notifications/tasks/status`: the task's new state. */
export const TaskStatusNotificationParamsSchema = z.lazy(() => latest().TaskStatusNotificationParams);
export type TaskStatusNotificationParams = z.infer<typeof TaskStatusNotificationParamsSchema>;
/** `notifications/tasks/status`: a task changed state. */
export const TaskStatusNotificationSchema = z.lazy(() => latest().TaskStatusNotification);
export type TaskStatusNotification = z.infer<typeof TaskStatusNotificationSchema>;
