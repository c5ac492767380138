// rxmcp/server: what a server author needs, and nothing of the transports (pick one from
// rxmcp/stdio, rxmcp/http or rxmcp/websocket), so a process loads only what it uses.
export {
  JsonRpcError,
  ErrorCode,
  RequestTimeoutError,
  ConnectionClosedError,
  CapabilityNotSupportedError,
  TransportError,
  MessageEncodingError,
  ProtocolError,
  RxmcpError,
  RxmcpErrorCode,
  isRxmcpError,
} from '../jsonrpc/errors';
export { Zod3ConversionError } from '../validation/zod3-json-schema';
export { SUPPORTED_REVISIONS, LATEST_REVISION, LEGACY_REVISIONS, MODERN_REVISIONS } from '../schema/revisions';
export type { Revision } from '../schema/revisions';
export { createInMemoryPair } from '../transport/in-memory/in-memory-transport';
export type { Transport, ModernReceiver } from '../transport/transport';
export { progress, log, startTask, partialResult, LOG_LEVELS } from '../connection/handler-events';
export { PARTIAL_RESULTS_EXTENSION } from '../connection/partial-results';
export { partialResults } from '../server/partial-results';
export type { HandlerEvent, LogLevel } from '../connection/handler-events';
export type { RequestContext, HandlerOutput } from '../connection/dispatcher';
export { DEFAULT_CACHE_HINTS } from '../connection/modern';
export type { CacheHint, CacheScope, ModernPeer } from '../connection/modern';
export { createServer } from '../server/server';
export type { McpServer, ServerOptions } from '../server/server';
export type { ConsoleLike, LoggerOption } from '../base/logger';
export type { InspectionObserver, LifecycleInspectionEvent, LifecycleInspector } from '../base/inspection';
export type { RequestStateOptions } from '../server/request-state';
export { createMemoryTaskStore } from '../server/tasks/task-store';
export type { MemoryTaskStoreOptions, TaskRecord, TaskStore } from '../server/tasks/task-store';
export type { TasksOptions } from '../server/tasks/task-capabilities';
export { TASKS_EXTENSION } from '../schema/tasks';
export type { ConnectOptions } from '../server/server-sessions';
export type {
  PersistedSession,
  ServerSession,
  ServerContext,
  ClientRequests,
  ElicitFormParams,
  ElicitUrlParams,
} from '../server/server-context';
export { ToolError } from '../server/tool-registry';
export type {
  ToolDefinition,
  ToolContext,
  ToolResult,
  JsonSchemaObject,
  RegisteredTool,
  ToolSchema,
  ToJsonSchema,
} from '../server/tool-registry';
export type {
  StandardSchemaV1,
  StandardJsonSchemaV1,
  StandardIssue,
  InferInput,
  InferOutput,
} from '../validation/standard-schema';
export { textResult } from '../server/results';
export type {
  ResourceDefinition,
  ResourceTemplateDefinition,
  ListedResource,
  RegisteredResource,
  ReadResourceOutput,
  ResourceContentsInput,
} from '../server/resource-registry';
export type {
  PromptDefinition,
  PromptArgumentDefinition,
  PromptOutput,
  RegisteredPrompt,
} from '../server/prompt-registry';
export type { Completer, CompletionContext, CompletionValues } from '../server/completion';
export { parseUriTemplate } from '../server/uri-template';
export { compileJsonSchema } from '../validation/json-schema-validator';
export type { JsonSchemaValidate, JsonSchemaValidatorFactory } from '../validation/json-schema-validator';
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
export type { ServerMiddleware } from '../server/middleware';
export { authorize, cache, callerOf, concurrencyLimit, rateLimit } from '../server/middleware-kit';
export type {
  AuthorizeOptions,
  CacheMiddleware,
  CacheOptions,
  ConcurrencyLimitOptions,
  RateLimitErrorData,
  RateLimitOptions,
} from '../server/middleware-kit';
export { createMemoryRateLimitStore } from '../server/rate-limit-store';
export type {
  MemoryRateLimitStoreOptions,
  RateLimitCounter,
  RateLimitHit,
  RateLimitStore,
} from '../server/rate-limit-store';
export { toolPolicy } from '../server/tool-policy';
export type { ToolPolicyOptions, ToolRule } from '../server/tool-policy';
export { serverTracing } from '../server/telemetry';

// Extensions: skills (SEP-2640) and MCP Apps
export { SKILLS_EXTENSION, skillDigest } from '../schema/skills';
export { EVENTS_EXTENSION, EVENTS_LIST_CHANGED_KEY } from '../schema/events';
export type { EventOccurrence, EventType } from '../schema/events';
export { events, type EventsExtension, type EventsOptions } from '../server/events/lazy-events';
export type { EventDefinition, PushOptions, WebhookOptions } from '../server/events/events-extension';
export { generateWebhookSecret, verifyWebhookSignature, WebhookHeader } from '../schema/webhook-signature';
export type { VerifyWebhookOptions, WebhookVerification } from '../schema/webhook-signature';
export { EventsTerminated, type EventEmission } from '../server/events/event-feed';
export type { SkillEntry, SkillFile, ListSkillsResult, GetSkillResult } from '../schema/skills';
export { FrontmatterError, parseSkillDocument } from '../validation/skill-frontmatter';
export type { SkillDocument } from '../validation/skill-frontmatter';
export type { ExtensionMap, ExtensionSettings } from '../schema/extensions';
export { clientExtension, clientSupportsExtension } from '../server/extensions';
export type { ExtensionHandler, ListedSession, ListenedList, ServerExtension } from '../server/extensions';
export { ExtensionListChanges } from '../server/extension-lists';
export { loadSkillFolder } from '../server/skills/skill-catalog';
export type { SkillDefinition } from '../server/skills/skill-catalog';
export { serveSkills } from '../server/skills/skills-extension';
export type { ServedSkills, SkillsOptions } from '../server/skills/skills-extension';
export { appsMiddleware, clientSupportsApps, serveApps, UI_EXTENSION, UI_MIME_TYPE } from '../server/apps';
export type {
  AppResourceDefinition,
  ServedApps,
  UiResourceCsp,
  UiResourceMeta,
  UiResourcePermissions,
  UiToolMeta,
  UiVisibility,
} from '../server/apps';
