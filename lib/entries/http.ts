// rxmcp/http: Streamable HTTP (server handler, server, client, event store) and the 2024-11-05
// HTTP+SSE transport it falls back to.
export { createStreamableHttpHandler } from '../transport/http-server/streamable-http/streamable-http-handler';
export type {
  McpEndpointServer,
  StreamableHttpHandler,
  StreamableHttpHandlerOptions,
} from '../transport/http-server/streamable-http/streamable-http-handler';
export type { StreamableHttpServerTransport } from '../transport/http-server/streamable-http/streamable-http-session';
export { createStreamableHttpFetchHandler } from '../transport/http-server/streamable-http/streamable-http-fetch-handler';
export type {
  FetchRequestContext,
  StreamableHttpFetchHandler,
} from '../transport/http-server/streamable-http/streamable-http-fetch-handler';
export { startStreamableHttpServer } from '../transport/http-server/streamable-http/streamable-http-server';
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
} from '../transport/http-server/streamable-http/streamable-http-server';
export { createInMemoryEventStore } from '../transport/http-server/streamable-http/event-store';
export type {
  EventStore,
  InMemoryEventStore,
  InMemoryEventStoreOptions,
} from '../transport/http-server/streamable-http/event-store';
export type { OriginPolicy } from '../transport/http/http-guards';
export type { CorsOptions } from '../transport/http/cors';
export {
  createStreamableHttpClientTransport,
  REQUEST_OUTCOME_UNKNOWN,
} from '../transport/http-client/streamable-http/streamable-http-client-transport';
export type {
  Reconnection,
  StreamableHttpClientTransport,
  StreamableHttpClientTransportOptions,
} from '../transport/http-client/streamable-http/streamable-http-client-transport';
export { SessionNotFoundError } from '../transport/http-client/http-errors';
export { createHttpClientTransport } from '../transport/http-client/http-client-transport';
export type { HttpClientTransport, HttpClientTransportOptions } from '../transport/http-client/http-client-transport';
export { createHttpSseHandler } from '../transport/http-server/http-sse/http-sse-handler';
export type { HttpSseHandler, HttpSseHandlerOptions } from '../transport/http-server/http-sse/http-sse-handler';
export { createHttpSseClientTransport } from '../transport/http-client/http-sse/http-sse-client-transport';
export type { HttpSseClientTransportOptions } from '../transport/http-client/http-sse/http-sse-client-transport';
