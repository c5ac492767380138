import type pino from 'pino';
import { ReplaySubject } from 'rxjs';
import WebSocket from 'ws';
import type { RawData } from 'ws';
import { TransportError } from '../../jsonrpc/errors';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { MalformedFrame } from '../transport';
import type { InboundFrame, Transport, TransportClose } from '../transport';
import { childLogger } from '../../jsonrpc/logger';

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
  readonly logger?: pino.Logger;
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
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
 */
export function wrapWebSocket(
  socket: WebSocket,
  options: WebSocketTransportOptions & { readonly side: string },
): Transport {
  const log = childLogger(options.logger, { component: 'transport', transport: 'websocket', side: options.side });
  const maxBufferedBytes = options.maxBufferedBytes ?? 16 * 1024 * 1024;
  const pingIntervalMs = options.pingIntervalMs ?? 30_000;
  const inbox = createFrameInbox<InboundFrame>();
  const closed$ = new ReplaySubject<TransportClose>(1);
  let waiting: string[] = [];
  let closing = false;
  let outcome: TransportClose | undefined;
  // Whether the peer answered the last ping (RFC 6455: every endpoint answers a ping with a pong).
  let heard = true;
  let pinger: NodeJS.Timeout | undefined;

  const startPinging = (): void => {
    if (pingIntervalMs <= 0 || pinger) return;
    pinger = setInterval(() => {
      if (!heard) {
        log.warn({ pingIntervalMs }, 'peer did not answer ping: dropping the socket');
        fail('peer did not answer ping', new Error(`nothing heard for ${pingIntervalMs} ms after a ping`));
        return;
      }
      heard = false;
      socket.ping();
    }, pingIntervalMs);
    // The pings keep no process alive by themselves.
    pinger.unref();
  };

  const write = (text: string): void => {
    socket.send(text, (error) => {
      if (error && !closing) fail('send failed', error);
    });
    if (socket.bufferedAmount > maxBufferedBytes) {
      log.warn({ buffered: socket.bufferedAmount }, 'slow reader: closing the socket');
      fail('peer does not read fast enough', new Error(`more than ${maxBufferedBytes} bytes wait unsent`));
    }
  };

  function fail(reason: string, error: Error): void {
    if (outcome) return;
    outcome = { reason, error: new TransportError(`WebSocket ${reason}: ${error.message}`, { cause: error }) };
    closing = true;
    socket.terminate();
  }

  socket.on('pong', () => (heard = true));
  socket.on('open', () => {
    startPinging();
    const queued = waiting;
    waiting = [];
    for (const text of queued) write(text);
  });
  socket.on('message', (data: RawData, isBinary: boolean) => {
    if (closing) return;
    if (isBinary) {
      log.warn('binary frame received');
      inbox.push(new MalformedFrame('(binary frame)', 'MCP over WebSocket uses text frames'));
      return;
    }
    const text = rawText(data);
    let frame: unknown;
    try {
      frame = JSON.parse(text) as unknown;
    } catch (error) {
      log.warn({ reason: (error as Error).message }, 'frame is not JSON');
      inbox.push(new MalformedFrame(text.slice(0, 1000), (error as Error).message));
      return;
    }
    if (log.isLevelEnabled('trace')) log.trace({ message: frame }, 'message in');
    inbox.push(frame);
  });
  socket.on('error', (error) => fail('error', error));
  socket.on('close', (code: number, reason: Buffer) => {
    closing = true;
    if (pinger) clearInterval(pinger);
    waiting = [];
    const close = outcome ?? {
      reason:
        reason.length > 0
          ? reason.toString('utf8')
          : code === 1000 || code === 1005
            ? 'peer closed'
            : `closed with code ${code}`,
    };
    log.info({ reason: close.reason, code }, 'transport closed');
    closed$.next(close);
    closed$.complete();
    inbox.complete();
  });

  if (socket.readyState === WebSocket.OPEN) startPinging();

  return {
    incoming$: inbox.values$,
    closed$: closed$.asObservable(),
    send(message: JsonRpcMessage | readonly JsonRpcMessage[]) {
      if (closing) {
        log.debug('send after close ignored');
        return;
      }
      if (log.isLevelEnabled('trace')) log.trace({ message }, 'message out');
      const text = JSON.stringify(message);
      if (socket.readyState === WebSocket.CONNECTING) waiting.push(text);
      else if (socket.readyState === WebSocket.OPEN) write(text);
    },
    close(reason = 'closed locally') {
      if (closing) return;
      closing = true;
      outcome = { reason };
      // A close reason is at most 123 bytes on the wire.
      const wire = Buffer.from(reason).subarray(0, 123).toString('utf8');
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1000, wire);
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
