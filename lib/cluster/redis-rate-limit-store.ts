import { createHash } from 'node:crypto';
import type { RateLimitHit, RateLimitStore } from '../server/rate-limit-store';
import type { RedisConnection } from './redis-connection';

/** Options of `redisRateLimitStore`. */
export interface RedisRateLimitStoreOptions {
  /** Put before every key, e.g. to share one Redis between deployments. Default `rxmcp:rl:`. */
  readonly prefix?: string;
}

// One round trip, atomic: count the request, start the window's expiry with its first request (or
// repair a key left without one), answer the count and the time left. The window runs on Redis's
// clock, so processes with skewed clocks agree on it.
const HIT_SCRIPT = `local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

/**
 * A `RateLimitStore` in Redis, for `rateLimit({ store })` in a server run as many processes: each
 * caller's count is one key, so requests on every process count together. Fixed windows: a key is
 * incremented and given its expiry by one Lua script, atomically. The key's hash tag is a digest
 * of the caller, so each caller's keys sit in one slot of a Redis Cluster. A failed command
 * rejects; `rateLimit`'s `onStoreError` says what the request gets then.
 * @example
 * const redis = new Redis(url);
 * createServer({ ..., middleware: [rateLimit({ limit: 100, windowMs: 60_000, store: redisRateLimitStore(redis) })] });
 */
export function redisRateLimitStore(redis: RedisConnection, options: RedisRateLimitStoreOptions = {}): RateLimitStore {
  const { prefix = 'rxmcp:rl:' } = options;
  return {
    async hit({ caller, name, windowMs }): Promise<RateLimitHit> {
      const tag = createHash('sha256').update(caller).digest('base64url');
      const key = `${prefix}{${tag}}:${windowMs}:${name}`;
      const reply = await redis.call('EVAL', [HIT_SCRIPT, 1, key, Math.ceil(windowMs)]);
      if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`unexpected rate limit reply from Redis`);
      return { count: Number(reply[0]), resetInMs: Number(reply[1]) };
    },
  };
}
