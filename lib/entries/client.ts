// rxmcp/client: what a client author needs, and nothing of the transports (pick one from
// rxmcp/stdio, rxmcp/http or rxmcp/websocket), so a process loads only what it uses.
export {
  JsonRpcError,
  ErrorCode,
  RequestTimeoutError,
  ConnectionClosedError,
  NotInitializedError,
  UnsupportedProtocolVersionError,
  CapabilityNotSupportedError,
  TransportError,
  MessageEncodingError,
  ProtocolError,
  RxmcpError,
  RxmcpErrorCode,
  isRxmcpError,
} from '../jsonrpc/errors';
export { SUPPORTED_REVISIONS, LATEST_REVISION, LEGACY_REVISIONS, MODERN_REVISIONS } from '../schema/revisions';
export type { Revision } from '../schema/revisions';
export type { Transport } from '../transport/transport';
export { MissingPageError, PageLimitError, RepeatedCursorError } from '../operators/paginate';
export type { RequestOptions } from '../connection/request-pipeline';
export { connect } from '../client/client';
export type { ClientOptions, ClientRevision, McpClient, McpClientPromises, ServerEra } from '../client/client';
export type { ConsoleLike, LoggerOption } from '../base/logger';
export type { InspectionObserver, LifecycleInspectionEvent, LifecycleInspector } from '../base/inspection';
export { LegacyServerError } from '../client/negotiation';
export { InputRoundsExceededError } from '../client/modern-requests';
export { toolResult } from '../client/tool-call';
export type {
  CallToolOptions,
  ToolCallEvent,
  ToolInputEvent,
  ToolPartialEvent,
  ToolProgressEvent,
  ToolResultEvent,
} from '../client/tool-call';
export { PARTIAL_RESULTS_EXTENSION } from '../connection/partial-results';
export type { PartialResultParams } from '../connection/correlator';
export { TaskCancelledError, TaskNotSupportedError } from '../client/tasks/task-errors';
export { taskResult } from '../client/tasks/task-follower';
export type {
  TaskEvent,
  TaskInputEvent,
  TaskPartialEvent,
  TaskResultEvent,
  TaskStatusEvent,
} from '../client/tasks/task-follower';
export type { McpClientTasks, TaskCallOptions, TaskFollowOptions } from '../client/tasks/task-api';
export { TASKS_EXTENSION } from '../client/tasks/task-wire';
export type { TaskInfo } from '../client/tasks/task-wire';
export { applyElicitationDefaults } from '../client/server-requests';
export type { SamplingHandler, ElicitationHandler, ElicitationOptions, RootsHandler } from '../client/server-requests';
export { KeepaliveTimeoutError } from '../client/keepalive';
export type { Implementation, ServerCapabilities, ClientCapabilities } from '../schema/lifecycle';
export type { Tool, CallToolResult } from '../schema/tools';
export type { Resource, ResourceTemplate, ReadResourceResult } from '../schema/resources';
export type { Prompt, GetPromptResult } from '../schema/prompts';
// Middleware and tracing
export { RequestSent, isResultEvent } from '../connection/middleware';
export type { AnyMiddleware, Middleware, MiddlewareEvent, MiddlewareRequest, Next } from '../connection/middleware';
export { logging, metrics, timing } from '../connection/middleware-kit';
export type {
  LoggingOptions,
  MethodMetrics,
  MetricsMiddleware,
  MetricsOptions,
  RequestOutcome,
  TimingOptions,
} from '../connection/middleware-kit';
export { TracingUnavailableError } from '../connection/tracing-options';
export type { TracingOptions } from '../connection/tracing-options';
export { retrying, withMeta } from '../client/middleware';
export type { ClientMiddleware, ClientMiddlewareContext, ClientRequest, RetryingOptions } from '../client/middleware';
export { clientTracing } from '../client/telemetry';

// Extensions: skills (SEP-2640) on the client
export { SKILLS_EXTENSION, skillDigest } from '../schema/skills';
export type { SkillEntry, SkillFile } from '../schema/skills';
export { serverExtension, serverExtensions, serverSupportsExtension } from '../client/extensions';
export { SkillVerificationError, skillsClient } from '../client/skills/skills-client';
export { EVENTS_EXTENSION, EVENTS_LIST_CHANGED_KEY } from '../schema/events';
export type { EventOccurrence, EventPollResult, EventType } from '../schema/events';
export { eventsClient } from '../client/events/lazy-events-client';
export type { EventsClient, FollowEventsOptions, WebhookFollowOptions } from '../client/events/events-client';
export { createWebhookReceiver } from '../client/events/webhook-receiver';
export type {
  WebhookAnswer,
  WebhookReceiver,
  WebhookReceiverOptions,
  WebhookRequest,
  WebhookResponse,
} from '../client/events/webhook-receiver';
export type {
  LoadedSkill,
  SkillFileContents,
  SkillsClient,
  SkillVerificationFailure,
} from '../client/skills/skills-client';
