import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuse } from './http-guards';
import { createStreamableHttpHandler } from './streamable-http-handler';
import type { StreamableHttpHandler, StreamableHttpHandlerOptions } from './streamable-http-handler';

/** Options of {@link startStreamableHttpServer}: where to listen, plus the handler's options. */
export interface StreamableHttpServerOptions extends StreamableHttpHandlerOptions {
  /** The address to bind. Default `127.0.0.1`: a local server should not listen on every interface. */
  readonly host?: string;
  /** The port; default 0 (an ephemeral port, see `url`). */
  readonly port?: number;
  /** The MCP endpoint path. Default `/mcp`. */
  readonly path?: string;
  /**
   * Extra routes served by the same HTTP server before the 404 fallback, for example the legacy
   * HTTP+SSE endpoints: return `true` when the request was handled.
   */
  readonly routes?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean;
}

/** A running Streamable HTTP server. */
export interface RunningStreamableHttpServer {
  /** The endpoint URL, for example `http://127.0.0.1:49152/mcp`. */
  readonly url: URL;
  readonly port: number;
  readonly handler: StreamableHttpHandler;
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
export async function startStreamableHttpServer(options: StreamableHttpServerOptions): Promise<RunningStreamableHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const handler = createStreamableHttpHandler(options);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === path) handler.handle(req, res);
    else if (!options.routes?.(req, res, url)) refuse(res, 404, `Not Found: the MCP endpoint is ${path}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: new URL(`http://${urlHost}:${port}${path}`),
    port,
    handler,
    server,
    close: async () => {
      handler.close();
      const done = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await done;
    },
  };
}
