/**
 * The bench server as one process of a cluster: `node rxmcp-cluster.js <redis-url>` serves it on a
 * free port of 127.0.0.1 and prints its endpoint.
 */
import { joinRedisCluster } from '../../lib/index';
import { createBenchServer } from './rxmcp-server';

async function main(): Promise<void> {
  const cluster = await joinRedisCluster({ redis: process.argv[2]! });
  const running = await cluster.serve(createBenchServer(), { port: 0 });
  process.stdout.write(`${running.url.href}\n`);
  process.once('SIGTERM', () => void cluster.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
