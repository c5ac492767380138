import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { checkHostAndOrigin } from '../http/http-guards';
import type { OriginPolicy } from '../http/http-guards';
import type { Transport } from '../transport';
import { MCP_SUBPROTOCOL, wrapWebSocket } from './websocket-transport';
import { childLogger } from '../../jsonrpc/logger';
import type { LoggerOption } from '../../jsonrpc/logger';

/** Options of {@link createWebSocketHandler}. */
export interface WebSocketHandlerOptions extends OriginPolicy {
  /** Called with the transport of each accepted connection. */
  readonly onSession: (transport: Transport) => void;
  /** Only upgrades to this path are accepted (others get 404). Default `/mcp`. */
  readonly path?: string;
  /** The largest inbound message accepted; a larger one closes the socket (1009). Default 4 MiB. */
  readonly maxPayloadBytes?: number;
  /** Close a socket when this many bytes wait unsent to it. Default 16 MiB. */
  readonly maxBufferedBytes?: number;
  /** How often to ping each client; one that has not answered by the next ping is dropped. Default 30 s; 0 for none. */
  readonly pingIntervalMs?: number;
  readonly logger?: LoggerOption;
}

/** Serves MCP over WebSocket on `upgrade` requests of a `node:http` server. */
export interface WebSocketHandler {
  /** Give it the `upgrade` events: `httpServer.on('upgrade', handler.handleUpgrade)`. */
  readonly handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** The open connections. */
  readonly sessions: ReadonlySet<Transport>;
  /** Closes every connection. */
  close(): void;
}

function reject(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

/**
 * Creates the server side of MCP over WebSocket, for attaching to an existing `node:http` server.
 * An upgrade is refused with 403 when Host or Origin fail the policy (on by default for loopback
 * addresses, as for Streamable HTTP), 404 for another path, and 400 when the client offers
 * subprotocols but not `mcp`; a client that offers none is accepted. Each accepted socket is one
 * session: `onSession` gets its transport, which closes when the socket does.
 */
export function createWebSocketHandler(options: WebSocketHandlerOptions): WebSocketHandler {
  const log = childLogger(options.logger, { component: 'transport', transport: 'websocket-server' });
  const path = options.path ?? '/mcp';
  const sessions = new Set<Transport>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayloadBytes ?? 4 * 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has(MCP_SUBPROTOCOL) ? MCP_SUBPROTOCOL : false),
  });

  return {
    handleUpgrade(req, socket, head) {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== path) {
        reject(socket, 404, 'Not Found');
        return;
      }
      const refusal = checkHostAndOrigin(req, options);
      if (refusal !== undefined) {
        log.warn({ host: req.headers.host, origin: req.headers.origin }, refusal);
        reject(socket, 403, 'Forbidden');
        return;
      }
      const offered = req.headers['sec-websocket-protocol'];
      if (offered !== undefined && !offered.split(',').some((p) => p.trim() === MCP_SUBPROTOCOL)) {
        reject(socket, 400, 'Bad Request');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const transport = wrapWebSocket(ws, {
          side: 'server',
          ...(options.maxBufferedBytes !== undefined ? { maxBufferedBytes: options.maxBufferedBytes } : {}),
          ...(options.pingIntervalMs !== undefined ? { pingIntervalMs: options.pingIntervalMs } : {}),
          logger: log,
        });
        sessions.add(transport);
        transport.closed$.subscribe(() => sessions.delete(transport));
        log.info('connection opened');
        options.onSession(transport);
      });
    },
    sessions,
    close() {
      for (const transport of [...sessions]) transport.close('server closed');
    },
  };
}

/** Options of {@link startWebSocketServer}. */
export interface WebSocketServerOptions extends WebSocketHandlerOptions {
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** Default 0 (ephemeral; see `url`). */
  readonly port?: number;
}

/** A running WebSocket server. */
export interface RunningWebSocketServer {
  /** For example `ws://127.0.0.1:49152/mcp`. */
  readonly url: URL;
  readonly handler: WebSocketHandler;
  readonly server: Server;
  /** Closes every connection and stops listening. */
  close(): Promise<void>;
}

/** Starts a `node:http` server on 127.0.0.1 (by default) that serves MCP over WebSocket at `path`; other requests get 426. */
export async function startWebSocketServer(options: WebSocketServerOptions): Promise<RunningWebSocketServer> {
  const host = options.host ?? '127.0.0.1';
  const handler = createWebSocketHandler(options);
  const server = createServer((_req, res) => res.writeHead(426, { upgrade: 'websocket' }).end());
  server.on('upgrade', handler.handleUpgrade);
  await new Promise<void>((resolve, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: new URL(`ws://${urlHost}:${port}${options.path ?? '/mcp'}`),
    handler,
    server,
    close: async () => {
      handler.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
