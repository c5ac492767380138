import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the front passed it on. */
export interface FrontRequest {
  readonly method: string;
  readonly backend: number;
  /** The session the request named, or the one its answer opened. */
  readonly sessionId: string | undefined;
  readonly lastEventId: string | undefined;
  /** The JSON-RPC method of a POST's body, when it has one. */
  readonly rpcMethod: string | undefined;
}

/**
 * A load balancer in front of a cluster's processes: each request goes to the next backend in turn
 * (no stickiness), and to the one after when a backend refuses the connection (a process that
 * died), as an HTTP load balancer retries the next upstream. Answers, SSE streams included, are
 * piped back as they come; a backend that goes away mid-answer breaks the client's stream.
 */
export interface RoundRobinFront {
  readonly url: string;
  readonly requests: FrontRequest[];
  /** Sends the next POST whose body is a JSON-RPC request of `rpcMethod` to this backend (once). */
  pin(rpcMethod: string, backend: number): void;
  /** Puts a backend in the place of another (a process started in place of one that died). */
  replace(backend: number, url: string): void;
  close(): Promise<void>;
}

export async function startRoundRobinFront(initial: readonly string[]): Promise<RoundRobinFront> {
  const backends = [...initial];
  const requests: FrontRequest[] = [];
  let next = 0;
  let pinned: { rpcMethod: string; backend: number } | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const rpcMethod = rpcMethodOf(body);
      let first = next++ % backends.length;
      if (pinned && rpcMethod === pinned.rpcMethod) {
        first = pinned.backend;
        pinned = undefined;
      }
      pass(req, res, body, first, 0, rpcMethod);
    });
  });
  const pass = (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    backend: number,
    tries: number,
    rpcMethod: string | undefined,
  ): void => {
    const target = new URL(backends[backend]!);
    const upstream = request({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host },
    });
    let answered = false;
    upstream.on('response', (answer) => {
      answered = true;
      requests.push({
        method: req.method ?? '',
        backend,
        sessionId: (req.headers['mcp-session-id'] ?? answer.headers['mcp-session-id']) as string | undefined,
        lastEventId: req.headers['last-event-id'] as string | undefined,
        rpcMethod,
      });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.flushHeaders();
      answer.on('data', (chunk: Buffer) => res.write(chunk));
      answer.on('end', () => res.end());
      answer.on('aborted', () => res.destroy());
      answer.on('error', () => res.destroy());
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.on('error', () => {
      if (answered) res.destroy();
      else if (tries + 1 < backends.length) pass(req, res, body, (backend + 1) % backends.length, tries + 1, rpcMethod);
      else res.destroy();
    });
    upstream.end(body);
  };
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    pin(rpcMethod, backend) {
      pinned = { rpcMethod, backend };
    },
    replace(backend, url) {
      backends[backend] = url;
    },
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

function rpcMethodOf(body: Buffer): string | undefined {
  if (body.length === 0) return undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { method?: unknown; id?: unknown };
    return typeof parsed.method === 'string' && parsed.id !== undefined ? parsed.method : undefined;
  } catch {
    return undefined;
  }
}
