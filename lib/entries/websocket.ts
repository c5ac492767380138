// rxmcp/websocket: the WebSocket transport (subprotocol `mcp`), server and client.
export { createWebSocketHandler, startWebSocketServer } from '../transport/websocket/websocket-server';
export type {
  RunningWebSocketServer,
  WebSocketHandler,
  WebSocketHandlerOptions,
  WebSocketServerOptions,
} from '../transport/websocket/websocket-server';
export { createWebSocketClientTransport } from '../transport/websocket/websocket-transport';
export type { WebSocketClientTransportOptions } from '../transport/websocket/websocket-transport';
