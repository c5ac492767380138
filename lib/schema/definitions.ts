/**
 * Every definition of every revision by its official name: `schemasFor(revision)`.
 */
import type { z } from 'zod';
import { baseSchemas } from './base';
import { ProgressTokenSchema } from './build';
import { completionSchemas } from './completion';
import { contentSchemas } from './content';
import { elicitationSchemas } from './elicitation';
import { envelopeSchemas } from './envelope';
import { lifecycleSchemas } from './lifecycle';
import { loggingSchemas } from './logging';
import { messageSchemas } from './messages';
import { notificationSchemas } from './notifications';
import { promptSchemas } from './prompts';
import { resourceSchemas } from './resources';
import { revisionWithin, SUPPORTED_REVISIONS, type Revision } from './revisions';
import { rootSchemas } from './roots';
import { samplingSchemas } from './sampling';
import { taskSchemas } from './tasks';
import { toolSchemas } from './tools';

/** Definitions that did not exist in 2024-11-05, by the revision that added them. */
const ADDED_IN: Readonly<Record<string, readonly string[]>> = {
  '2025-03-26': ['Annotations', 'AudioContent', 'JSONRPCBatchRequest', 'JSONRPCBatchResponse', 'ToolAnnotations'],
  '2025-06-18': [
    'BaseMetadata',
    'BooleanSchema',
    'ContentBlock',
    'ElicitRequest',
    'ElicitResult',
    'EnumSchema',
    'NumberSchema',
    'PrimitiveSchemaDefinition',
    'ResourceLink',
    'ResourceTemplateReference',
    'StringSchema',
  ],
  '2025-11-25': [
    'CallToolRequestParams',
    'CancelTaskRequest',
    'CancelTaskResult',
    'CancelledNotificationParams',
    'CompleteRequestParams',
    'CreateMessageRequestParams',
    'CreateTaskResult',
    'ElicitRequestFormParams',
    'ElicitRequestParams',
    'ElicitRequestURLParams',
    'ElicitationCompleteNotification',
    'Error',
    'GetPromptRequestParams',
    'GetTaskPayloadRequest',
    'GetTaskPayloadResult',
    'GetTaskRequest',
    'GetTaskResult',
    'Icon',
    'Icons',
    'InitializeRequestParams',
    'JSONRPCErrorResponse',
    'JSONRPCResultResponse',
    'LegacyTitledEnumSchema',
    'ListTasksRequest',
    'ListTasksResult',
    'LoggingMessageNotificationParams',
    'MultiSelectEnumSchema',
    'NotificationParams',
    'PaginatedRequestParams',
    'ProgressNotificationParams',
    'ReadResourceRequestParams',
    'RelatedTaskMetadata',
    'RequestParams',
    'ResourceRequestParams',
    'ResourceUpdatedNotificationParams',
    'SamplingMessageContentBlock',
    'SetLevelRequestParams',
    'SingleSelectEnumSchema',
    'SubscribeRequestParams',
    'Task',
    'TaskAugmentedRequestParams',
    'TaskMetadata',
    'TaskStatus',
    'TaskStatusNotification',
    'TaskStatusNotificationParams',
    'TitledMultiSelectEnumSchema',
    'TitledSingleSelectEnumSchema',
    'ToolChoice',
    'ToolExecution',
    'ToolResultContent',
    'ToolUseContent',
    'URLElicitationRequiredError',
    'UnsubscribeRequestParams',
    'UntitledMultiSelectEnumSchema',
    'UntitledSingleSelectEnumSchema',
  ],
};

/** Definitions that were dropped, by the last revision that had them. */
const LAST_IN: Readonly<Record<string, readonly string[]>> = {
  '2024-11-05': ['Annotated'],
  '2025-03-26': ['JSONRPCBatchRequest', 'JSONRPCBatchResponse', 'ResourceReference'],
  '2025-06-18': ['JSONRPCError'],
};

function rangeIndex(table: Readonly<Record<string, readonly string[]>>): Map<string, string> {
  return new Map(Object.entries(table).flatMap(([revision, names]) => names.map((name) => [name, revision] as const)));
}
const addedIn = rangeIndex(ADDED_IN);
const lastIn = rangeIndex(LAST_IN);

/** Whether the named definition exists in the revision. */
export function hasDefinition(name: string, revision: Revision): boolean {
  return revisionWithin(revision, addedIn.get(name) ?? SUPPORTED_REVISIONS[0], lastIn.get(name));
}

/** The zod schemas of one revision, named as in that revision's official JSON Schema. */
export type RevisionSchemas = Readonly<Record<string, z.ZodType>>;

const cache = new Map<Revision, RevisionSchemas>();

/**
 * Every definition of `revision`, keyed by its official name (`CallToolRequest`, `ContentBlock`,
 * `JSONRPCRequest`...). Exactly the names of that revision's schema exist. Built on first use and
 * cached; the schemas are shared with the feature modules.
 */
export function schemasFor(revision: Revision): RevisionSchemas {
  const cached = cache.get(revision);
  if (cached) return cached;
  const all: Record<string, z.ZodType> = {
    ...baseSchemas(revision),
    ProgressToken: ProgressTokenSchema,
    ...envelopeSchemas(revision),
    ...resourceSchemas(revision),
    ...contentSchemas(revision),
    ...taskSchemas(revision),
    ...toolSchemas(revision),
    ...promptSchemas(revision),
    ...completionSchemas(revision),
    ...loggingSchemas(revision),
    ...rootSchemas(revision),
    ...notificationSchemas(revision),
    ...samplingSchemas(revision),
    ...elicitationSchemas(revision),
    ...lifecycleSchemas(revision),
    ...messageSchemas(revision),
  };
  const schemas = Object.freeze(
    Object.fromEntries(Object.entries(all).filter(([name]) => hasDefinition(name, revision))),
  );
  cache.set(revision, schemas);
  return schemas;
}
