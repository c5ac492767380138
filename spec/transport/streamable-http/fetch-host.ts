import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import type { HttpBindings } from '@hono/node-server';
import { createStreamableHttpFetchHandler } from '../../../lib/transport/http-server/streamable-http/streamable-http-fetch-handler';
import type {
  RunningStreamableHttpServer,
  StreamableHttpServerOptions,
} from '../../../lib/transport/http-server/streamable-http/streamable-http-server';

/** Test hosts for the fetch handler: a web `(request) => Response` function served on 127.0.0.1. */

export type FetchFunction = (request: Request, localAddress: string | undefined) => Promise<Response>;

/** A listening `node:http` server on 127.0.0.1 (ephemeral port) and its base URL. */
export interface ListeningHost {
  readonly server: Server;
  readonly origin: string;
  close(): Promise<void>;
}

/** Listens with `listener` on 127.0.0.1, port 0. */
export async function listenOnLoopback(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<ListeningHost> {
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves `fetch` with `@hono/node-server`'s bridge from Node's request to a web `Request` and back. */
export function serveFetch(fetch: FetchFunction): Promise<ListeningHost> {
  return listenOnLoopback(
    getRequestListener((request, env) => fetch(request, (env as HttpBindings).incoming.socket.localAddress)),
  );
}

/**
 * `startStreamableHttpServer`'s contract served by the fetch handler behind a fetch-style host, so
 * that the node handler's specs run against the web handler unchanged.
 */
export async function startFetchHostedServer(
  options: StreamableHttpServerOptions = {},
): Promise<RunningStreamableHttpServer> {
  const { auth, path = '/mcp', ...handlerOptions } = options;
  if (typeof auth === 'function' || options.httpSse || options.routes)
    throw new Error('the fetch-hosted test server takes handler options only');
  const mcp = createStreamableHttpFetchHandler({ ...handlerOptions, ...(auth ? { auth } : {}) });
  const host = await serveFetch((request, localAddress) =>
    new URL(request.url).pathname === path
      ? mcp.handle(request, { localAddress })
      : Promise.resolve(new Response('not found', { status: 404 })),
  );
  const url = new URL(path, host.origin);
  return {
    url,
    port: Number(url.port),
    handler: {
      handle: () => {
        throw new Error('served by the fetch handler');
      },
      sessions: mcp.sessions,
      close: () => mcp.close(),
    },
    httpSseHandler: undefined,
    server: host.server,
    close: async () => {
      mcp.close();
      await host.close();
    },
  };
}

/**
 * Serves `fetch` with a minimal hand-written bridge (no framework): Node's request becomes a web
 * `Request` whose body streams in and whose `signal` aborts when the client goes away; the
 * `Response` is written as it arrives, and its body is cancelled when the connection closes.
 */
export function serveFetchWithBridge(fetch: FetchFunction): Promise<ListeningHost> {
  return listenOnLoopback((req, res) => {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const method = req.method ?? 'GET';
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: abort.signal };
    if (method !== 'GET' && method !== 'HEAD') {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = 'half';
    }
    const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, init);
    void fetch(request, req.socket.localAddress)
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (!response.body) {
          res.end();
          return;
        }
        res.flushHeaders();
        const reader = response.body.getReader();
        res.on('close', () => void reader.cancel().catch(() => undefined));
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
        res.end();
      })
      .catch(() => res.destroy());
  });
}
