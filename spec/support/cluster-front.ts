import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A round-robin load balancer in front of a cluster's processes, that retries a request on the next
 * backend only when the connection was refused (the request never reached a process), as HTTP
 * load balancers do for requests that are not idempotent: a POST a process got and may have run is
 * never sent to another. Answers, SSE streams included, are piped back as they come; a backend that
 * goes away mid-answer breaks the client's stream.
 */
export interface ClusterFront {
  readonly url: string;
  /** Puts a backend in the place of another (a process started in place of one that died). */
  replace(backend: number, url: string): void;
  close(): Promise<void>;
}

export async function startClusterFront(initial: readonly string[]): Promise<ClusterFront> {
  const backends = [...initial];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => pass(Buffer.concat(chunks), next++ % backends.length, 0));
    const pass = (body: Buffer, backend: number, tries: number): void => {
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
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (!answered && error.code === 'ECONNREFUSED' && tries + 1 < backends.length)
          pass(body, (backend + 1) % backends.length, tries + 1);
        else res.destroy();
      });
      upstream.end(body);
    };
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
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
