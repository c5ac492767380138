import type { AddressInfo } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import type { McpServer } from '../../lib/server/server';
import type { RequestAuthenticator } from '../../lib/transport/http/request-auth';
import { createStreamableHttpFetchHandler } from '../../lib/transport/http-server/streamable-http/streamable-http-fetch-handler';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { joinRedisCluster } from '../../lib/cluster/redis-cluster';
import { readAnswer } from './matrix-harness';
import type { Answer } from './matrix-harness';

// The Streamable HTTP endpoints the combination matrix tries, each behind `auth`: node:http, and the
// fetch handler (called with `Request`s, as a fetch host would).

/** One protected endpoint: POST and GET with given headers, and its resource URL. */
export interface Front {
  readonly resource: string;
  post(headers: Record<string, string>, body: unknown): Promise<Answer>;
  /**
   * A GET (a session's standalone stream, or a resumption with `last-event-id`): the status at once,
   * and the events that arrive until `until` matches one or `waitMs` passes.
   */
  get(
    headers: Record<string, string>,
    until?: (message: Record<string, unknown>) => boolean,
    waitMs?: number,
  ): Promise<Answer & { ids: readonly string[] }>;
  close(): Promise<void>;
}

type Fetch = (request: Request) => Promise<Response>;

const postHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function frontOver(resource: string, doFetch: Fetch, close: () => Promise<void>): Front {
  return {
    resource,
    async post(headers, body) {
      return readAnswer(
        await doFetch(
          new Request(resource, {
            method: 'POST',
            headers: { ...postHeaders, ...headers },
            body: JSON.stringify(body),
          }),
        ),
      );
    },
    async get(headers, until = () => false, waitMs = 400) {
      const abort = new AbortController();
      const response = await doFetch(
        new Request(resource, {
          method: 'GET',
          headers: { accept: 'text/event-stream', ...headers },
          signal: abort.signal,
        }),
      );
      if (!(response.headers.get('content-type') ?? '').includes('text/event-stream') || response.body === null) {
        return { ...(await readAnswer(response)), ids: [] };
      }
      const messages: Array<Record<string, unknown>> = [];
      const ids: string[] = [];
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffered = '';
      const timer = setTimeout(() => {
        abort.abort();
        void reader.cancel().catch(() => undefined);
      }, waitMs);
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += decoder.decode(value, { stream: true });
          let end: number;
          let stop = false;
          while ((end = buffered.indexOf('\n\n')) >= 0) {
            const event = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            for (const line of event.split('\n')) {
              if (line.startsWith('id:')) ids.push(line.slice(3).trim());
              if (line.startsWith('data:') && line.slice(5).trim() !== '') {
                const message = JSON.parse(line.slice(5)) as Record<string, unknown>;
                messages.push(message);
                if (until(message)) stop = true;
              }
            }
          }
          if (stop) break;
        }
      } catch {
        // aborted: what arrived is the answer
      } finally {
        clearTimeout(timer);
        abort.abort();
        void reader.cancel().catch(() => undefined);
      }
      return { status: response.status, messages, ids };
    },
    close,
  };
}

/** `startStreamableHttpServer({ auth })` on 127.0.0.1. */
export async function nodeFront(server: McpServer, auth: (endpoint: URL) => RequestAuthenticator): Promise<Front> {
  const running = await startStreamableHttpServer({ server, host: '127.0.0.1', port: 0, auth, jsonWindowMs: 0 });
  return frontOver(
    running.url.href,
    (request) => fetch(request),
    () => running.close(),
  );
}

/** `createStreamableHttpFetchHandler({ auth })`, handed `Request`s directly: no socket at all. */
export async function fetchFront(server: McpServer, auth: (endpoint: URL) => RequestAuthenticator): Promise<Front> {
  const resource = 'http://127.0.0.1:8123/mcp';
  const handler = createStreamableHttpFetchHandler({ server, auth: auth(new URL(resource)), jsonWindowMs: 0 });
  return frontOver(
    resource,
    (request) => handler.handle(request, { localAddress: '127.0.0.1' } as never),
    () => {
      handler.close();
      return Promise.resolve();
    },
  );
}

/**
 * Two processes of a cluster on `redisUrl` (each its own Redis connection), serving one definition:
 * `initialize` goes to the first, every other request to the second, which forwards it to the owner.
 * Both take tokens for one resource, `https://mcp.example/mcp`.
 */
export function clusterFront(redisUrl: string, prefix: string) {
  return async (server: McpServer, auth: (endpoint: URL) => RequestAuthenticator): Promise<Front> => {
    const resource = 'https://mcp.example/mcp';
    const members = await Promise.all(
      [0, 1].map(async () => {
        const cluster = await joinRedisCluster({ redis: redisUrl, heartbeatMs: 100, prefix });
        const running = await cluster.serve(server, { auth: auth(new URL(resource)), jsonWindowMs: 0 });
        return { cluster, running };
      }),
    );
    const [first, second] = members as [(typeof members)[0], (typeof members)[0]];
    const route = (request: Request): Request => {
      const isInitialize = request.method === 'POST' && !request.headers.has('mcp-session-id');
      const target = (isInitialize ? first : second).running.url;
      return new Request(target, request);
    };
    return frontOver(
      resource,
      (request) => fetch(route(request)),
      async () => {
        for (const { cluster, running } of members) {
          await running.close();
          await cluster.close();
        }
      },
    );
  };
}

/** A node:http server on a free loopback port, for a handler of one's own. */
export async function listen(
  handler: Parameters<typeof createHttpServer>[1],
): Promise<{ server: Server; url: string }> {
  const server = createHttpServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
