// The public API of rxmcp by layer. The building blocks underneath (the connection, frame errors, revision flags) are
// in rxmcp/core; each role and transport also has an entry (lib/entries). Nothing inside lib/ imports this file.

// JSON-RPC
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
} from './jsonrpc/errors';
export type { RequestLocation, ValidationIssue } from './jsonrpc/errors';
export type { JsonRpcErrorObject } from './jsonrpc/message';
export type { InspectionCallback } from './base/inspection';
export { Zod3ConversionError } from './validation/zod3-json-schema';
// What every `logger` option takes: a pino logger or a console-like one.
export type { ConsoleLike, LoggerOption } from './base/logger';
// What every `inspect` option takes: a function or an observer of a lifecycle's XState inspection events.
export type { InspectionObserver, LifecycleInspectionEvent, LifecycleInspector } from './base/inspection';
export type {
  RequestId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResponse,
  JsonRpcResultResponse,
  JsonRpcErrorResponse,
} from './jsonrpc/message';

// Protocol revisions
export {
  SUPPORTED_REVISIONS,
  LATEST_REVISION,
  isSupportedRevision,
  LEGACY_REVISIONS,
  LATEST_LEGACY_REVISION,
  isLegacyRevision,
  MODERN_REVISIONS,
  isModernRevision,
} from './schema/revisions';
export type { Revision, LegacyRevision, ModernRevision } from './schema/revisions';

// Transports
export { type Transport, type TransportClose, type SendOptions, principalOf } from './transport/transport';
export { createInMemoryPair, type InMemoryPairOptions } from './transport/in-memory/in-memory-transport';
export { createStdioServerTransport, type StdioServerTransportOptions } from './transport/stdio/stdio-server-transport';
export { createStdioClientTransport } from './transport/stdio/stdio-client-transport';
export type { StdioClientTransport, StdioClientTransportOptions } from './transport/stdio/stdio-client-transport';
export { createStreamableHttpHandler } from './transport/http-server/streamable-http/streamable-http-handler';
export type {
  McpEndpointServer,
  StreamableHttpHandler,
  StreamableHttpHandlerOptions,
} from './transport/http-server/streamable-http/streamable-http-handler';
export type { StreamableHttpServerTransport } from './transport/http-server/streamable-http/streamable-http-session';
export { createStreamableHttpFetchHandler } from './transport/http-server/streamable-http/streamable-http-fetch-handler';
export type {
  FetchRequestContext,
  StreamableHttpFetchHandler,
} from './transport/http-server/streamable-http/streamable-http-fetch-handler';
export { startStreamableHttpServer } from './transport/http-server/streamable-http/streamable-http-server';
export type {
  MetricsAccess,
  OperationsOptions,
  OperationsPaths,
  ReadinessCheck,
  ReadinessReport,
  ServerOperations,
} from './operations/server-operations';
export type {
  RunningStreamableHttpServer,
  StreamableHttpServerOptions,
} from './transport/http-server/streamable-http/streamable-http-server';
export { createInMemoryEventStore } from './transport/http-server/streamable-http/event-store';
export type {
  EventStore,
  StoredEventPayload,
  InMemoryEventStore,
  InMemoryEventStoreOptions,
} from './transport/http-server/streamable-http/event-store';
export type { OriginPolicy } from './transport/http/http-guards';
export type { CorsOptions } from './transport/http/cors';
export {
  createStreamableHttpClientTransport,
  REQUEST_OUTCOME_UNKNOWN,
} from './transport/http-client/streamable-http/streamable-http-client-transport';
export type {
  Reconnection,
  ReconnectOptions,
  StreamableHttpClientTransport,
  StreamableHttpClientTransportOptions,
} from './transport/http-client/streamable-http/streamable-http-client-transport';
export { SessionNotFoundError } from './transport/http-client/http-errors';
export { BodyTooLargeError } from './transport/http-client/http-requester';
export { SseEventTooLargeError } from './transport/framing/sse';
export { AuthorizationFailed } from './transport/http-client/http-sse/http-sse-client-auth';
export { createHttpClientTransport } from './transport/http-client/http-client-transport';
export type { HttpClientTransport, HttpClientTransportOptions } from './transport/http-client/http-client-transport';
export { createHttpSseHandler } from './transport/http-server/http-sse/http-sse-handler';
export type {
  HttpSseHandler,
  HttpSseHandlerOptions,
  HttpSseServerTransport,
} from './transport/http-server/http-sse/http-sse-handler';
export { createHttpSseClientTransport } from './transport/http-client/http-sse/http-sse-client-transport';
export type { HttpSseClientTransportOptions } from './transport/http-client/http-sse/http-sse-client-transport';
export { createWebSocketHandler, startWebSocketServer } from './transport/websocket/websocket-server';
export type {
  RunningWebSocketServer,
  WebSocketHandler,
  WebSocketHandlerOptions,
  WebSocketServerOptions,
} from './transport/websocket/websocket-server';
export {
  createWebSocketClientTransport,
  type WebSocketClientTransportOptions,
} from './transport/websocket/websocket-transport';

