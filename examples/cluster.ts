/**
 * One process of a cluster: start two (or more) on the same Redis, and any request may reach any
 * of them. A session lives in the process that answered its `initialize`; a request for it that
 * lands elsewhere is forwarded there, and if that process dies another takes the session over.
 *
 *   redis-server --port 6379 --save '' --appendonly no &
 *   REDIS_URL=redis://127.0.0.1:6379 PORT=3001 node dist/examples/cluster.js &
 *   REDIS_URL=redis://127.0.0.1:6379 PORT=3002 node dist/examples/cluster.js &
 *
 * Put any load balancer in front of 127.0.0.1:3001 and :3002 (no sticky sessions needed). Each
 * process prints its URL. Redis is reached with ioredis, an optional peer dependency of rxmcp.
 * REDIS_URL may name a sharded Redis Cluster (redis+cluster://host:port,host:port) or a primary
 * watched by Sentinel (redis+sentinel://host:port/<primary name>).
 */
import { createServer, joinRedisCluster, textResult } from 'rxmcp';

async function main(): Promise<void> {
  const redis = process.env.REDIS_URL;
  if (!redis) throw new Error('set REDIS_URL, for example redis://127.0.0.1:6379');
  // Join the cluster: sessions, their events and the routing between processes live in Redis.
  const cluster = await joinRedisCluster({ redis });

  // Every process serves the same definition. requestState keys are shared by the cluster, so a
  // multi round-trip request (2026-07-28) started on one process may finish on another; tasks are
  // kept in Redis, so any process can report on them (and says so when the one running a task died).
  const server = createServer({
    name: 'cluster-example',
    version: '1.0.0',
    requestState: { keys: cluster.requestStateKeys },
    tasks: { store: cluster.taskStore() },
  });
  server.tool({
    name: 'where',
    description: 'Says which process ran the call.',
    handler: () => textResult(`process ${process.pid}`),
  });

  const running = await cluster.serve(server, { host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
  process.stdout.write(`cluster-example (process ${process.pid}) at ${running.url.href}\n`);

  // On SIGTERM leave the cluster: this process's sessions go on in the others.
  const stop = () => void cluster.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`cluster-example: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
