/**
 * The keys of `rxmcp proxy`'s servers file that say how the gateway serves, beside its servers and
 * the aggregate's options: `auth` (who may call it), `policies` (limits and tool visibility per
 * caller) and `metrics` (who may scrape `/metrics`).
 */
import { z } from 'zod';
import { ConfigError } from './errors';
import { expandDeep, GatewayAuthSchema, parseGatewayAuth } from './gateway-auth';
import type { GatewayAuth } from './gateway-auth';
import { checkPolicies, PoliciesSchema } from './gateway-policies';
import type { GatewayPolicies } from './gateway-policies';

/** The schemas of the serving keys, for the servers file's schema. */
export const GATEWAY_KEYS = {
  auth: GatewayAuthSchema.optional(),
  policies: PoliciesSchema.optional(),
  metrics: z.strictObject({ tokenEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/) }).optional(),
};

/** The serving keys as the schema checked them. */
export type WrittenGatewayOptions = { readonly [K in keyof typeof GATEWAY_KEYS]?: z.infer<(typeof GATEWAY_KEYS)[K]> };

/** The serving keys, read. */
export interface GatewayOptions {
  /** Who may call the gateway's HTTP endpoint (`auth`); absent: anyone who reaches it. */
  readonly auth?: GatewayAuth;
  /** Limits and tool visibility per caller (`policies`); absent: none. */
  readonly policies?: GatewayPolicies;
  /** The token a scraper of `/metrics` presents (`metrics.tokenEnv`); absent: `/metrics` takes `auth`. */
  readonly metricsToken?: string;
}

/**
 * The serving keys with `${VAR}` expanded (by `expand`, told where each string is) and the
 * secrets read from `env`. Throws `ConfigError` naming `file`.
 */
export function parseGatewayOptions(
  file: string,
  written: WrittenGatewayOptions,
  env: Readonly<Record<string, string | undefined>>,
  expand: (value: string, where: string) => string,
): GatewayOptions {
  const auth = written.auth ? parseGatewayAuth(file, written.auth, env, expand) : undefined;
  const policies = written.policies && checkPolicies(file, expandDeep(written.policies, expand, 'policies'));
  const { metrics } = written;
  const metricsToken = metrics && env[metrics.tokenEnv];
  if (metrics && !metricsToken)
    throw new ConfigError(`${file}: "metrics.tokenEnv": the environment variable ${metrics.tokenEnv} is not set`);
  return {
    ...(auth ? { auth } : {}),
    ...(policies ? { policies } : {}),
    ...(metricsToken ? { metricsToken } : {}),
  };
}
