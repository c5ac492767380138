/**
 * Tools: listing, calling, results and the list-changed notification.
 */
import { z } from 'zod';
import { baseSchemas } from './base';
import { MetaSchema, perRevision, since, V2025_03_26, V2025_06_18, V2025_11_25 } from './build';
import { contentSchemas } from './content';
import { envelopeSchemas, notificationShape, requestShape } from './envelope';
import { LATEST_REVISION } from './revisions';
import { taskSchemas } from './tasks';

/** Builds the tool schemas of one revision. */
export const toolSchemas = perRevision((revision) => {
  const { Icon } = baseSchemas(revision);
  const { ContentBlock } = contentSchemas(revision);
  const { TaskMetadata } = taskSchemas(revision);
  const { RequestParams, NotificationParams, PaginatedRequestParams, PaginatedResult, Result } =
    envelopeSchemas(revision);

  const ToolAnnotations = z.looseObject({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  });
  const ToolExecution = z.looseObject({ taskSupport: z.enum(['forbidden', 'optional', 'required']).optional() });
  // A JSON Schema for an object; only the top level is checked here.
  const ObjectJsonSchema = z.looseObject({
    $schema: since(revision, V2025_11_25, z.string()).optional(),
    type: z.literal('object'),
    properties: z.record(z.string(), z.looseObject({})).optional(),
    required: z.array(z.string()).optional(),
  });
  const Tool = z.looseObject({
    name: z.string(),
    title: since(revision, V2025_06_18, z.string()).optional(),
    description: z.string().optional(),
    inputSchema: ObjectJsonSchema,
    outputSchema: since(revision, V2025_06_18, ObjectJsonSchema).optional(),
    annotations: since(revision, V2025_03_26, ToolAnnotations).optional(),
    execution: since(revision, V2025_11_25, ToolExecution).optional(),
    icons: since(revision, V2025_11_25, z.array(Icon)).optional(),
    _meta: since(revision, V2025_06_18, MetaSchema).optional(),
  });
  const CallToolRequestParams = RequestParams.extend({
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    task: since(revision, V2025_11_25, TaskMetadata).optional(),
  });

  return {
    ToolAnnotations,
    ToolExecution,
    Tool,
    ListToolsRequest: z.looseObject(requestShape(revision, 'tools/list', PaginatedRequestParams.optional())),
    ListToolsResult: PaginatedResult.extend({ tools: z.array(Tool) }),
    CallToolRequestParams,
    CallToolRequest: z.looseObject(requestShape(revision, 'tools/call', CallToolRequestParams)),
    CallToolResult: Result.extend({
      content: z.array(ContentBlock),
      structuredContent: since(revision, V2025_06_18, z.record(z.string(), z.unknown())).optional(),
      isError: z.boolean().optional(),
    }),
    ToolListChangedNotification: z.looseObject(
      notificationShape(revision, 'notifications/tools/list_changed', NotificationParams.optional()),
    ),
  };
});

const latest = toolSchemas(LATEST_REVISION);

/** Hints about a tool's behaviour (from 2025-03-26); clients must not trust them from untrusted servers. */
export const ToolAnnotationsSchema = latest.ToolAnnotations;
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

/** How a tool may be run: whether it supports task-augmented calls (from 2025-11-25). */
export const ToolExecutionSchema = latest.ToolExecution;
export type ToolExecution = z.infer<typeof ToolExecutionSchema>;

/** A tool the server offers: its name, input schema and optional output schema. */
export const ToolSchema = latest.Tool;
export type Tool = z.infer<typeof ToolSchema>;

/** `tools/list`: one page of the server's tools. */
export const ListToolsRequestSchema = latest.ListToolsRequest;
export type ListToolsRequest = z.infer<typeof ListToolsRequestSchema>;
/** The result of `tools/list`. */
export const ListToolsResultSchema = latest.ListToolsResult;
export type ListToolsResult = z.infer<typeof ListToolsResultSchema>;

/** Params of `tools/call`: the tool's name and arguments. */
export const CallToolRequestParamsSchema = latest.CallToolRequestParams;
export type CallToolRequestParams = z.infer<typeof CallToolRequestParamsSchema>;
/** `tools/call`: run a tool. */
export const CallToolRequestSchema = latest.CallToolRequest;
export type CallToolRequest = z.infer<typeof CallToolRequestSchema>;
/** The result of `tools/call`; a failing tool answers with `isError: true`, not a JSON-RPC error. */
export const CallToolResultSchema = latest.CallToolResult;
export type CallToolResult = z.infer<typeof CallToolResultSchema>;

/** `notifications/tools/list_changed`: the list of tools changed. */
export const ToolListChangedNotificationSchema = latest.ToolListChangedNotification;
export type ToolListChangedNotification = z.infer<typeof ToolListChangedNotificationSchema>;