// Operators
export { timeoutWithReset, type TimeoutWithResetOptions } from './operators/timeout-with-reset';
export { cancelOnUnsubscribe } from './operators/cancel-on-unsubscribe';
export { progressFor, monotonicProgress, type ProgressEvent, type ProgressToken } from './operators/progress';
export { paginate, paginatePages, MissingPageError, PageLimitError, RepeatedCursorError } from './operators/paginate';
export type { PaginateOptions } from './operators/paginate';
export { createFanOut, type FanOut, type FanOutOptions } from './operators/ref-count-fan-out';
export { abortOnSignal } from './operators/abort-on-signal';

// Requests and handlers (the connection itself, for transports and proxies, is in rxmcp/core)
export { DEFAULT_REQUEST_TIMEOUT_MS, type RequestOptions } from './connection/request-pipeline';
export type { Connection } from './connection/connection';
export {
  progress,
  log,
  startTask,
  partialResult,
  ProgressUpdate,
  LogUpdate,
  TaskStart,
  PartialResult,
  LOG_LEVELS,
} from './connection/handler-events';
export { PARTIAL_RESULT_METHOD, PARTIAL_RESULTS_EXTENSION } from './connection/partial-results';
export type { PartialResultParams } from './connection/correlator';
export { partialResults } from './server/partial-results';
export type { HandlerEvent, LogLevel } from './connection/handler-events';
export type { RequestContext, RequestHandler, HandlerOutput, OwnerArgument } from './connection/dispatcher';

// Server
export { createServer, type McpServer, type ServerOptions } from './server/server';
export type { RequestStateOptions } from './server/request-state';
export { createMemoryTaskStore } from './server/tasks/task-store';
export type {
  MemoryTaskStoreOptions,
  TaskFilter,
  TaskInputRequest,
  TaskPage,
  TaskRecord,
  TaskStore,
} from './server/tasks/task-store';
export type { TasksOptions } from './server/tasks/task-capabilities';
export { TASKS_EXTENSION } from './schema/tasks';
export { DEFAULT_CACHE_HINTS, type CacheHint, type CacheScope, type ModernPeer } from './connection/modern';
export type { ConnectOptions } from './server/server-sessions';
export type {
  PersistedSession,
  ServerSession,
  ServerContext,
  ClientRequests,
  ElicitFormParams,
  ElicitUrlParams,
} from './server/server-context';
export { ToolError } from './server/tool-registry';
export { textResult } from './server/results';
export type {
  ToolDefinition,
  ToolContext,
  ToolResult,
  JsonSchemaObject,
  RegisteredTool,
  ToolSchema,
  ToJsonSchema,
} from './server/tool-registry';
export type {
  StandardSchemaV1,
  StandardJsonSchemaV1,
  StandardIssue,
  InferInput,
  InferOutput,
} from './validation/standard-schema';
export type {
  ResourceDefinition,
  ResourceTemplateDefinition,
  ListedResource,
  RegisteredResource,
  ReadResourceOutput,
  ResourceContentsInput,
} from './server/resource-registry';
export type {
  PromptDefinition,
  PromptArgumentDefinition,
  PromptOutput,
  RegisteredPrompt,
} from './server/prompt-registry';
export type { Registration } from './server/registry';
export { MAX_COMPLETION_VALUES } from './server/completion';
export type { Completer, CompletionContext, CompletionValues } from './server/completion';
export { parseUriTemplate } from './server/uri-template';
export type { UriTemplate, UriTemplateValue, UriTemplateVariables } from './server/uri-template';
export { compileJsonSchema } from './validation/json-schema-validator';
export type { JsonSchemaValidate, JsonSchemaValidatorFactory } from './validation/json-schema-validator';

