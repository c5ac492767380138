import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { ClientRevision } from '../../lib/client/client-api';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startRedis } from '../support/redis-server';
import { startScriptProcess, stopScriptProcess } from '../support/script-process';
import type { ScriptProcess } from '../support/script-process';
import type { RunningRedis } from '../support/redis-server';

// Per-user limits across a cluster: two processes of one server on a real redis-server, each
// counting calls in a shared Redis rate limit store. One user's calls, spread over both processes
// and over sessions, are limited as one (-32029, the retry delay in `data`); another user's are
// not. Each process is a `node` of its own running the built package.

const DIST = resolve(__dirname, '../../dist/lib');
const LIMIT = 4;
const WINDOW_MS = 60_000;

/** One cluster process: a server whose `echo` calls count per principal in Redis, behind a token check. */
const PROCESS = `
const { createServer, joinRedisCluster, rateLimit, redisRateLimitStore, createResourceServer, InvalidTokenError, textResult } = require(${JSON.stringify(`${DIST}/index.js`)});
const { connectRedis } = require(${JSON.stringify(`${DIST}/cluster/redis-connection.js`)});
const [redisUrl, prefix] = process.argv.slice(1);
const users = { 'alice-token': 'alice', 'bob-token': 'bob' };
(async () => {
  const cluster = await joinRedisCluster({ redis: redisUrl });
  const counting = await connectRedis(redisUrl);
  const server = createServer({
    name: 'limited',
    version: '1.0.0',
    requestState: { keys: cluster.requestStateKeys },
    middleware: [
      rateLimit({
        name: 'calls',
        limit: ${LIMIT},
        windowMs: ${WINDOW_MS},
        store: redisRateLimitStore(counting, { prefix }),
        when: (request) => request.method === 'tools/call',
      }),
    ],
  });
  server.tool({ name: 'echo', handler: () => textResult('process ' + process.pid) });
  const running = await cluster.serve(server, {
    host: '127.0.0.1',
    port: 0,
    auth: (endpoint) => createResourceServer({
      resource: endpoint.href,
      authorizationServers: ['https://issuer.example'],
      verify: async (token) => {
        const sub = users[token];
        if (!sub) throw new InvalidTokenError('unknown token');
        return { subject: sub, scopes: [], claims: { iss: 'https://issuer.example', sub } };
      },
    }),
  });
  process.stdout.write('serving at ' + running.url.href + '\\n');
  process.once('SIGTERM', () => void cluster.close().then(() => counting.quit()).then(() => process.exit(0)));
})().catch((error) => {
  process.stderr.write(String(error && error.stack || error) + '\\n');
  process.exit(1);
});
`;

type ClusterProcess = ScriptProcess;

const startProcess = (redisUrl: string, prefix: string): Promise<ClusterProcess> =>
  startScriptProcess(PROCESS, [redisUrl, prefix]);
const stopProcess = stopScriptProcess;

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('rate limits per principal across two cluster processes on Redis', () => {
  let redis: RunningRedis;
  const processes: ClusterProcess[] = [];
  const clients: McpClient[] = [];

  beforeAll(async () => {
    if (!existsSync(`${DIST}/index.js`)) throw new Error(`${DIST}/index.js is missing: run npm run build first`);
    redis = await startRedis();
    const prefix = `spec:principal-limits:${process.pid}:`;
    processes.push(...(await Promise.all([startProcess(redis.url, prefix), startProcess(redis.url, prefix)])));
  }, 30_000);
  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(processes.map(stopProcess));
    await redis?.stop();
  });

  /** A session of the user with `token` on process `at`, of the 2025-11-25 revision or the modern one. */
  async function sessionAs(
    token: string,
    at: number,
    protocolVersion: ClientRevision = '2025-11-25',
  ): Promise<McpClient> {
    const transport = createStreamableHttpClientTransport({
      url: processes[at]!.url,
      headers: { authorization: `Bearer ${token}` },
    });
    const client = await connect(transport, { name: 'principal-limits', version: '1.0.0', protocolVersion });
    clients.push(client);
    return client;
  }

  it('limits one user as one over both processes and new sessions, and leaves another user alone', async () => {
    const onFirst = await sessionAs('alice-token', 0);
    const onSecond = await sessionAs('alice-token', 1);
    const answered = new Set<string>();
    for (let call = 0; call < LIMIT; call++) {
      const result = await (call % 2 === 0 ? onFirst : onSecond).promises.callTool('echo');
      answered.add(JSON.stringify(result.content));
    }
    // Both processes answered: the calls were spread over them.
    expect(answered.size).toBe(2);

    const refused = await failureOf(onFirst.promises.callTool('echo'));
    expect(refused).toMatchObject({
      code: ErrorCode.RateLimited,
      data: { name: 'calls', limit: LIMIT, windowMs: WINDOW_MS },
    });
    const { retryAfterMs } = (refused as { data: { retryAfterMs: number } }).data;
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
    expect(await failureOf(onSecond.promises.callTool('echo'))).toMatchObject({ code: ErrorCode.RateLimited });
    // A new session (a new initialize) or a modern request counts against the same user.
    const fresh = await sessionAs('alice-token', 1);
    expect(await failureOf(fresh.promises.callTool('echo'))).toMatchObject({ code: ErrorCode.RateLimited });
    const modern = await sessionAs('alice-token', 0, '2026-07-28');
    expect(await failureOf(modern.promises.callTool('echo'))).toMatchObject({ code: ErrorCode.RateLimited });

    // Bob has a count of his own, on either process.
    const bobFirst = await sessionAs('bob-token', 0);
    const bobSecond = await sessionAs('bob-token', 1);
    for (let call = 0; call < LIMIT; call++) {
      await expect((call % 2 === 0 ? bobFirst : bobSecond).promises.callTool('echo')).resolves.toHaveProperty(
        'content',
      );
    }
    expect(await failureOf(bobSecond.promises.callTool('echo'))).toMatchObject({ code: ErrorCode.RateLimited });
  }, 30_000);
});
