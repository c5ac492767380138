/**
 * A cluster process for the multi-process cluster specs, built from the sources (see
 * cluster-processes.ts) so that it runs the code under test. Configured by its environment:
 * REDIS_URL, PREFIX, HEARTBEAT_MS. Prints `listening <url> <process id>` once it serves.
 *
 * Its tools: `countdown` (progress every `intervalMs`, `from` steps; counts its runs in Redis under
 * `<prefix>runs`, by `run`, so a spec can tell that no call ran twice), `whoami` (the process's id)
 * and `touch` (a cluster-wide resource update of `test://watched`).
 */
import { defer, endWith, interval, map, take } from 'rxjs';
import pino from 'pino';
import { z } from 'zod';
import { progress } from '../../lib/connection/handler-events';
import { connectRedis } from '../../lib/cluster/redis-connection';
import { joinRedisCluster } from '../../lib/cluster/redis-cluster';
import { createServer } from '../../lib/server/server';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL!;
  const prefix = process.env.PREFIX ?? 'rxmcp:';
  const heartbeatMs = Number(process.env.HEARTBEAT_MS ?? 200);
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'error' }, pino.destination(2));
  const cluster = await joinRedisCluster({ redis: redisUrl, prefix, heartbeatMs, logger });
  const counters = await connectRedis(redisUrl);
  const server = createServer({
    name: 'cluster-child',
    version: '1.0.0',
    requestState: { keys: cluster.requestStateKeys },
    tasks: { store: cluster.taskStore() },
  });
  server.resource({ uri: 'test://watched', name: 'watched', text: 'watched' });
  server.tool({
    name: 'countdown',
    description: 'Counts down, one progress step every intervalMs.',
    execution: { taskSupport: 'optional' },
    inputSchema: z.object({ from: z.number().int().min(1), intervalMs: z.number().int().min(1), run: z.string() }),
    handler: ({ from, intervalMs, run }) =>
      defer(() => {
        void counters.call('HINCRBY', [`${prefix}runs`, run, 1]);
        return interval(intervalMs).pipe(
          take(from),
          map((i) => progress(i + 1, from)),
          endWith(text(`counted down from ${from} in ${cluster.processId}`)),
        );
      }),
  });
  server.tool({ name: 'whoami', description: 'This process.', handler: () => text(cluster.processId) });
  server.tool({
    name: 'touch',
    description: 'Updates test://watched everywhere.',
    handler: async () => {
      await cluster.resourceUpdated('test://watched');
      return text('touched');
    },
  });
  const running = await cluster.serve(server, { host: '127.0.0.1', port: 0, logger });
  process.stdout.write(`listening ${running.url.href} ${cluster.processId}\n`);
  process.once('SIGTERM', () => void cluster.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`cluster child failed: ${String(error)}\n`);
  process.exit(1);
});