// Client
export { connect } from './client/client';
export type { ClientOptions, ClientRevision, McpClient, McpClientPromises, ServerEra } from './client/client';
export { LegacyServerError } from './client/negotiation';
export { InputRoundsExceededError } from './client/modern-requests';
export { toolResult } from './client/tool-call';
export type {
  CallToolOptions,
  ToolCallEvent,
  ToolInputEvent,
  ToolPartialEvent,
  ToolProgressEvent,
  ToolResultEvent,
} from './client/tool-call';
export { TaskCancelledError, TaskNotSupportedError } from './client/tasks/task-errors';
export { taskResult, type TaskEvent, type TaskInputEvent, type TaskPartialEvent } from './client/tasks/task-follower';
export type { TaskResultEvent, TaskStatusEvent } from './client/tasks/task-follower';
export type { McpClientTasks, TaskCallOptions, TaskFollowOptions } from './client/tasks/task-api';
export type { TaskInfo } from './client/tasks/task-wire';
export { applyElicitationDefaults } from './client/server-requests';
export type { SamplingHandler, ElicitationHandler, ElicitationOptions, RootsHandler } from './client/server-requests';
export { KeepaliveTimeoutError, type KeepaliveOptions } from './client/keepalive';
// The protocol types the client's API speaks (inferred from the schemas of the latest revision).
export type { Implementation, ServerCapabilities, ClientCapabilities } from './schema/lifecycle';
export type { Tool, CallToolResult } from './schema/tools';
// Each method's params and result by direction, generated from the method registry.
export type {
  ClientRequestMap,
  ServerRequestMap,
  ClientNotificationMap,
  ServerNotificationMap,
} from './schema/method-map';
export type { RequestMap, NotificationMap, RequestMethod, NotificationMethod } from './schema/method-map';
export type { ParamsOf, PlainParamsOf, ResultFor, ResultOf } from './schema/method-map';
export type { Resource, ResourceTemplate, ReadResourceResult } from './schema/resources';
export type { Prompt, GetPromptResult } from './schema/prompts';
export type { CompleteRequestParams, CompleteResult } from './schema/completion';
export type { LoggingLevel, LoggingMessageNotificationParams } from './schema/logging';
export type { Root } from './schema/roots';
export type { CreateMessageRequestParams, CreateMessageResult } from './schema/sampling';
export type {
  ElicitRequestParams,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
} from './schema/elicitation';

// Middleware and tracing (also in rxmcp/server and rxmcp/client)
export { RequestSent, isResultEvent } from './connection/middleware';
export type { AnyMiddleware, Middleware, MiddlewareEvent, MiddlewareRequest, Next } from './connection/middleware';
export { logging, metrics, timing } from './connection/middleware-kit';
export type {
  LoggingOptions,
  MethodMetrics,
  MetricsMiddleware,
  MetricsOptions,
  RequestOutcome,
  TimingOptions,
} from './connection/middleware-kit';
export { TracingUnavailableError, type TracingOptions } from './connection/tracing-options';
export type { ServerMiddleware } from './server/middleware';
export { authorize, cache, callerOf, concurrencyLimit, rateLimit } from './server/middleware-kit';
export type {
  AuthorizeOptions,
  CacheMiddleware,
  CacheOptions,
  ConcurrencyLimitOptions,
  RateLimitErrorData,
  RateLimitOptions,
} from './server/middleware-kit';
export { createMemoryRateLimitStore } from './server/rate-limit-store';
export type {
  MemoryRateLimitStoreOptions,
  RateLimitCounter,
  RateLimitHit,
  RateLimitStore,
} from './server/rate-limit-store';
export { toolPolicy, type ToolPolicyOptions, type ToolRule } from './server/tool-policy';
export { serverTracing } from './server/telemetry';

