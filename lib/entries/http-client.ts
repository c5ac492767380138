// rxmcp/http-client: the Streamable HTTP client transport alone, for web apps and other processes
// that only call servers. Nothing here loads a Node built-in at import: in a browser the transport
// sends with `fetch` (bundlers take this entry without `node:http`, `ws` or `eventsource`).
export {
  createStreamableHttpClientTransport,
  REQUEST_OUTCOME_UNKNOWN,
} from '../transport/http-client/streamable-http/streamable-http-client-transport';
export type {
  Reconnection,
  ReconnectOptions,
  StreamableHttpClientTransport,
  StreamableHttpClientTransportOptions,
} from '../transport/http-client/streamable-http/streamable-http-client-transport';
export { SessionNotFoundError } from '../transport/http-client/http-errors';
export { BodyTooLargeError } from '../transport/http-client/http-requester';
export { SseEventTooLargeError } from '../transport/framing/sse';
export { AuthorizationFailed } from '../transport/http-client/http-sse/http-sse-client-auth';
