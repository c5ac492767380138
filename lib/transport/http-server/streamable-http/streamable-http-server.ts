import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { lstatSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHttpSseHandler } from '../http-sse/http-sse-handler';
import type { HttpSseHandler } from '../http-sse/http-sse-handler';
import { refuse } from '../../http/http-guards';
import { createStreamableHttpHandler } from './streamable-http-handler';
import { ServerOperations } from '../../../operations/server-operations';
import type { OperationsOptions } from '../../../operations/server-operations';
import { serveOperations } from '../operations-endpoints';
import type { AuthRefusal, RequestAuthenticator } from '../../http/request-auth';
import type { StreamableHttpHandler, StreamableHttpHandlerOptions } from './streamable-http-handler';
import type { StreamableHttpServerTransport } from './streamable-http-session';

/** Options of {@link startStreamableHttpServer}: where to listen, plus the handler's options. */
export interface StreamableHttpServerOptions extends Omit<StreamableHttpHandlerOptions, 'auth'> {
  /**
   * Protects the endpoint (see the handler's `auth`); also serves the protected resource metadata.
   * A function gets the endpoint's URL once the server listens (useful with port 0).
   */
  readonly auth?: RequestAuthenticator | ((endpoint: URL) => RequestAuthenticator);
  /** The address to bind. Default `127.0.0.1`: a local server should not listen on every interface. */
  readonly host?: string;
  /** The port; default 0 (an ephemeral port, see `url`). */
  readonly port?: number;
  /**
   * Listens on this Unix domain socket (or Windows named pipe, `\\.\\pipe\\name`) instead of a
   * TCP port: HTTP/1.1 for a local server, reached only by who may open the file (the transports
   * working group's recommendation for local servers). `host` and `port` are then ignored; `url`
   * is `http+unix://<socket path, percent-encoded>/<path>`, which the client transport takes. A
   * socket file left by a process that died is replaced; a live one is refused (EADDRINUSE).
   */
  readonly socketPath?: string;
  /** The MCP endpoint path. Default `/mcp`. */
  readonly path?: string;
  /**
   * Extra routes served by the same HTTP server before the 404 fallback, for example the HTTP+SSE
   * HTTP+SSE endpoints: return `true` when the request was handled.
   */
  readonly routes?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean;
  /**
   * Also serve the 2024-11-05 HTTP+SSE endpoints for old clients, with the same `onSession` (whose
   * `closeRequestStream` and `closeStandaloneStream` then answer false),
   * origin policy, body and slow-reader limits and logger: `true` for `/sse` and `/messages`, or the paths.
   * Their sessions are independent of the Streamable HTTP ones. Default off.
   * With `auth` they are protected as the MCP endpoint is (see `createHttpSseHandler`'s `auth`): an
   * OAuth client discovers the metadata only when its `resource` covers their paths (the origin's
   * root does; `/mcp` does not cover `/sse`).
   */
  readonly httpSse?: boolean | { readonly ssePath?: string; readonly messagesPath?: string };
  /** A client that has not sent its request headers this long after connecting is cut off. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /**
   * A request whose body has not arrived whole this long after it began is cut off (responses, SSE
   * streams included, are not limited). Default 30 s.
   */
  readonly requestTimeoutMs?: number;
  /** The most TCP connections open at once; more are refused. Default 10 000. */
  readonly maxConnections?: number;
  /**
   * Serves this handler at `path` instead of one made from these options (a cluster's handler,
   * which wraps one it made itself); the options then only say where and how to listen.
   */
  readonly handler?: StreamableHttpHandler;
  /**
   * `/healthz`, `/readyz`, `/metrics` and a log line per call (see {@link OperationsOptions}). Off
   * by default: a library server serves only what it is asked to. `{}` turns every part on. A
   * `ServerOperations` is one a cluster made to count the calls of the `handler` it passes.
   */
  readonly operations?: OperationsOptions | ServerOperations;
}