// Extensions: skills (SEP-2640) and MCP Apps
export { SKILLS_EXTENSION, skillDigest } from './schema/skills';
export type { SkillEntry, SkillFile, ListSkillsResult, GetSkillResult } from './schema/skills';
export { FrontmatterError, parseSkillDocument, type SkillDocument } from './validation/skill-frontmatter';
export type { ExtensionMap, ExtensionSettings } from './schema/extensions';
export { clientExtension, clientSupportsExtension, ExtensionListChanges } from './server/extensions';
export type { ExtensionHandler, ListedSession, ListenedList, ServerExtension } from './server/extensions';
export { loadSkillFolder, type SkillDefinition } from './server/skills/skill-catalog';
export { serveSkills, type ServedSkills, type SkillsOptions } from './server/skills/skills-extension';
export { appsMiddleware, clientSupportsApps, serveApps, UI_EXTENSION, UI_MIME_TYPE } from './server/apps';
export type {
  AppResourceDefinition,
  ServedApps,
  UiResourceCsp,
  UiResourceMeta,
  UiResourcePermissions,
  UiToolMeta,
  UiVisibility,
} from './server/apps';
export { serverExtension, serverExtensions, serverSupportsExtension } from './client/extensions';
export { SkillVerificationError, skillsClient } from './client/skills/skills-client';
export { EVENTS_EXTENSION, EVENTS_LIST_CHANGED_KEY, EventErrorCode, EventMethod } from './schema/events';
export type {
  EventDeliveryMode,
  EventOccurrence,
  EventPollResult,
  EventsSettings,
  EventSubscribeResult,
  EventType,
  WebhookControlBody,
  WebhookDeliveryStatus,
  WebhookErrorCategory,
} from './schema/events';
export { events, type EventsExtension, type EventsOptions } from './server/events/lazy-events';
export type { EventDefinition, PushOptions, WebhookOptions } from './server/events/events-extension';
export { generateWebhookSecret, verifyWebhookSignature, WebhookHeader } from './schema/webhook-signature';
export type { VerifyWebhookOptions, WebhookVerification } from './schema/webhook-signature';
export { EventsTerminated, type EventEmission, type FeedEntry } from './server/events/event-feed';
export type { EventFeedOptions, FeedListener, FeedListening, FeedRead } from './server/events/event-feed';
export { eventsClient, createWebhookReceiver, type WebhookReceiverOptions } from './client/events/lazy-events-client';
export type { FollowEventsOptions, WebhookFollowOptions, WebhookReceiver } from './client/events/events-client';
export type { EventsClient, WebhookAnswer, WebhookRequest, WebhookResponse } from './client/events/events-client';
export type {
  LoadedSkill,
  SkillFileContents,
  SkillsClient,
  SkillVerificationFailure,
} from './client/skills/skills-client';
export { retrying, withMeta } from './client/middleware';
export type { ClientMiddleware, ClientMiddlewareContext, ClientRequest, RetryingOptions } from './client/middleware';
export { clientTracing } from './client/telemetry';

// Composition
export { joinRedisCluster } from './cluster/redis-cluster';
export type { ClusterServeOptions, RedisCluster, RedisClusterOptions } from './cluster/redis-cluster';
export type { RedisConnection, RedisSource } from './cluster/redis-connection';
export { redisRateLimitStore, type RedisRateLimitStoreOptions } from './cluster/redis-rate-limit-store';
export { SessionTakenOverError } from './cluster/redis-event-store';
export { redisEventFeeds, type RedisEventFeeds, type RedisEventFeedsOptions } from './cluster/redis-event-feeds';
export type { EventFeedStore, SharedFeed, SharedFeedOptions } from './server/events/feed-store';
export type { StoredWebhook, StoredWebhookSecret, WebhookLease } from './server/events/webhook-store';
export type { WebhookRun, WebhookRunner, WebhookSubscribeOutcome } from './server/events/webhook-store';
export type { WebhookSubscribeRequest, WebhookSubscriptionStore } from './server/events/webhook-store';
export { proxy, type McpProxy, type ProxyOptions } from './proxy/proxy';
export { createProxyRouter, type ProxyRouter, type ProxyRouterOptions } from './proxy/proxy-router';
export { aggregate, type AggregateOptions, type ReconfigurableAggregate } from './proxy/aggregate';
export type {
  DownstreamInfo,
  UpstreamConfig,
  UpstreamConnectFunction,
  UpstreamConnector,
  UpstreamContext,
  UpstreamEntry,
} from './proxy/upstream-source';
export type { ArgumentPolicy, PromptPolicy, ToolPolicy } from './proxy/upstream-policy';
export type { EntryFilter, NameMatcher, NamePattern } from './proxy/name-filter';
export type { CollisionPolicy } from './proxy/collisions';
export type { UpstreamReconnectOptions } from './proxy/reconnect';

// Authorization (also in rxmcp/auth)
export { createOAuthClient } from './auth/oauth-client';
export type { AssertionTarget, OAuthClient, OAuthClientOptions } from './auth/oauth-client';
export { OAuthError } from './auth/errors';
export { createFileOAuthStorage, createMemoryOAuthStorage } from './auth/storage';
export type { OAuthClientInformation, OAuthRecord, OAuthStorage, OAuthTokens } from './auth/storage';
export type { IdentityAssertionExchange, SigningKey } from './auth/assertions';
export { createResourceServer, introspectionVerifier, InvalidTokenError, jwtVerifier } from './auth/resource-server';
export type {
  IntrospectionVerifierOptions,
  InvalidTokenReason,
  JwtVerifierOptions,
  ResourceServerOptions,
  TokenVerifier,
} from './auth/resource-server';
export type { AuthChallengeAnswer, AuthProvider, AuthRequest } from './transport/http-client/auth-provider';
export type { AuthInfo, AuthOutcome, AuthRefusal, RequestAuthenticator } from './transport/http/request-auth';
export { startLoopbackRedirect, type LoopbackRedirect, type LoopbackRedirectOptions } from './auth/loopback-redirect';

// Types the declarations above name, exported so that code can spell them.
export type * from './entries/named-types';
