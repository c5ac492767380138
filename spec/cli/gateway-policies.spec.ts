import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { parseProxyConfig } from '../../lib/cli/config';
import { gatewayMiddleware } from '../../lib/cli/gateway-policies';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startRedis } from '../support/redis-server';
import { startInProcessProxy } from './in-process-proxy';
import type { InProcessProxy } from './in-process-proxy';

// The servers file's `policies`: rate limits and a tool policy per caller, applied by `rxmcp proxy`
// to what it forwards; with `redis`, counted across two gateway replicas on a real redis-server.

const KEY = 'k3y-0f-the-gateway-0123456789';

async function upstreamWithTools(): Promise<RunningStreamableHttpServer> {
  const server = createServer({ name: 'remote', version: '1.0.0' });
  server.tool({ name: 'ping', handler: () => textResult('pong') });
  server.tool({ name: 'drop_tables', handler: () => textResult('dropped') });
  return startStreamableHttpServer({ server, port: 0 });
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const upstreams: RunningStreamableHttpServer[] = [];
const gateways: InProcessProxy[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  clients.splice(0).forEach((client) => client.close());
  for (const gateway of gateways.splice(0)) await gateway.stop();
  for (const upstream of upstreams.splice(0)) await upstream.close();
});

async function clientOf(gateway: InProcessProxy): Promise<McpClient> {
  const transport = createStreamableHttpClientTransport({
    url: gateway.url,
    headers: { authorization: `Bearer ${KEY}` },
  });
  const client = await connect(transport, { name: 'spec', version: '1.0.0', protocolVersion: '2025-11-25' });
  clients.push(client);
  return client;
}

describe('the servers file\'s "policies"', () => {
  it('refuses two rate limits of one name and a redis that is not a Redis URL', () => {
    const file = (policies: unknown) => JSON.stringify({ mcpServers: { a: { command: 'x' } }, policies });
    expect(() =>
      parseProxyConfig(
        's.json',
        file({
          rateLimits: [
            { limit: 1, windowMs: 1 },
            { limit: 2, windowMs: 2 },
          ],
        }),
        {},
      ),
    ).toThrow('s.json: "policies.rateLimits": two limits are named "requests"; give each its own "name"');
    expect(() => parseProxyConfig('s.json', file({ redis: 'http://r' }), {})).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(() => parseProxyConfig('s.json', file({ concurrency: 0 }), {})).toThrow(/"policies.concurrency"/);
    expect(
      parseProxyConfig('s.json', file({ redis: '${REDIS}', concurrency: 2 }), { REDIS: 'redis://r:6379' }).policies,
    ).toEqual({
      redis: 'redis://r:6379',
      concurrency: 2,
    });
  });

  it('hides a tool the caller lacks the scope for, and limits the caller over its sessions', async () => {
    const upstream = await upstreamWithTools();
    upstreams.push(upstream);
    const gateway = await startInProcessProxy(
      {
        mcpServers: { remote: { url: upstream.url.href } },
        auth: { apiKey: { env: 'GATEWAY_KEY', subject: 'ci', scopes: ['read'] } },
        policies: {
          rateLimits: [{ name: 'calls', limit: 2, windowMs: 60_000, methods: ['tools/call'] }],
          tools: { remote_drop_tables: { scopes: ['admin'] } },
        },
      },
      { GATEWAY_KEY: KEY },
    );
    gateways.push(gateway);
    const first = await clientOf(gateway);
    expect((await first.promises.listTools()).map((tool) => tool.name)).toEqual(['remote_ping']);
    // A refused tool counts against no limit.
    expect(await failureOf(first.promises.callTool('remote_drop_tables'))).toMatchObject({ code: ErrorCode.Forbidden });
    await first.promises.callTool('remote_ping');
    const second = await clientOf(gateway);
    await second.promises.callTool('remote_ping');
    const refused = await failureOf(second.promises.callTool('remote_ping'));
    expect(refused).toMatchObject({ code: ErrorCode.RateLimited, data: { name: 'calls', limit: 2, windowMs: 60_000 } });
    // The refusal is counted for the scraper, by the limit's name.
    const scraped = await fetch(new URL('/metrics', gateway.url), { headers: { authorization: `Bearer ${KEY}` } });
    expect(await scraped.text()).toMatch(/^mcp_limit_hits_total\{limit="calls"\} 1$/m);
  });

  it('with redis, counts a caller over two gateway replicas', async () => {
    const redis = await startRedis();
    try {
      const upstream = await upstreamWithTools();
      upstreams.push(upstream);
      const config = {
        mcpServers: { remote: { url: upstream.url.href } },
        auth: { apiKey: { env: 'GATEWAY_KEY' } },
        policies: { redis: '${REDIS_URL}', rateLimits: [{ limit: 3, windowMs: 60_000, methods: ['tools/call'] }] },
      };
      const env = { GATEWAY_KEY: KEY, REDIS_URL: redis.url };
      gateways.push(await startInProcessProxy(config, env), await startInProcessProxy(config, env));
      const [onFirst, onSecond] = [await clientOf(gateways[0]!), await clientOf(gateways[1]!)];
      await onFirst.promises.callTool('remote_ping');
      await onSecond.promises.callTool('remote_ping');
      await onFirst.promises.callTool('remote_ping');
      expect(await failureOf(onSecond.promises.callTool('remote_ping'))).toMatchObject({ code: ErrorCode.RateLimited });
    } finally {
      clients.splice(0).forEach((client) => client.close());
      for (const gateway of gateways.splice(0)) await gateway.stop();
      await redis.stop();
    }
  });

  it('connects to Redis only when asked, and fails when it cannot', async () => {
    const urls: string[] = [];
    const refuse = (url: string) => {
      urls.push(url);
      return Promise.reject(new Error(`cannot reach Redis at ${new URL(url).host}`));
    };
    const local = await gatewayMiddleware(
      { concurrency: 1, rateLimits: [{ limit: 1, windowMs: 1000 }] },
      undefined,
      refuse,
    );
    expect(local.middleware).toHaveLength(2);
    await local.close();
    expect(urls).toEqual([]);
    await expect(gatewayMiddleware({ redis: 'redis://127.0.0.1:1' }, undefined, refuse)).rejects.toThrow(
      'cannot reach Redis at 127.0.0.1:1',
    );
  });
});
