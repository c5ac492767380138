/**
 * The unions of everything each side may send: requests, notifications and results.
 */
import type { z } from 'zod';
import { anyOf, anyOfTagged, member, perRevision, V2025_06_18, V2025_11_25 } from './build';
import { completionSchemas } from './completion';
import { elicitationSchemas } from './elicitation';
import { envelopeSchemas } from './envelope';
import { lifecycleSchemas } from './lifecycle';
import { loggingSchemas } from './logging';
import { notificationSchemas } from './notifications';
import { promptSchemas } from './prompts';
import { resourceSchemas } from './resources';
import { LATEST_REVISION } from './revisions';
import { rootSchemas } from './roots';
import { samplingSchemas } from './sampling';
import { taskSchemas } from './tasks';
import { toolSchemas } from './tools';

/** Builds the message unions of one revision. */
export const messageSchemas = perRevision((revision) => {
  const lifecycle = lifecycleSchemas(revision);
  const resources = resourceSchemas(revision);
  const prompts = promptSchemas(revision);
  const tools = toolSchemas(revision);
  const tasks = taskSchemas(revision);
  const notifications = notificationSchemas(revision);
  const logging = loggingSchemas(revision);
  const elicitation = elicitationSchemas(revision);
  const sampling = samplingSchemas(revision);
  const roots = rootSchemas(revision);
  const { Result } = envelopeSchemas(revision);
  const task = <T extends z.ZodType>(schema: T) => member(revision, V2025_11_25, schema);

  return {
    ClientRequest: anyOfTagged(
      'method',
      lifecycle.InitializeRequest,
      lifecycle.PingRequest,
      resources.ListResourcesRequest,
      resources.ListResourceTemplatesRequest,
      resources.ReadResourceRequest,
      resources.SubscribeRequest,
      resources.UnsubscribeRequest,
      prompts.ListPromptsRequest,
      prompts.GetPromptRequest,
      tools.ListToolsRequest,
      tools.CallToolRequest,
      task(tasks.GetTaskRequest),
      task(tasks.GetTaskPayloadRequest),
      task(tasks.CancelTaskRequest),
      task(tasks.ListTasksRequest),
      logging.SetLevelRequest,
      completionSchemas(revision).CompleteRequest,
    ),
    ServerRequest: anyOfTagged(
      'method',
      lifecycle.PingRequest,
      task(tasks.GetTaskRequest),
      task(tasks.GetTaskPayloadRequest),
      task(tasks.CancelTaskRequest),
      task(tasks.ListTasksRequest),
      sampling.CreateMessageRequest,
      roots.ListRootsRequest,
      member(revision, V2025_06_18, elicitation.ElicitRequest),
    ),
    ClientNotification: anyOfTagged(
      'method',
      notifications.CancelledNotification,
      lifecycle.InitializedNotification,
      notifications.ProgressNotification,
      task(tasks.TaskStatusNotification),
      roots.RootsListChangedNotification,
    ),
    ServerNotification: anyOfTagged(
      'method',
      notifications.CancelledNotification,
      notifications.ProgressNotification,
      resources.ResourceListChangedNotification,
      resources.ResourceUpdatedNotification,
      prompts.PromptListChangedNotification,
      tools.ToolListChangedNotification,
      task(tasks.TaskStatusNotification),
      logging.LoggingMessageNotification,
      task(elicitation.ElicitationCompleteNotification),
    ),
    // `Result` accepts any object, so these unions only document which results each side sends.
    ClientResult: anyOf(
      Result,
      task(tasks.GetTaskResult),
      task(tasks.GetTaskPayloadResult),
      task(tasks.CancelTaskResult),
      task(tasks.ListTasksResult),
      sampling.CreateMessageResult,
      roots.ListRootsResult,
      member(revision, V2025_06_18, elicitation.ElicitResult),
    ),
    ServerResult: anyOf(
      Result,
      lifecycle.InitializeResult,
      resources.ListResourcesResult,
      resources.ListResourceTemplatesResult,
      resources.ReadResourceResult,
      prompts.ListPromptsResult,
      prompts.GetPromptResult,
      tools.ListToolsResult,
      tools.CallToolResult,
      task(tasks.GetTaskResult),
      task(tasks.GetTaskPayloadResult),
      task(tasks.CancelTaskResult),
      task(tasks.ListTasksResult),
      completionSchemas(revision).CompleteResult,
    ),
  };
});

const latest = messageSchemas(LATEST_REVISION);

/** Any request a client sends. */
export const ClientRequestSchema = latest.ClientRequest;
export type ClientRequest = z.infer<typeof ClientRequestSchema>;
/** Any request a server sends. */
export const ServerRequestSchema = latest.ServerRequest;
export type ServerRequest = z.infer<typeof ServerRequestSchema>;
/** Any notification a client sends. */
export const ClientNotificationSchema = latest.ClientNotification;
export type ClientNotification = z.infer<typeof ClientNotificationSchema>;
/** Any notification a server sends. */
export const ServerNotificationSchema = latest.ServerNotification;
export type ServerNotification = z.infer<typeof ServerNotificationSchema>;
/** Any result a client sends. */
export const ClientResultSchema = latest.ClientResult;
export type ClientResult = z.infer<typeof ClientResultSchema>;
/** Any result a server sends. */
export const ServerResultSchema = latest.ServerResult;
export type ServerResult = z.infer<typeof ServerResultSchema>;
