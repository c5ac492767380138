import { writeFileSync } from 'node:fs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startRedis } from '../support/redis-server';
import { startInProcessProxy } from './in-process-proxy';
import type { InProcessProxy } from './in-process-proxy';

// A reload of `rxmcp proxy --watch` replaces the serving keys too: a changed API key, rate limit
// and metrics token apply to the running gateway, its sessions kept; a file it cannot apply is
// refused and the running keys stay. And `/readyz` checks the Redis the limits count in.

const ENV = { KEY_A: 'key-a-0123456789abcdef', KEY_B: 'key-b-0123456789abcdef', SCRAPE_A: 'sa', SCRAPE_B: 'sb' };

async function upstream(): Promise<RunningStreamableHttpServer> {
  const server = createServer({ name: 'remote', version: '1.0.0' });
  server.tool({ name: 'ping', handler: () => textResult('pong') });
  return startStreamableHttpServer({ server, port: 0 });
}

/** Resolves once `check` holds, polling every 50 ms; rejects after `ms`. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: { code?: unknown; message?: string }) => error.code ?? error.message,
  );

const servers: RunningStreamableHttpServer[] = [];
const clients: McpClient[] = [];
let gateway: InProcessProxy | undefined;
afterEach(async () => {
  clients.splice(0).forEach((client) => client.close());
  await gateway?.stop();
  gateway = undefined;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A client whose requests carry `key()` as it is at each request. */
async function clientOf(url: URL, key: () => string): Promise<McpClient> {
  const transport = createStreamableHttpClientTransport({
    url,
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${key()}`);
      return fetch(input, { ...init, headers });
    },
  });
  const client = await connect(transport, { name: 'reload', version: '1.0.0', protocolVersion: '2025-11-25' });
  clients.push(client);
  return client;
}

/** Rewrites the servers file and waits for the reload's line (the `count`th on stderr). */
async function rewrite(config: unknown, count: number, what: RegExp): Promise<void> {
  writeFileSync(gateway!.file, JSON.stringify(config, null, 2));
  await eventually(`reload ${count}`, async () => (gateway!.stderr().match(what) ?? []).length >= count);
}

describe('rxmcp proxy --watch: the serving keys on reload', () => {
  it('applies a changed API key, rate limit and metrics token to the running gateway; refuses what it cannot apply', async () => {
    const remote = await upstream();
    servers.push(remote);
    const config = (key: string, limit: number, scrape: string) => ({
      mcpServers: { remote: { url: remote.url.href } },
      auth: { apiKey: { env: key } },
      policies: { rateLimits: [{ name: 'calls', limit, windowMs: 60_000, methods: ['tools/call'] }] },
      metrics: { tokenEnv: scrape },
    });
    gateway = await startInProcessProxy(config('KEY_A', 2, 'SCRAPE_A'), ENV, ['--watch']);
    let key = ENV.KEY_A;
    const session = await clientOf(gateway.url, () => key);
    const call = () => codeOf(session.promises.callTool('remote_ping'));
    const scrape = async (token: string) =>
      (await fetch(new URL('/metrics', gateway!.url), { headers: { authorization: `Bearer ${token}` } })).status;
    expect([await call(), await call(), await call()]).toEqual(['ok', 'ok', ErrorCode.RateLimited]);
    expect([await scrape(ENV.SCRAPE_A), await scrape(ENV.SCRAPE_B)]).toEqual([200, 401]);

    await rewrite(config('KEY_B', 4, 'SCRAPE_B'), 1, /reloaded .* \(~auth ~policies ~metrics\)\n/g);
    // The same session, now with the new key: the new limit counts afresh.
    key = ENV.KEY_B;
    expect([await call(), await call(), await call(), await call(), await call()]).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      ErrorCode.RateLimited,
    ]);
    const refused = await codeOf(session.promises.callTool('remote_ping'));
    expect(refused).toBe(ErrorCode.RateLimited);
    // The old key no longer opens a session; the new one does.
    expect(await codeOf(clientOf(gateway.url, () => ENV.KEY_A))).not.toBe('ok');
    expect(await codeOf(clientOf(gateway.url, () => ENV.KEY_B))).toBe('ok');
    expect([await scrape(ENV.SCRAPE_A), await scrape(ENV.SCRAPE_B)]).toEqual([401, 200]);

    // Two limits of one name, and removing `auth`: refused, the running keys stay.
    const twice = config('KEY_A', 9, 'SCRAPE_A');
    twice.policies.rateLimits.push({ name: 'calls', limit: 1, windowMs: 1000, methods: ['tools/call'] });
    await rewrite(twice, 1, /not reloaded, the running servers stay: .*two limits are named "calls"/g);
    const { auth: _auth, ...open } = config('KEY_B', 4, 'SCRAPE_B');
    await rewrite(open, 1, /not reloaded, the running servers stay: "auth" removed: that takes a restart/g);
    expect(await codeOf(clientOf(gateway.url, () => ENV.KEY_A))).not.toBe('ok');
    expect(await codeOf(session.promises.callTool('remote_ping'))).toBe(ErrorCode.RateLimited);
    expect(await scrape(ENV.SCRAPE_B)).toBe(200);
  });
});

interface Readiness {
  readonly ready: boolean;
  readonly checks: Record<string, { ready: boolean; detail?: string }>;
}

describe('rxmcp proxy --http: /readyz with the limits in Redis', () => {
  it('is not ready while Redis is unreachable, ready again when it returns, and forgets it when a reload drops it', async () => {
    let redis = await startRedis();
    const port = Number(new URL(redis.url).port);
    try {
      const remote = await upstream();
      servers.push(remote);
      const config = (policies: object) => ({ mcpServers: { remote: { url: remote.url.href } }, policies });
      const limits = { rateLimits: [{ limit: 100, windowMs: 60_000 }] };
      gateway = await startInProcessProxy(config({ redis: redis.url, ...limits }), {}, ['--watch']);
      const readyz = async () => {
        const answer = await fetch(new URL('/readyz', gateway!.url));
        const { ready, checks } = (await answer.json()) as Readiness;
        return { http: answer.status, ready, checks };
      };
      expect(await readyz()).toEqual({
        http: 200,
        ready: true,
        checks: { 'upstream:remote': { ready: true }, redis: { ready: true } },
      });
      await redis.stop();
      await eventually('not ready without Redis', async () => (await readyz()).http === 503);
      expect((await readyz()).checks.redis).toMatchObject({ ready: false, detail: expect.stringMatching(/Redis/) });
      redis = await startRedis(port);
      await eventually('ready with Redis back', async () => (await readyz()).http === 200);
      await rewrite(config(limits), 1, /reloaded .* \(~policies\)\n/g);
      expect(await readyz()).toEqual({ http: 200, ready: true, checks: { 'upstream:remote': { ready: true } } });
    } finally {
      await redis.stop();
    }
  });
});
