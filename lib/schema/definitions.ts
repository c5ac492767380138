/**
 * Every definition of every revision by its official name: `schemasFor(revision)`.
 */
import type { z } from 'zod';
import { baseSchemas } from './base';
import { ProgressTokenSchema } from './build';
import { capabilitySchemas } from './capabilities';
import { completionSchemas } from './completion';
import { contentSchemas } from './content';
import { discoverSchemas } from './discover';
import { elicitationSchemas } from './elicitation';
import { envelopeSchemas } from './envelope';
import { errorSchemas } from './error-responses';
import { inputRequestSchemas } from './input-requests';
import { lifecycleSchemas } from './lifecycle';
import { loggingSchemas } from './logging';
import { messageSchemas } from './messages';
import { metaSchemas } from './meta';
import { notificationSchemas } from './notifications';
import { promptSchemas } from './prompts';
import { resourceSchemas } from './resources';
import { revisionWithin, SUPPORTED_REVISIONS, type Revision } from './revisions';
import { rootSchemas } from './roots';
import { samplingSchemas } from './sampling';
import { subscriptionSchemas } from './subscriptions';
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
  '2026-07-28': [
    'CacheableResult',
    'CallToolResultResponse',
    'CompleteResultResponse',
    'DiscoverRequest',
    'DiscoverResult',
    'DiscoverResultResponse',
    'GetPromptResultResponse',
    'HeaderMismatchError',
    'InputRequest',
    'InputRequests',
    'InputRequiredResult',
    'InputResponse',
    'InputResponseRequestParams',
    'InputResponses',
    'InternalError',
    'InvalidParamsError',
    'InvalidRequestError',
    'JSONArray',
    'JSONObject',
    'JSONValue',
    'ListPromptsResultResponse',
    'ListResourceTemplatesResultResponse',
    'ListResourcesResultResponse',
    'ListToolsResultResponse',
    'MetaObject',
    'MethodNotFoundError',
    'MissingRequiredClientCapabilityError',
    'NotificationMetaObject',
    'ParseError',
    'ReadResourceResultResponse',
    'RequestMetaObject',
    'ResultMetaObject',
    'ResultType',
    'SubscriptionFilter',
    'SubscriptionsAcknowledgedNotification',
    'SubscriptionsAcknowledgedNotificationParams',
    'SubscriptionsListenRequest',
    'SubscriptionsListenRequestParams',
    'SubscriptionsListenResult',
    'SubscriptionsListenResultMetaObject',
    'SubscriptionsListenResultResponse',
    'UnsupportedProtocolVersionError',
  ],
};

/** Definitions that were dropped, by the last revision that had them. */
const LAST_IN: Readonly<Record<string, readonly string[]>> = {
  '2024-11-05': ['Annotated'],
  '2025-03-26': ['JSONRPCBatchRequest', 'JSONRPCBatchResponse', 'ResourceReference'],
  '2025-06-18': ['JSONRPCError'],
  // 2026-07-28: no handshake, ping, setLevel or resource subscriptions; tasks moved to an
  // extension; server requests became input requests; no elicitation completion.
  '2025-11-25': [
    'CancelTaskRequest',
    'CancelTaskResult',
    'CreateTaskResult',
    'ElicitationCompleteNotification',
    'GetTaskPayloadRequest',
    'GetTaskPayloadResult',
    'GetTaskRequest',
    'GetTaskResult',
    'InitializeRequest',
    'InitializeRequestParams',
    'InitializeResult',
    'InitializedNotification',
    'ListTasksRequest',
    'ListTasksResult',
    'PingRequest',
    'RelatedTaskMetadata',
    'RootsListChangedNotification',
    'ServerRequest',
    'SetLevelRequest',
    'SetLevelRequestParams',
    'SubscribeRequest',
    'SubscribeRequestParams',
    'Task',
    'TaskAugmentedRequestParams',
    'TaskMetadata',
    'TaskStatus',
    'TaskStatusNotification',
    'TaskStatusNotificationParams',
    'ToolExecution',
    'URLElicitationRequiredError',
    'UnsubscribeRequest',
    'UnsubscribeRequestParams',
  ],
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

/** A feature module's builder: its definitions of one revision, by name. */
type Family = (revision: Revision) => object;

/**
 * The feature module that defines the request, notification and result of a method, by the
 * method's topic: the part of its name before the first `/`, past `notifications/`.
 */
const TOPICS: Readonly<Record<string, Family>> = {
  tools: toolSchemas,
  tasks: taskSchemas,
  cancelled: notificationSchemas,
  progress: notificationSchemas,
  completion: completionSchemas,
  sampling: samplingSchemas,
  server: discoverSchemas,
  elicitation: elicitationSchemas,
  prompts: promptSchemas,
  initialize: lifecycleSchemas,
  initialized: lifecycleSchemas,
  ping: lifecycleSchemas,
  resources: resourceSchemas,
  roots: rootSchemas,
  logging: loggingSchemas,
  message: loggingSchemas,
  subscriptions: subscriptionSchemas,
};

/** Results that many methods share, by the module that defines them. */
const SHARED_RESULTS: Readonly<Record<string, Family>> = {
  EmptyResult: envelopeSchemas,
  CreateTaskResult: taskSchemas,
  InputRequiredResult: inputRequestSchemas,
};

function topicOf(method: string): string {
  const rest = method.startsWith('notifications/') ? method.slice('notifications/'.length) : method;
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : rest.slice(0, slash);
}

/**
 * The definition `name` of `revision` that `method` uses (its request or notification, its result),
 * or undefined where the revision lacks it. Built with the method's own feature module, not with
 * every definition of the revision (`schemasFor`): a server that only serves tools builds the
 * tool schemas and the handshake's, about a fifth of a revision's, in time and memory. The same
 * schema objects as `schemasFor(revision)[name]`; a name of no known module is looked up there.
 */
export function methodSchema(method: string, name: string, revision: Revision): z.ZodType | undefined {
  if (!hasDefinition(name, revision)) return undefined;
  const family = SHARED_RESULTS[name] ?? TOPICS[topicOf(method)];
  const schema = family ? (family(revision) as Readonly<Record<string, z.ZodType | undefined>>)[name] : undefined;
  return schema ?? schemasFor(revision)[name];
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
    ...capabilitySchemas(revision),
    ...metaSchemas(revision),
    ...envelopeSchemas(revision),
    ...errorSchemas(revision),
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
    ...inputRequestSchemas(revision),
    ...lifecycleSchemas(revision),
    ...discoverSchemas(revision),
    ...subscriptionSchemas(revision),
    ...messageSchemas(revision),
  };
  const schemas = Object.freeze(
    Object.fromEntries(Object.entries(all).filter(([name]) => hasDefinition(name, revision))),
  );
  cache.set(revision, schemas);
  return schemas;
}