/** Defaults of {@link startStreamableHttpServer}'s limits on slow or numerous clients (#13). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_BODY_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_CONNECTIONS = 10_000;

/** A running Streamable HTTP server. */
export interface RunningStreamableHttpServer {
  /**
   * The endpoint URL, for example `http://127.0.0.1:49152/mcp`, or
   * `http+unix://%2Frun%2Fmcp.sock/mcp` on a Unix socket.
   */
  readonly url: URL;
  /** The TCP port; 0 on a Unix socket. */
  readonly port: number;
  /** The Unix socket (or named pipe) listened on, when `socketPath` was given. */
  readonly socketPath?: string | undefined;
  readonly handler: StreamableHttpHandler;
  /** The deprecated HTTP+SSE handler, when `httpSse` was asked for. */
  readonly httpSseHandler: HttpSseHandler | undefined;
  /** The state behind `/healthz`, `/readyz` and `/metrics`, when `operations` was given. */
  readonly operations?: ServerOperations | undefined;
  /** The underlying `node:http` server. */
  readonly server: Server;
  /** Closes every session, drops open connections and stops listening. Resolves when closed. */
  close(): Promise<void>;
}

/**
 * Starts a `node:http` server that serves {@link createStreamableHttpHandler} at `path` (404
 * elsewhere) on 127.0.0.1 by default. Resolves once listening; rejects when the port cannot be
 * bound.
 *
 * @example
 * const { url, close } = await startStreamableHttpServer({ port: 3000, onSession: (t) => server.connect(t) });
 */
export async function startStreamableHttpServer(
  options: StreamableHttpServerOptions,
): Promise<RunningStreamableHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  // An authenticator made from the endpoint's URL is bound once the server listens.
  let bound: RequestAuthenticator | undefined = typeof options.auth === 'function' ? undefined : options.auth;
  const auth = options.auth === undefined ? undefined : lateAuthenticator(() => bound);
  const operations = operationsOf(options);
  const calls = operations?.tracking ? operations.calls : undefined;
  const handler = options.handler ?? createStreamableHttpHandler({ ...options, auth, calls });
  if (operations) operations.sessionCount ??= () => handler.sessions.size;
  const sse = httpSseEndpoints(options, auth);
  const httpSseHandler = sse?.handler;
  const server = createHttpServer(options, path, handler, sse, auth, operations);
  const socketPath = options.socketPath;
  if (socketPath !== undefined) await listenOnSocket(server, socketPath);
  else await listen(server, options.port ?? 0, host);
  const port = socketPath === undefined ? (server.address() as AddressInfo).port : 0;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const endpoint =
    socketPath === undefined
      ? new URL(`http://${urlHost}:${port}${path}`)
      : new URL(`http+unix://${encodeURIComponent(socketPath)}${path}`);
  if (typeof options.auth === 'function') bound = options.auth(endpoint);
  return {
    url: endpoint,
    port,
    socketPath,
    handler,
    httpSseHandler,
    operations,
    server,
    close: async () => {
      handler.close();
      httpSseHandler?.close();
      const done = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await done;
    },
  };
}

/** The server's operations state: the one given, or one made from `operations` with the server's logger. */
function operationsOf(options: StreamableHttpServerOptions): ServerOperations | undefined {
  const given = options.operations;
  if (given === undefined || given instanceof ServerOperations) return given;
  return new ServerOperations(given, options.logger);
}

/** The 2024-11-05 HTTP+SSE endpoints served beside the MCP endpoint. */
interface HttpSseEndpoints {
  readonly handler: HttpSseHandler;
  readonly ssePath: string;
  readonly messagesPath: string;
}

/**
 * Makes the deprecated HTTP+SSE handler when `httpSse` asks for one, with the server's `onSession`,
 * limits, and `auth` (whose checks, scopes and session owners hold on those endpoints too).
 */
