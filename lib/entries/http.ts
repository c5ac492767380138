// rxmcp/http: Streamable HTTP (server handler, server, client, event store) and the 2024-11-05
// HTTP+SSE transport it falls back to.
export { createStreamableHttpHandler } from '../transport/streamable-http/streamable-http-handler';
export type {
  McpEndpointServer,
  StreamableHttpHandler,
  StreamableHttpHandlerOptions,
} from '../transport/streamable-http/streamable-http-handler';
export type { StreamableHttpServerTransport } from '../transport/streamable-http/streamable-http-session';
export { createStreamableHttpFetchHandler } from '../transport/streamable-http/streamable-http-fetch-handler';
export type {
  FetchRequestContext,
  StreamableHttpFetchHandler,
} from '../transport/streamable-http/streamable-http-fetch-handler';
export { startStreamableHttpServer } from '../transport/streamable-http/streamable-http-server';
export type {
  MetricsAccess,
  OperationsOptions,
  OperationsPaths,
  ReadinessCheck,
  ReadinessReport,
  ServerOperations,
} from '../operations/server-operations';
export type {
  RunningStreamableHttpServer,
  StreamableHttpServerOptions,
} from '../transport/streamable-http/streamable-http-server';
export { createInMemoryEventStore } from '../transport/streamable-http/event-store';
export type {
  EventStore,
  InMemoryEventStore,
  InMemoryEventStoreOptions,
} from '../transport/streamable-http/event-store';
export type { OriginPolicy } from '../transport/http/http-guards';
export type { CorsOptions } from '../transport/http/cors';
export {
  createStreamableHttpClientTransport,
  REQUEST_OUTCOME_UNKNOWN,
} from '../transport/streamable-http/streamable-http-client-transport';
export type {
  Reconnection,
  StreamableHttpClientTransport,
  StreamableHttpClientTransportOptions,
} from '../transport/streamable-http/streamable-http-client-transport';
export { SessionNotFoundError } from '../transport/streamable-http/http-errors';
export { createHttpClientTransport } from '../transport/streamable-http/http-client-transport';
export type {
  HttpClientTransport,
  HttpClientTransportOptions,
} from '../transport/streamable-http/http-client-transport';
export { createLegacySseHandler } from '../transport/legacy-sse/legacy-sse-handler';
export type { LegacySseHandler, LegacySseHandlerOptions } from '../transport/legacy-sse/legacy-sse-handler';
export { createLegacySseClientTransport } from '../transport/legacy-sse/legacy-sse-client-transport';
export type { LegacySseClientTransportOptions } from '../transport/legacy-sse/legacy-sse-client-transport';
