/**
 * The unions of everything each side may send: requests, notifications and results, and (from
 * 2026-07-28) the responses that carry each kind of result.
 */
import { z } from 'zod';
import { anyOf, anyOfTagged, member, perRevision, V2025_06_18, V2025_11_25, V2026_07_28 } from './build';
import { completionSchemas } from './completion';
import { discoverSchemas } from './discover';
import { elicitationSchemas } from './elicitation';
import { envelopeSchemas, resultResponse } from './envelope';
import { inputRequestSchemas } from './input-requests';
import { lifecycleSchemas } from './lifecycle';
import { loggingSchemas } from './logging';
import { notificationSchemas } from './notifications';
import { promptSchemas } from './prompts';
import { resourceSchemas } from './resources';
import { LATEST_LEGACY_REVISION, revisionAtLeast, LEGACY_REVISIONS, type Revision } from './revisions';
import { rootSchemas } from './roots';
import { samplingSchemas } from './sampling';
import { subscriptionSchemas } from './subscriptions';
import { taskSchemas } from './tasks';
import { toolSchemas } from './tools';

/** The members of a union that exist only in some revisions. */
function revisionMembers(revision: Revision) {
  return {
    // Tasks were part of the core protocol in 2025-11-25 only.
    task: <T extends z.ZodType>(schema: T) => member(revision, V2025_11_25, schema, V2025_11_25),
    handshake: <T extends z.ZodType>(schema: T) =>
      member(revision, LEGACY_REVISIONS[0], schema, LATEST_LEGACY_REVISION),
    modern: <T extends z.ZodType>(schema: T) => member(revision, V2026_07_28, schema),
  };
}

