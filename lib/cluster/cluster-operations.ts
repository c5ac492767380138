/**
 * The operations of a cluster process: its `/readyz` needs Redis, and the calls of the handler the
 * cluster builds are counted by the same {@link ServerOperations} its server serves.
 */
import type { LoggerOption } from '../base/logger';
import { ServerOperations } from '../operations/server-operations';
import type { OperationsOptions } from '../operations/server-operations';
import type { RedisConnection } from './redis-connection';

/**
 * The operations of a process serving `operations`, with a `redis` readiness check: not ready
 * while the connection is down (ioredis says so by its `status`) or Redis does not answer PING.
 * One the caller made itself is used as it is.
 */
export function clusterOperations(
  operations: OperationsOptions | ServerOperations | undefined,
  redis: RedisConnection,
  logger: LoggerOption | undefined,
): ServerOperations | undefined {
  if (operations === undefined || operations instanceof ServerOperations) return operations;
  const readiness = { redis: () => redisReady(redis), ...operations.readiness };
  return new ServerOperations({ ...operations, readiness }, logger);
}

/** Whether Redis answers, or what is wrong with it. */
export async function redisReady(redis: RedisConnection): Promise<true | string> {
  const status = (redis as { status?: unknown }).status;
  if (typeof status === 'string' && status !== 'ready') return `the Redis connection is ${status}`;
  try {
    await redis.call('PING', []);
    return true;
  } catch (error) {
    return `Redis does not answer: ${error instanceof Error ? error.message : String(error)}`;
  }
}
