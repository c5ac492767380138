import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyCors, CORS_REQUEST_HEADERS } from '../../../lib/transport/http/cors';
import type { CorsOptions } from '../../../lib/transport/http/cors';
import { checkHostAndOrigin } from '../../../lib/transport/http/http-guards';
import { createServer as createMcpServer } from '../../../lib/server/server';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One raw request (a browser's Origin and preflight headers cannot be set through fetch). */
function send(url: URL, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => (text += piece));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const APP = 'https://app.example.com';
const PREFLIGHT = { 'access-control-request-method': 'POST' };

describe('applyCors', () => {
  let server: Server | undefined;
  let url: URL;
  /** Serves `applyCors` with `cors`; what it lets through is answered 200 `passed`. */
  async function serve(cors: CorsOptions): Promise<void> {
    server = createServer((req, res) => {
      if (applyCors(req, res, cors)) return;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('passed');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  }
  afterEach(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  });

  it('answers a preflight from an allowed origin with the MCP methods and request headers', async () => {
    await serve({ origins: [APP] });
    const answer = await send(url, 'OPTIONS', {
      origin: APP,
      ...PREFLIGHT,
      'access-control-request-headers': 'content-type, mcp-session-id, mcp-protocol-version',
    });
    expect(answer.status).toBe(204);
    expect(answer.body).toBe('');
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(answer.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
    const allowed = answer.headers['access-control-allow-headers']!.split(', ');
    for (const name of [
      'content-type',
      'accept',
      'authorization',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
      'mcp-method',
      'mcp-name',
    ])
      expect(allowed).toContain(name);
    expect(answer.headers['access-control-max-age']).toBe('600');
    expect(answer.headers.vary).toBe('Origin');
  });

  it('allows the Mcp-Param-* headers a preflight asks for, and the configured extras, but no other', async () => {
    await serve({ origins: [APP], allowHeaders: ['X-Trace-Id'], maxAgeSeconds: 60 });
    const answer = await send(url, 'OPTIONS', {
      origin: APP,
      ...PREFLIGHT,
      'access-control-request-headers': 'Mcp-Param-Region, x-secret, mcp-name',
    });
    const allowed = answer.headers['access-control-allow-headers']!.split(', ');
    expect(allowed).toEqual([...CORS_REQUEST_HEADERS, 'x-trace-id', 'mcp-param-region']);
    expect(answer.headers['access-control-max-age']).toBe('60');
  });

  it('refuses a preflight from another origin with 403 and no CORS headers', async () => {
    await serve({ origins: [APP] });
    const answer = await send(url, 'OPTIONS', { origin: 'https://evil.example', ...PREFLIGHT });
    expect(answer.status).toBe(403);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('marks a request from an allowed origin and exposes the session id and auth challenge', async () => {
    await serve({ origins: [APP], exposeHeaders: ['X-Request-Id'] });
    const answer = await send(url, 'POST', { origin: APP });
    expect(answer.body).toBe('passed');
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    expect(answer.headers['access-control-expose-headers']).toBe(
      'mcp-session-id, mcp-protocol-version, www-authenticate, X-Request-Id',
    );
  });

  it('lets requests from other origins and without Origin through unmarked', async () => {
    await serve({ origins: [APP] });
    for (const headers of [{ origin: 'https://evil.example' }, {}] as Record<string, string>[]) {
      const answer = await send(url, 'POST', headers);
      expect(answer.body).toBe('passed');
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      expect(answer.headers['access-control-expose-headers']).toBeUndefined();
    }
  });

  it("answers '*' for any origin, and names the origin instead when credentials are allowed", async () => {
    await serve({ origins: '*' });
    const any = await send(url, 'POST', { origin: 'https://elsewhere.example' });
    expect(any.headers['access-control-allow-origin']).toBe('*');
    expect(any.headers.vary).toBeUndefined();
    await new Promise((resolve) => server!.close(resolve));
    await serve({ origins: '*', credentials: true });
    const named = await send(url, 'OPTIONS', { origin: 'https://elsewhere.example', ...PREFLIGHT });
    expect(named.status).toBe(204);
    expect(named.headers['access-control-allow-origin']).toBe('https://elsewhere.example');
    expect(named.headers['access-control-allow-credentials']).toBe('true');
    expect(named.headers.vary).toBe('Origin');
  });

  it('leaves an OPTIONS request that is not a preflight to the endpoint', async () => {
    await serve({ origins: [APP] });
    const answer = await send(url, 'OPTIONS', { origin: APP });
    expect(answer.body).toBe('passed');
  });
});

describe('checkHostAndOrigin with CORS origins', () => {
  const request = (headers: Record<string, string>) =>
    ({ socket: { localAddress: '10.0.0.5' }, headers }) as unknown as IncomingMessage;
  const host = 'mcp.example.com';
  // Off loopback, the server's public name must be given (see allowedHosts).
  const named = { allowedHosts: [host] };

  it('accepts the CORS origins that the default Origin check refuses, and still checks Host', () => {
    expect(checkHostAndOrigin(request({ host, origin: APP }), named)).toMatch(/Origin .* is not allowed/);
    expect(checkHostAndOrigin(request({ host, origin: APP }), { ...named, cors: { origins: [APP] } })).toBeUndefined();
    expect(
      checkHostAndOrigin(request({ host, origin: 'https://x.example' }), { ...named, cors: { origins: '*' } }),
    ).toBe(undefined);
    expect(
      checkHostAndOrigin(request({ host, origin: 'https://evil.example' }), { ...named, cors: { origins: [APP] } }),
    ).toMatch(/Origin .* is not allowed/);
    expect(
      checkHostAndOrigin(request({ host: 'evil.example', origin: APP }), {
        allowedHosts: [host],
        cors: { origins: [APP] },
      }),
    ).toMatch(/Host header/);
  });
});

describe('startStreamableHttpServer with cors', () => {
  let running: RunningStreamableHttpServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  const start = async (cors?: CorsOptions) => {
    const mcp = createMcpServer({ name: 'cors-test', version: '1.0.0' });
    running = await startStreamableHttpServer({ server: mcp, ...(cors ? { cors } : {}) });
    return running.url;
  };
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
  });
  const post = (url: URL, origin: string) =>
    send(
      url,
      'POST',
      { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      initialize,
    );

  it('refuses a foreign origin without cors, and serves it with the session id exposed when cors lists it', async () => {
    const plain = await start();
    expect((await post(plain, APP)).status).toBe(403);
    await running!.close();
    const url = await start({ origins: [APP] });
    const preflight = await send(url, 'OPTIONS', { origin: APP, ...PREFLIGHT });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
    const answer = await post(url, APP);
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toEqual(expect.any(String));
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(answer.headers['access-control-expose-headers']).toContain('mcp-session-id');
  });

  it('marks refusals too, so that a page can read their status', async () => {
    const url = await start({ origins: [APP] });
    const answer = await send(url, 'GET', { origin: APP, accept: 'text/event-stream' });
    expect(answer.status).toBe(400);
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
  });
});
