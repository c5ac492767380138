import { joinRedisCluster } from '../../../lib/cluster/redis-cluster';
import type { RedisCluster } from '../../../lib/cluster/redis-cluster';
import { createServer } from '../../../lib/server/server';
import type { McpServer } from '../../../lib/server/server';
import type { RunningStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import { startRedis } from '../../support/redis-server';
import type { RunningRedis } from '../../support/redis-server';

// Beside the Prometheus suites: it needs an outside program (redis-server), which `npm run test:unit` skips.

async function readyz(
  running: RunningStreamableHttpServer,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL('/readyz', running.url));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('a cluster process: /readyz follows Redis', () => {
  let redis: RunningRedis | undefined;
  let cluster: RedisCluster | undefined;
  let server: McpServer | undefined;

  afterEach(async () => {
    server?.close();
    await cluster?.close();
    await redis?.stop();
    [redis, cluster, server] = [undefined, undefined, undefined];
  });

  it('answers 200 while Redis answers, 503 naming redis once it stops, and 200 again when it is back', async () => {
    redis = await startRedis();
    const port = Number(new URL(redis.url).port);
    cluster = await joinRedisCluster({ redis: redis.url });
    server = createServer({ name: 'clustered', version: '1.0.0', requestState: { keys: cluster.requestStateKeys } });
    const running = await cluster.serve(server, { operations: { readinessTimeoutMs: 500 } });

    expect(await readyz(running)).toEqual({
      status: 200,
      body: { status: 'ready', ready: true, checks: { redis: { ready: true } } },
    });
    expect((await fetch(new URL('/healthz', running.url))).status).toBe(200);
    expect(await (await fetch(new URL('/metrics', running.url))).text()).toContain('mcp_sessions_open 0\n');

    await redis.stop();
    const down = await readyz(running);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'not ready', checks: { redis: { ready: false } } });
    expect((down.body.checks as { redis: { detail: string } }).redis.detail).toMatch(/redis/i);
    // Alive all the same: a process waiting for Redis is not restarted for it.
    expect((await fetch(new URL('/healthz', running.url))).status).toBe(200);

    redis = await startRedis(port);
    const deadline = Date.now() + 10_000;
    let again = await readyz(running);
    while (again.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await readyz(running);
    }
    expect(again.status).toBe(200);
  }, 20_000);
});
