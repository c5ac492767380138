/**
 * Tools: listing, calling, results and the list-changed notification.
 */
import { z } from 'zod';
import { perRevision, since, until, V2025_06_18, V2025_11_25 } from './build';
import { contentSchemas, structuredContent } from './content';
import { cacheHintShape, envelopeSchemas, listRequestParams, notificationShape, requestShape } from './envelope';
import { inputResponseParamsShape } from './input-requests';
import { LATEST_LEGACY_REVISION } from './revisions';
import { taskSchemas } from './tasks';
import { toolTypeSchemas } from './tool-types';

export { ToolAnnotationsSchema, ToolExecutionSchema, ToolSchema } from './tool-types';
export type { Tool, ToolAnnotations, ToolExecution } from './tool-types';

/** Builds the tool schemas of one revision. */
export const toolSchemas = perRevision((revision) => {
  const { ToolAnnotations, ToolExecution, Tool } = toolTypeSchemas(revision);
  const { ContentBlock } = contentSchemas(revision);
  const { TaskMetadata } = taskSchemas(revision);
  const { RequestParams, NotificationParams, PaginatedResult, Result } = envelopeSchemas(revision);

  const CallToolRequestParams = RequestParams.extend({
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    task: until(revision, V2025_11_25, since(revision, V2025_11_25, TaskMetadata)).optional(),
    ...inputResponseParamsShape(revision),
  });

  return {
    ToolAnnotations,
    ToolExecution,
    Tool,
    ListToolsRequest: z.looseObject(requestShape(revision, 'tools/list', listRequestParams(revision))),
    ListToolsResult: PaginatedResult.extend({ ...cacheHintShape(revision), tools: z.array(Tool) }),
    CallToolRequestParams,
    CallToolRequest: z.looseObject(requestShape(revision, 'tools/call', CallToolRequestParams)),
    CallToolResult: Result.extend({
      content: z.array(ContentBlock),
      structuredContent: since(revision, V2025_06_18, structuredContent(revision)),
      isError: z.boolean().optional(),
    }),
    ToolListChangedNotification: z.looseObject(
      notificationShape(revision, 'notifications/tools/list_changed', NotificationParams.optional()),
    ),
  };
});

const latest = () => toolSchemas(LATEST_LEGACY_REVISION);
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof toolSchemas>;

/** A `tools/list` request. */
export type ListToolsRequest = z.infer<Schemas['ListToolsRequest']>;
/** The result of `tools/list`. */
export type ListToolsResult = z.infer<Schemas['ListToolsResult']>;

/** The params of `tools/call`. */
export type CallToolRequestParams = z.infer<Schemas['CallToolRequestParams']>;
/** `tools/call`: run a tool. */
export type CallToolRequest = z.infer<Schemas['CallToolRequest']>;
/** The result of `tools/call`; a failing tool answers with `isError: true`, not a JSON-RPC error. */
export const CallToolResultSchema = z.lazy(() => latest().CallToolResult);
/** The result of `tools/call`; a failing tool answers with `isError: true`, not a JSON-RPC error. */
export type CallToolResult = z.infer<typeof CallToolResultSchema>;

/** `notifications/tools/list_changed`: the list of tools changed. */
export const ToolListChangedNotificationSchema = z.lazy(() => latest().ToolListChangedNotification);
/** A `notifications/tools/list_changed` notification. */
export type ToolListChangedNotification = z.infer<typeof ToolListChangedNotificationSchema>;