function httpSseEndpoints(
  options: StreamableHttpServerOptions,
  auth: RequestAuthenticator | undefined,
): HttpSseEndpoints | undefined {
  const mcp = options.server;
  const connectOptions = options.inspect ? { inspect: options.inspect } : undefined;
  const onSession =
    options.onSession ?? ((transport: StreamableHttpServerTransport) => void mcp?.connect(transport, connectOptions));
  const sse = options.httpSse ? (options.httpSse === true ? {} : options.httpSse) : undefined;
  if (!sse) return undefined;
  const messagesPath = sse.messagesPath ?? '/messages';
  const handler = createHttpSseHandler({
    // HTTP+SSE sessions reach the same onSession; they cannot be polled, so the polling calls answer false.
    onSession: (transport) => {
      let protocolVersion: string | undefined;
      onSession({
        incoming$: transport.incoming$,
        closed$: transport.closed$,
        sessionId: transport.sessionId,
        get auth() {
          return transport.auth;
        },
        send: (message, sendOptions) => transport.send(message, sendOptions),
        close: (reason) => transport.close(reason),
        setProtocolVersion: (revision) => void (protocolVersion = revision),
        get protocolVersion() {
          return protocolVersion;
        },
        closeRequestStream: () => false,
        closeStandaloneStream: () => false,
      });
    },
    messagesPath,
    // The server's requiredScopes (its connect is not called: onSession is given).
    ...(mcp ? { server: mcp } : {}),
    ...(auth ? { auth } : {}),
    ...(options.allowedHosts !== undefined ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins !== undefined ? { allowedOrigins: options.allowedOrigins } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.maxBufferedBytes !== undefined ? { maxBufferedBytes: options.maxBufferedBytes } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return { handler, ssePath: sse.ssePath ?? '/sse', messagesPath };
}

/**
 * The `node:http` server: the MCP endpoint at `path`, the HTTP+SSE endpoints, the protected resource
 * metadata and the extra `routes`, else 404; with the limits on slow or numerous clients (#13).
 */
function createHttpServer(
  options: StreamableHttpServerOptions,
  path: string,
  handler: StreamableHttpHandler,
  sse: HttpSseEndpoints | undefined,
  auth: RequestAuthenticator | undefined,
  operations: ServerOperations | undefined,
): Server {
  const headersTimeoutMs = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeoutMs = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_BODY_TIMEOUT_MS, headersTimeoutMs);
  // Node checks these deadlines only every connectionsCheckingInterval (30 s by default): check
  // often enough that a slow client is cut near its deadline (#13).
  const server = createServer({ connectionsCheckingInterval: Math.min(1000, headersTimeoutMs) }, (req, res) => {
    // The endpoint itself, asked for as it is, needs no URL parsing.
    const target = req.url;
    if (
      target === path ||
      (target !== undefined && target.startsWith(path) && target.charCodeAt(path.length) === 63) /* ? */
    ) {
      handler.handle(req, res);
      return;
    }
    const url = new URL(target ?? '/', 'http://localhost');
    if (url.pathname === path) handler.handle(req, res);
    else if (sse && (url.pathname === sse.ssePath || url.pathname === sse.messagesPath)) sse.handler.handle(req, res);
    else if (auth?.serveMetadata(req, res, url)) return;
    else if (operations && serveOperations(operations, req, res, url, options, auth)) return;
    else if (!options.routes?.(req, res, url)) refuse(res, 404, `Not Found: the MCP endpoint is ${path}`);
  });
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = requestTimeoutMs;
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  return server;
}

/** Listens on `port` and `host`; rejects when they cannot be bound. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Listens on a Unix socket or named pipe. A socket file nobody answers on (its process died) is
 * removed and bound again; one a live server answers on is refused as in use.
 */
async function listenOnSocket(server: Server, socketPath: string): Promise<void> {
  try {
    await listenOn(server, socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || !isSocketFile(socketPath)) throw error;
    if (await socketAnswers(socketPath)) throw error;
    rmSync(socketPath, { force: true });
    await listenOn(server, socketPath);
  }
}

function listenOn(server: Server, socketPath: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Whether `path` is a socket file (never remove anything else in its place). */
function isSocketFile(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

/** Whether a server accepts connections on `socketPath`. */
function socketAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** An authenticator that defers to the one `current` gives (refusing everything until there is one). */
function lateAuthenticator(current: () => RequestAuthenticator | undefined): RequestAuthenticator {
  const notReady: AuthRefusal = { status: 401, wwwAuthenticate: 'Bearer', description: 'the server is starting' };
  return {
    authenticate: (headers) => current()?.authenticate(headers) ?? Promise.resolve({ ok: false, ...notReady }),
    serveMetadata: (req, res, url) => current()?.serveMetadata(req, res, url) ?? false,
    insufficientScope: (scopes) => current()?.insufficientScope(scopes) ?? notReady,
  };
}
