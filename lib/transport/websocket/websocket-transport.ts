import { WebSocket } from 'ws';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import type { SendOptions, Transport } from '../transport';
import { childLogger } from '../../base/logger';
import type { LoggerOption } from '../../base/logger';
import type { ConnectionGuard } from './websocket-auth';
import { WebSocketConnection } from './websocket-connection';

/** The WebSocket subprotocol MCP uses. */
export const MCP_SUBPROTOCOL = 'mcp';

/** Options shared by both sides of the WebSocket transport. */
export interface WebSocketTransportOptions {
  /** Close the socket with a `TransportError` when this many bytes wait unsent (a reader that does not keep up). Default 16 MiB. */
  readonly maxBufferedBytes?: number;
  /**
   * How often to ping the peer while the socket is open. A peer that has not answered the previous
   * ping with a pong by the next one is taken for gone and the socket is dropped (a `TransportError`,
   * reason `'peer did not answer ping'`), so a vanished peer does not hold a session forever.
   * Default 30 s; 0 sends no pings.
   */
  readonly pingIntervalMs?: number;
  readonly logger?: LoggerOption;
}

/**
 * Wraps a `ws` socket (open or still connecting) as a {@link Transport}: one JSON-RPC message or
 * batch per text frame. Used by both sides; internal to the transport layer.
 *
 * - A text frame that is not JSON, or a binary frame, becomes a `MalformedFrame`.
 * - Messages sent while the socket is connecting wait for it to open, in order.
 * - `close()` closes the socket (code 1000); the peer closing it, or a socket error, closes the
 *   transport (`'peer closed'`, or the error as a `TransportError`). `closed$` emits once the
 *   socket is closed.
 * - While open it pings the peer every `pingIntervalMs` and drops a peer that does not answer.
 * - With a `guard` (the server side of a protected endpoint): the transport's `auth` is its caller,
 *   inbound frames pass its `admit`, and the socket closes (1008) when the caller's token expires.
 */
export function wrapWebSocket(
  socket: WebSocket,
  options: WebSocketTransportOptions & { readonly side: string; readonly guard?: ConnectionGuard },
): Transport {
  const connection = new WebSocketConnection(
    socket,
    childLogger(options.logger, { component: 'transport', transport: 'websocket', side: options.side }),
    options.maxBufferedBytes ?? 16 * 1024 * 1024,
    options.pingIntervalMs ?? 30_000,
    options.guard,
  );
  connection.attach();

  return {
    auth: options.guard?.caller,
    incoming$: connection.inbox.values$,
    closed$: connection.closed$.asObservable(),
    send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: SendOptions) {
      connection.send(message, options?.droppable);
    },
    close(reason = 'closed locally') {
      connection.close(reason);
    },
  };
}

/** Options of {@link createWebSocketClientTransport}. */
export interface WebSocketClientTransportOptions extends WebSocketTransportOptions {
  /** A `ws:` or `wss:` URL. */
  readonly url: string | URL;
  /** Sent with the upgrade request (for example `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The largest inbound message accepted; default 64 MiB. */
  readonly maxPayloadBytes?: number;
}

/**
 * Creates the client side of the WebSocket transport: connects at once with the `mcp`
 * subprotocol; messages sent before the socket opens wait for it. A failed connection (refused,
 * rejected upgrade, no `mcp` subprotocol in the answer) closes the transport with a `TransportError`.
 * Same frame rules as the server side: one message or batch per text frame.
 */
export function createWebSocketClientTransport(options: WebSocketClientTransportOptions): Transport {
  const socket = new WebSocket(options.url, [MCP_SUBPROTOCOL], {
    headers: { ...options.headers },
    maxPayload: options.maxPayloadBytes ?? 64 * 1024 * 1024,
  });
  return wrapWebSocket(socket, { ...options, side: 'client' });
}