/** The requests each side sends, in one revision. */
function requestUnions(revision: Revision) {
  const lifecycle = lifecycleSchemas(revision);
  const resources = resourceSchemas(revision);
  const prompts = promptSchemas(revision);
  const tools = toolSchemas(revision);
  const tasks = taskSchemas(revision);
  const logging = loggingSchemas(revision);
  const elicitation = elicitationSchemas(revision);
  const sampling = samplingSchemas(revision);
  const roots = rootSchemas(revision);
  const completion = completionSchemas(revision);
  const discover = discoverSchemas(revision);
  const subscriptions = subscriptionSchemas(revision);
  const { task, handshake, modern } = revisionMembers(revision);

  return {
    ClientRequest: anyOfTagged(
      'method',
      modern(discover.DiscoverRequest),
      handshake(lifecycle.InitializeRequest),
      handshake(lifecycle.PingRequest),
      resources.ListResourcesRequest,
      resources.ListResourceTemplatesRequest,
      resources.ReadResourceRequest,
      handshake(resources.SubscribeRequest),
      handshake(resources.UnsubscribeRequest),
      modern(subscriptions.SubscriptionsListenRequest),
      prompts.ListPromptsRequest,
      prompts.GetPromptRequest,
      tools.ListToolsRequest,
      tools.CallToolRequest,
      task(tasks.GetTaskRequest),
      task(tasks.GetTaskPayloadRequest),
      task(tasks.CancelTaskRequest),
      task(tasks.ListTasksRequest),
      handshake(logging.SetLevelRequest),
      completion.CompleteRequest,
    ),
    // From 2026-07-28 a server sends no requests: it asks for input in an InputRequiredResult.
    ServerRequest: revisionAtLeast(revision, V2026_07_28)
      ? z.never()
      : anyOfTagged(
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
  };
}

/** The notifications each side sends, in one revision. */
function notificationUnions(revision: Revision) {
  const lifecycle = lifecycleSchemas(revision);
  const resources = resourceSchemas(revision);
  const prompts = promptSchemas(revision);
  const tools = toolSchemas(revision);
  const tasks = taskSchemas(revision);
  const notifications = notificationSchemas(revision);
  const logging = loggingSchemas(revision);
  const elicitation = elicitationSchemas(revision);
  const roots = rootSchemas(revision);
  const subscriptions = subscriptionSchemas(revision);
  const { task, handshake, modern } = revisionMembers(revision);

  return {
    ClientNotification: anyOfTagged(
      'method',
      notifications.CancelledNotification,
      handshake(lifecycle.InitializedNotification),
      // A client answers no requests from 2026-07-28, so it has no progress to report.
      handshake(notifications.ProgressNotification),
      task(tasks.TaskStatusNotification),
      handshake(roots.RootsListChangedNotification),
    ),
    ServerNotification: anyOfTagged(
      'method',
      notifications.CancelledNotification,
      notifications.ProgressNotification,
      resources.ResourceListChangedNotification,
      modern(subscriptions.SubscriptionsAcknowledgedNotification),
      resources.ResourceUpdatedNotification,
      prompts.PromptListChangedNotification,
      tools.ToolListChangedNotification,
      task(tasks.TaskStatusNotification),
      logging.LoggingMessageNotification,
      task(elicitation.ElicitationCompleteNotification),
    ),
  };
}

/**
 * The results each side sends, in one revision. `Result` accepts any object (from 2026-07-28, any
 * with a `resultType`), so these unions only document which results each side sends.
 */
function resultUnions(revision: Revision) {
  const lifecycle = lifecycleSchemas(revision);
  const resources = resourceSchemas(revision);
  const prompts = promptSchemas(revision);
  const tools = toolSchemas(revision);
  const tasks = taskSchemas(revision);
  const elicitation = elicitationSchemas(revision);
  const sampling = samplingSchemas(revision);
  const roots = rootSchemas(revision);
  const completion = completionSchemas(revision);
  const discover = discoverSchemas(revision);
  const subscriptions = subscriptionSchemas(revision);
  const { InputRequiredResult } = inputRequestSchemas(revision);
  const { Result } = envelopeSchemas(revision);
  const { task, handshake, modern } = revisionMembers(revision);

  return {
    ClientResult: anyOf(
      Result,
      task(tasks.GetTaskResult),
      task(tasks.GetTaskPayloadResult),
      task(tasks.CancelTaskResult),
      task(tasks.ListTasksResult),
      handshake(sampling.CreateMessageResult),
      handshake(roots.ListRootsResult),
      member(revision, V2025_06_18, elicitation.ElicitResult, LATEST_LEGACY_REVISION),
    ),
    ServerResult: anyOf(
      Result,
      modern(InputRequiredResult),
      handshake(lifecycle.InitializeResult),
      modern(discover.DiscoverResult),
      resources.ListResourcesResult,
      resources.ListResourceTemplatesResult,
      resources.ReadResourceResult,
      modern(subscriptions.SubscriptionsListenResult),
      prompts.ListPromptsResult,
      prompts.GetPromptResult,
      tools.ListToolsResult,
      tools.CallToolResult,
      task(tasks.GetTaskResult),
      task(tasks.GetTaskPayloadResult),
      task(tasks.CancelTaskResult),
      task(tasks.ListTasksResult),
      completion.CompleteResult,
    ),
  };
}

/** The responses that carry each kind of result (2026-07-28 names them), in one revision. */
function resultResponses(revision: Revision) {
  const resources = resourceSchemas(revision);
  const prompts = promptSchemas(revision);
  const tools = toolSchemas(revision);
  const completion = completionSchemas(revision);
  const discover = discoverSchemas(revision);
  const subscriptions = subscriptionSchemas(revision);
  const { InputRequiredResult } = inputRequestSchemas(revision);
  const orInputRequired = <T extends z.ZodType>(schema: T) => z.union([InputRequiredResult, schema]);

  return {
    DiscoverResultResponse: resultResponse(discover.DiscoverResult),
    ListResourcesResultResponse: resultResponse(resources.ListResourcesResult),
    ListResourceTemplatesResultResponse: resultResponse(resources.ListResourceTemplatesResult),
    ReadResourceResultResponse: resultResponse(orInputRequired(resources.ReadResourceResult)),
    SubscriptionsListenResultResponse: resultResponse(subscriptions.SubscriptionsListenResult),
    ListPromptsResultResponse: resultResponse(prompts.ListPromptsResult),
    GetPromptResultResponse: resultResponse(orInputRequired(prompts.GetPromptResult)),
    ListToolsResultResponse: resultResponse(tools.ListToolsResult),
    CallToolResultResponse: resultResponse(orInputRequired(tools.CallToolResult)),
    CompleteResultResponse: resultResponse(completion.CompleteResult),
  };
}

/** Builds the message unions of one revision. */
export const messageSchemas = perRevision((revision) => ({
  ...requestUnions(revision),
  ...notificationUnions(revision),
  ...resultUnions(revision),
  ...resultResponses(revision),
}));

/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof messageSchemas>;

/** Any request a client sends. */
export type ClientRequest = z.infer<Schemas['ClientRequest']>;
/** Any request a server sends. */
export type ServerRequest = z.infer<Schemas['ServerRequest']>;
/** Any notification a client sends. */
export type ClientNotification = z.infer<Schemas['ClientNotification']>;
/** Any notification a server sends. */
export type ServerNotification = z.infer<Schemas['ServerNotification']>;
/** Any result a client sends. */
export type ClientResult = z.infer<Schemas['ClientResult']>;
/** Any result a server sends. */
export type ServerResult = z.infer<Schemas['ServerResult']>;
