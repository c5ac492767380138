import { request } from 'node:http';
import pino from 'pino';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import type { RequestAuthenticator } from '../../lib/transport/http/request-auth';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type {
  RunningStreamableHttpServer,
  StreamableHttpServerOptions,
} from '../../lib/transport/http-server/streamable-http/streamable-http-server';

/** A GET (or another method) with the headers given, Host included, as a scraper would send it. */
function get(
  url: URL,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const info = { name: 'operations-spec', version: '1.0.0' };

function toolServer(): McpServer {
  const server = createServer({ name: 'ops', version: '1.0.0' });
  server.tool({ name: 'echo', description: 'echo', handler: () => ({ content: [{ type: 'text', text: 'hi' }] }) });
  server.tool({
    name: 'broken',
    description: 'fails',
    handler: () => ({ isError: true, content: [{ type: 'text', text: 'no' }] }),
  });
  return server;
}

describe('startStreamableHttpServer({ operations })', () => {
  let server: McpServer;
  let running: RunningStreamableHttpServer | undefined;
  let client: McpClient | undefined;

  const start = async (options: Partial<StreamableHttpServerOptions>) => {
    server = toolServer();
    running = await startStreamableHttpServer({ server, ...options });
    return running;
  };

  afterEach(async () => {
    await client?.close();
    client = undefined;
    server.close();
    await running?.close();
    running = undefined;
  });

  it('answers /healthz 200 and /readyz 200 or 503 with the checks that are not ready named', async () => {
    let upstream: boolean | string = true;
    const { url } = await start({
      operations: {
        readiness: { files: () => upstream, slow: () => new Promise<boolean>(() => undefined) },
        readinessTimeoutMs: 50,
      },
    });
    expect(await get(url, '/healthz')).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    const notReady = await get(url, '/readyz');
    expect(notReady.status).toBe(503);
    expect(JSON.parse(notReady.body)).toEqual({
      status: 'not ready',
      ready: false,
      checks: { files: { ready: true }, slow: { ready: false, detail: 'no answer within 50 ms' } },
    });

    await running!.close();
    const up = await start({ operations: { readiness: { files: () => upstream } } });
    expect(await get(up.url, '/readyz')).toMatchObject({ status: 200 });
    upstream = 'the upstream process exited';
    const down = await get(up.url, '/readyz');
    expect(down.status).toBe(503);
    expect(JSON.parse(down.body)).toMatchObject({
      checks: { files: { ready: false, detail: 'the upstream process exited' } },
    });
    expect((await get(up.url, '/readyz', {}, 'POST')).status).toBe(405);
  });

  it('counts calls of a session by method and outcome, with their durations, sessions open and requests in flight', async () => {
    const { url } = await start({ operations: {} });
    client = await connect(createStreamableHttpClientTransport({ url }), { ...info, protocolVersion: '2025-11-25' });
    await client.promises.callTool('echo');
    await client.promises.callTool('echo');
    await client.promises.callTool('broken');
    const scrape = await get(url, '/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const lines = scrape.body.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '# TYPE mcp_requests_total counter',
        'mcp_requests_total{method="initialize",outcome="ok"} 1',
        'mcp_requests_total{method="tools/call",outcome="ok"} 2',
        'mcp_requests_total{method="tools/call",outcome="tool_error"} 1',
        '# TYPE mcp_request_duration_seconds histogram',
        'mcp_request_duration_seconds_bucket{method="tools/call",le="+Inf"} 3',
        'mcp_request_duration_seconds_count{method="tools/call"} 3',
        'mcp_sessions_open 1',
        'mcp_requests_in_flight 0',
      ]),
    );
  });

  it('counts the requests of a modern revision too', async () => {
    const { url } = await start({ operations: {} });
    client = await connect(createStreamableHttpClientTransport({ url }), { ...info, protocolVersion: '2026-07-28' });
    await client.promises.callTool('echo');
    const { body } = await get(url, '/metrics');
    expect(body).toContain('mcp_requests_total{method="tools/call",outcome="ok"} 1\n');
    expect(body).toContain('mcp_sessions_open 0\n');
  });

  it('counts an initialize refused because the server holds its most sessions as a limit hit', async () => {
    const { url } = await start({ operations: {}, maxSessions: 1 });
    client = await connect(createStreamableHttpClientTransport({ url }), { ...info, protocolVersion: '2025-11-25' });
    await expect(
      connect(createStreamableHttpClientTransport({ url }), { ...info, protocolVersion: '2025-11-25' }),
    ).rejects.toThrow();
    const { body } = await get(url, '/metrics');
    expect(body).toContain('mcp_limit_hits_total{limit="sessions"} 1\n');
  });

  it('writes a line at info per call: method, tool, duration, outcome', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const { url } = await start({ operations: { metrics: false }, logger });
    client = await connect(createStreamableHttpClientTransport({ url }), { ...info, protocolVersion: '2025-11-25' });
    await client.promises.callTool('broken');
    const call = lines.find((line) => line.msg === 'call' && line.method === 'tools/call');
    expect(call).toMatchObject({ component: 'operations', tool: 'broken', outcome: 'tool_error' });
    expect(call!.durationMs).toEqual(expect.any(Number));
    expect(call!.sessionId).toEqual(expect.any(String));
    // metrics: false serves no /metrics
    expect((await get(url, '/metrics')).status).toBe(404);
  });

  it('serves nothing of it without operations', async () => {
    const { url } = await start({});
    expect((await get(url, '/healthz')).status).toBe(404);
    expect((await get(url, '/metrics')).status).toBe(404);
  });

  it('keeps the Host and Origin checks on the operations paths', async () => {
    const { url } = await start({ operations: {} });
    expect((await get(url, '/metrics', { host: 'evil.example' })).status).toBe(403);
    expect((await get(url, '/healthz', { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('lets a scraper with the metrics bearer token read /metrics, and no one else', async () => {
    const { url } = await start({ operations: { metricsAccess: { bearerToken: 's3cret' } } });
    const refused = await get(url, '/metrics');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect((await get(url, '/metrics', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await get(url, '/metrics', { authorization: 'Bearer s3cret' })).status).toBe(200);
  });

  it("asks for the server's auth on /metrics by default, while /healthz and /readyz answer without it", async () => {
    const auth: RequestAuthenticator = {
      authenticate: (headers) =>
        Promise.resolve(
          headers.authorization === 'Bearer good'
            ? { ok: true, info: { subject: 'scraper', scopes: [], claims: {} } }
            : { ok: false, status: 401, wwwAuthenticate: 'Bearer', description: 'no token' },
        ),
      serveMetadata: () => false,
      insufficientScope: () => ({ status: 403, wwwAuthenticate: 'Bearer', description: 'scope' }),
    };
    const { url } = await start({ operations: {}, auth });
    expect((await get(url, '/metrics')).status).toBe(401);
    expect((await get(url, '/metrics', { authorization: 'Bearer good' })).status).toBe(200);
    expect((await get(url, '/healthz')).status).toBe(200);
    expect((await get(url, '/readyz')).status).toBe(200);
  });
});
