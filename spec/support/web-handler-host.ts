import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A web-standard handler: a `Request` in, a `Response` out (the official SDK v2's `createMcpHandler`). */
export interface WebHandler {
  fetch(request: Request): Promise<Response>;
}

/** A web-standard handler served over node:http on 127.0.0.1, at `url`; `close` stops it. */
export interface HostedWebHandler {
  readonly server: Server;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `handler` over node:http on 127.0.0.1 and a free port. `onPost` sees each request body
 * and its headers before the handler does (tests record what reached the server).
 */
export async function hostWebHandler(
  handler: WebHandler,
  onPost?: (body: Buffer, req: IncomingMessage) => void,
): Promise<HostedWebHandler> {
  const server = createServer((req, res) => void forward(handler, req, res, onPost));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function forward(
  handler: WebHandler,
  req: IncomingMessage,
  res: ServerResponse,
  onPost: ((body: Buffer, req: IncomingMessage) => void) | undefined,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  if (body) onPost?.(body, req);
  const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
    method: req.method,
    headers,
    body,
    signal: abort.signal,
  });
  const response = await handler.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The client went away.
  }
  res.end();
}
