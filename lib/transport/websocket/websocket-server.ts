import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type pino from 'pino';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import { assertAuthenticator, scopeRuleOf } from '../http/caller';
import type { TransportServer } from '../http/caller';
import { checkHostAndOrigin } from '../http/http-guards';
import type { OriginPolicy } from '../http/http-guards';
import type { RequestAuthenticator } from '../http/request-auth';
import type { AuthInfo, Transport } from '../transport';
import { authenticateUpgrade, connectionGuard } from './websocket-auth';
import { MCP_SUBPROTOCOL, wrapWebSocket } from './websocket-transport';
import { childLogger } from '../../base/logger';
import type { LoggerOption } from '../../base/logger';

/** Options of {@link createWebSocketHandler}. */
export interface WebSocketHandlerOptions extends OriginPolicy {
  /**
   * The server to serve, as `createServer` makes it: each connection goes to its `connect` (unless
   * `onSession` is given), and under `auth` its `requiredScopes` are checked on every message.
   */
  readonly server?: TransportServer;
  /** Called with the transport of each accepted connection. Default: `server.connect`. */
  readonly onSession?: (transport: Transport) => void;
  /**
   * Protects the endpoint (MCP authorization, over the upgrade request): its `Authorization` header
   * is checked before the upgrade is accepted, and a refusal is answered 401 or 403 with the
   * `WWW-Authenticate` challenge and an OAuth error body, no connection opened. The verified caller
   * is the connection transport's `auth`; a request whose tool, resource or prompt needs a scope
   * (`server.requiredScopes`) the token lacks is answered -32003 (`data.error`
   * `'insufficient_scope'`) without reaching its handler; the socket is closed (1008) when the
   * token expires. `createResourceServer` makes one.
   */
  readonly auth?: RequestAuthenticator;
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
 * addresses, as for Streamable HTTP), 404 for another path, 400 when the client offers
 * subprotocols but not `mcp` (a client that offers none is accepted), and with `auth` 401 or 403
 * when its token is missing, invalid or short of the endpoint's scopes. Each accepted socket is one
 * session: `onSession` gets its transport, which closes when the socket does.
 *
 * Throws a `TypeError` when there is neither `server` nor `onSession`, or when `auth` is not a
 * `RequestAuthenticator`.
 */
export function createWebSocketHandler(options: WebSocketHandlerOptions): WebSocketHandler {
  assertAuthenticator(options.auth, 'createWebSocketHandler');
  const { server, auth } = options;
  const onSession =
    options.onSession ?? (server ? (transport: Transport) => void server.connect(transport) : undefined);
  if (!onSession) throw new TypeError('createWebSocketHandler needs a server or an onSession callback');
  const log = childLogger(options.logger, { component: 'transport', transport: 'websocket-server' });
  const path = options.path ?? '/mcp';
  const rule = scopeRuleOf(server);
  const sessions = new Set<Transport>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayloadBytes ?? 4 * 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has(MCP_SUBPROTOCOL) ? MCP_SUBPROTOCOL : false),
  });

  const open = (ws: WebSocket, caller: AuthInfo | undefined): void => {
    const transport = wrapWebSocket(ws, {
      side: 'server',
      ...(options.maxBufferedBytes !== undefined ? { maxBufferedBytes: options.maxBufferedBytes } : {}),
      ...(options.pingIntervalMs !== undefined ? { pingIntervalMs: options.pingIntervalMs } : {}),
      ...(caller ? { guard: connectionGuard(caller, rule) } : {}),
      logger: log,
    });
    sessions.add(transport);
    transport.closed$.subscribe(() => sessions.delete(transport));
    log.info('connection opened');
    onSession(transport);
  };

  return {
    handleUpgrade(req, socket, head) {
      if (refusedUpgrade(req, socket, path, options, log)) return;
      if (!auth) {
        wss.handleUpgrade(req, socket, head, (ws) => open(ws, undefined));
        return;
      }
      void authenticateUpgrade(auth, req, socket, log).then((caller) => {
        if (caller && !socket.destroyed) wss.handleUpgrade(req, socket, head, (ws) => open(ws, caller));
      });
    },
    sessions,
    close() {
      for (const transport of [...sessions]) transport.close('server closed');
    },
  };
}

/** Refuses an upgrade to another path (404), from a foreign Host or Origin (403), or without the `mcp` subprotocol (400). */
function refusedUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  path: string,
  policy: OriginPolicy,
  log: pino.Logger,
): boolean {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== path) {
    reject(socket, 404, 'Not Found');
    return true;
  }
  const refusal = checkHostAndOrigin(req, policy);
  if (refusal !== undefined) {
    log.warn({ host: req.headers.host, origin: req.headers.origin }, refusal);
    reject(socket, 403, 'Forbidden');
    return true;
  }
  const offered = req.headers['sec-websocket-protocol'];
  if (offered !== undefined && !offered.split(',').some((p) => p.trim() === MCP_SUBPROTOCOL)) {
    reject(socket, 400, 'Bad Request');
    return true;
  }
  return false;
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

/**
 * Starts a `node:http` server on 127.0.0.1 (by default) that serves MCP over WebSocket at `path`;
 * with `auth` it also serves the protected resource metadata, and other requests get 426. Throws
 * as {@link createWebSocketHandler} does.
 */
export async function startWebSocketServer(options: WebSocketServerOptions): Promise<RunningWebSocketServer> {
  assertAuthenticator(options.auth, 'startWebSocketServer');
  const host = options.host ?? '127.0.0.1';
  const handler = createWebSocketHandler(options);
  const { auth } = options;
  const server = createServer((req, res) => {
    if (auth?.serveMetadata(req, res, new URL(req.url ?? '/', 'http://localhost'))) return;
    res.writeHead(426, { upgrade: 'websocket' }).end();
  });
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
