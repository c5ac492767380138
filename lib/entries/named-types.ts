// The types the root entry's declarations name, exported by it so that code can spell them
// (api/not-exported.api.md lists any that are not).
export type { CallChannel, CallTracker, CallTrackerOptions, PendingCall } from '../operations/call-tracker';
export type { CallOutcome, MetricsSources, ServerMetrics } from '../operations/server-metrics';
export type { CancelOnUnsubscribeOptions, CancelRequestOnUnsubscribeOptions } from '../operators/cancel-on-unsubscribe';
export type { PaginatePagesOptions } from '../operators/paginate';
export type { ContentBlock } from '../schema/content';
export type { HttpTransportKind } from '../schema/revisions';
export type { Annotations, Icon } from '../schema/base';
export type { ListRootsResult } from '../schema/roots';
export type { PromptMessage } from '../schema/prompts';
export type {
  StandardJsonSchemaConverter,
  StandardJsonSchemaOptions,
  StandardResult,
  StandardSchemaProps,
  StandardTypes,
} from '../validation/standard-schema';
export type { TaskStatus } from '../schema/tasks';
export type { ToolAnnotations, ToolExecution } from '../schema/tool-types';
export type { Zod3Schema } from '../validation/zod3-json-schema';
export type { ImpliedInitialize } from '../transport/transport';
export type { TransportServer } from '../transport/http/caller';
export type { FollowedHandlerOptions } from '../transport/http-server/operations-endpoints';
export type { StdioShutdownTimeouts } from '../transport/stdio/stdio-client-connection';
export type { WebSocketTransportOptions } from '../transport/websocket/websocket-transport';
export type { DeferredOutput, HandlerResult, NestedRequestOptions, OutputSink } from '../connection/dispatcher';
export type { OutboundHook, RequestSink, SendRequest } from '../connection/request-pipeline';
export type { TextMapPropagatorLike, TracerProviderLike } from '../connection/tracing-options';
export type { InputRequest, InputRequests } from '../client/input-requests';
export type { ListedMetadata } from '../server/resource-definition';
export type { StructuredContent } from '../server/tool-definition';
// The params and results the method map names (schema/method-map.ts).
export type { ParamsIn } from '../schema/method-map';
export type { DiscoverRequest, DiscoverResult } from '../schema/discover';
export type { ElicitationCompleteNotification } from '../schema/elicitation';
export type { EmptyResult } from '../schema/envelope';
export type {
  InitializeRequestParams,
  InitializeResult,
  InitializedNotification,
  PingRequest,
} from '../schema/lifecycle';
export type { SetLevelRequestParams } from '../schema/logging';
export type { CancelledNotificationParams, ProgressNotificationParams } from '../schema/notifications';
export type { GetPromptRequestParams, ListPromptsRequest, ListPromptsResult } from '../schema/prompts';
export type { PromptListChangedNotification } from '../schema/prompts';
export type {
  ListResourceTemplatesRequest,
  ListResourceTemplatesResult,
  ListResourcesRequest,
  ListResourcesResult,
  ReadResourceRequestParams,
  ResourceListChangedNotification,
  ResourceUpdatedNotificationParams,
  SubscribeRequestParams,
  UnsubscribeRequestParams,
} from '../schema/resources';
export type { ListRootsRequest, RootsListChangedNotification } from '../schema/roots';
export type {
  SubscriptionsAcknowledgedNotificationParams,
  SubscriptionsListenRequestParams,
  SubscriptionsListenResult,
} from '../schema/subscriptions';
export type {
  CancelTaskRequest,
  CancelTaskResult,
  CreateTaskResult,
  GetTaskPayloadRequest,
  GetTaskPayloadResult,
  GetTaskRequest,
  GetTaskResult,
  ListTasksRequest,
  ListTasksResult,
  TaskStatusNotificationParams,
} from '../schema/tasks';
export type {
  CallToolRequestParams,
  ListToolsRequest,
  ListToolsResult,
  ToolListChangedNotification,
} from '../schema/tools';
