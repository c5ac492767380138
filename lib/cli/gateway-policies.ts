/**
 * What `rxmcp proxy` asks of each call before forwarding it: the servers file's top-level
 * `policies` key. Rate limits and a cap on calls in flight, both per caller (its principal where
 * `auth` is set, so a user's sessions share one count), counted in this process or, with
 * `redis`, across every replica of the gateway; and which tools each caller may see and call, by
 * the scopes and roles of its token.
 */
import { z } from 'zod';
import type { RedisConnection } from '../cluster/redis-connection';
import type * as RedisConnectionExports from '../cluster/redis-connection';
import type * as RateLimitStoreExports from '../cluster/redis-rate-limit-store';
import type * as ClusterOperationsExports from '../cluster/cluster-operations';
import type { LoggerOption } from '../base/logger';
import { concurrencyLimit, rateLimit } from '../server/middleware-kit';
import type { ServerMiddleware } from '../server/middleware';
import type { RateLimitStore } from '../server/rate-limit-store';
import { toolPolicy } from '../server/tool-policy';
import { ConfigError } from './errors';

const Names = z.array(z.string().min(1)).min(1);

const RateLimitSchema = z.strictObject({
  name: z.string().min(1).optional(),
  limit: z.number().int().min(1),
  windowMs: z.number().int().min(1),
  methods: Names.optional(),
});

/** The `policies` key as the file writes it. */
export const PoliciesSchema = z.strictObject({
  rateLimits: z.array(RateLimitSchema).optional(),
  concurrency: z.number().int().min(1).optional(),
  redis: z.string().min(1).optional(),
  onStoreError: z.enum(['allow', 'refuse']).optional(),
  tools: z.record(z.string(), z.strictObject({ scopes: Names.optional(), roles: Names.optional() })).optional(),
  rolesClaim: z.string().min(1).optional(),
});

/** The `policies` of a servers file, read (with `${VAR}` expanded). */
export type GatewayPolicies = z.infer<typeof PoliciesSchema>;

/** Checks what the schema cannot: two rate limits with one name would count as one. */
export function checkPolicies(file: string, policies: GatewayPolicies): GatewayPolicies {
  const names = (policies.rateLimits ?? []).map((limit) => limit.name ?? 'requests');
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined)
    throw new ConfigError(`${file}: "policies.rateLimits": two limits are named "${twice}"; give each its own "name"`);
  if (policies.redis !== undefined && !/^rediss?:\/\//.test(policies.redis))
    throw new ConfigError(`${file}: "policies.redis" must be a redis:// or rediss:// URL`);
  return policies;
}

/** The middleware of a gateway's policies, and what closes the Redis connection it opened. */
export interface GatewayMiddleware {
  readonly middleware: readonly ServerMiddleware[];
  /** Whether the Redis the limits count in answers, or what is wrong with it; absent without `redis`. */
  readonly redisReady?: () => Promise<true | string>;
  close(): Promise<void>;
}

/**
 * The middleware `policies` describe, outermost first: the tool policy (a refused tool counts
 * against no limit), the rate limits, the concurrency cap. With `redis`, connects to it (rejects
 * when it cannot be reached) and counts rate limits there.
 */
export async function gatewayMiddleware(
  policies: GatewayPolicies | undefined,
  logger: LoggerOption | undefined,
  connect: (url: string) => Promise<RedisConnection> = defaultConnect,
): Promise<GatewayMiddleware> {
  if (policies === undefined) return { middleware: [], close: () => Promise.resolve() };
  const redis = policies.redis === undefined ? undefined : await connect(policies.redis);
  let store: RateLimitStore | undefined;
  if (redis) {
    // Loaded with the Redis connection only: a gateway without `redis` loads nothing of the cluster.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { redisRateLimitStore } = require('../cluster/redis-rate-limit-store') as RateLimitStoreModule;
    store = redisRateLimitStore(redis, { prefix: 'rxmcp:gateway:rl:' });
  }
  const middleware: ServerMiddleware[] = [];
  if (policies.tools)
    middleware.push(
      toolPolicy({ tools: policies.tools, ...(policies.rolesClaim ? { rolesClaim: policies.rolesClaim } : {}) }),
    );
  for (const limit of policies.rateLimits ?? []) {
    const methods = limit.methods ? new Set(limit.methods) : undefined;
    middleware.push(
      rateLimit({
        limit: limit.limit,
        windowMs: limit.windowMs,
        ...(limit.name ? { name: limit.name } : {}),
        ...(methods ? { when: (request) => methods.has(request.method) } : {}),
        ...(store ? { store } : {}),
        ...(policies.onStoreError ? { onStoreError: policies.onStoreError } : {}),
        ...(logger ? { logger } : {}),
      }),
    );
  }
  if (policies.concurrency !== undefined) middleware.push(concurrencyLimit({ limit: policies.concurrency }));
  const close = async () => void (await redis?.quit());
  if (!redis) return { middleware, close };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { redisReady } = require('../cluster/cluster-operations') as ClusterOperationsModule;
  return { middleware, redisReady: () => redisReady(redis), close };
}

type RateLimitStoreModule = typeof RateLimitStoreExports;
type ClusterOperationsModule = typeof ClusterOperationsExports;
type RedisConnectionModule = typeof RedisConnectionExports;

async function defaultConnect(url: string): Promise<RedisConnection> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { connectRedis } = require('../cluster/redis-connection') as RedisConnectionModule;
  return connectRedis(url);
}
