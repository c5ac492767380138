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
