/**
 * Who may call `rxmcp proxy --http`: the servers file's top-level `auth` key. Either an API key,
 * read from an environment variable (never from the file), or an OAuth resource server that
 * verifies JWT access tokens against the authorization server's key set, or opaque ones by
 * introspection. The caller's credentials stay at the gateway: upstreams never see them.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { createResourceServer, introspectionVerifier, jwtVerifier } from '../auth/resource-server';
import type { TokenVerifier } from '../auth/resource-server';
import type { LoggerOption } from '../base/logger';
import type { AuthInfo, AuthOutcome, AuthRefusal, RequestAuthenticator } from '../transport/http/request-auth';
import { ConfigError } from './errors';

const Scopes = z.array(z.string().min(1));

/** `"auth": { "apiKey": {...} }`: one key, from the environment. */
const ApiKeySchema = z.strictObject({
  /** The environment variable holding the key. */
  env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
  /** Who a caller with the key is (the `sub` its limits count against). Default `api-key`. */
  subject: z.string().min(1).optional(),
  /** The scopes a caller with the key holds, for tool policies. Default none. */
  scopes: Scopes.optional(),
});

const ResourceFields = {
  /** The gateway's public URL: the tokens' audience and the `resource` of its metadata. */
  resource: z.string().min(1),
  issuer: z.string().min(1),
  requiredScopes: Scopes.optional(),
  scopesSupported: Scopes.optional(),
};

const JwtSchema = z.strictObject({
  ...ResourceFields,
  jwksUri: z.string().min(1),
  audience: z.string().min(1).optional(),
  algorithms: z.array(z.string().min(1)).optional(),
});

const IntrospectionSchema = z.strictObject({
  ...ResourceFields,
  endpoint: z.string().min(1),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
});

/** The `auth` key of a servers file, as the schema checks it (one of the three members). */
export const GatewayAuthSchema = z.strictObject({
  apiKey: ApiKeySchema.optional(),
  jwt: JwtSchema.optional(),
  introspection: IntrospectionSchema.optional(),
});

/** The gateway's authorization, read: the key itself, or what verifies tokens. */
export type GatewayAuth =
  | {
      readonly kind: 'apiKey';
      /** The environment variable it came from (for messages; the key is never shown). */
      readonly env: string;
      readonly key: string;
      readonly subject: string;
      readonly scopes: readonly string[];
    }
  | { readonly kind: 'jwt'; readonly settings: z.infer<typeof JwtSchema> }
  | { readonly kind: 'introspection'; readonly settings: z.infer<typeof IntrospectionSchema> };

type Expand = (value: string, where: string) => string;

/** Expands `${VAR}` in every string of `value` (arrays and objects too) with `expand`, told where each is. */
export function expandDeep<T>(value: T, expand: Expand, where: string): T {
  if (typeof value === 'string') return expand(value, where) as T;
  if (Array.isArray(value)) return value.map((item, i) => expandDeep(item, expand, `${where}.${i}`)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, expandDeep(item, expand, `${where}.${key}`)]),
    ) as T;
  return value;
}

/**
 * The `auth` key, checked (its shape by {@link GatewayAuthSchema}), with `${VAR}` expanded and
 * the API key read from `env`. Throws `ConfigError` naming `file` for a key that is not set.
 */
export function parseGatewayAuth(
  file: string,
  value: z.infer<typeof GatewayAuthSchema>,
  env: Readonly<Record<string, string | undefined>>,
  expand: Expand,
): GatewayAuth {
  const given = (['apiKey', 'jwt', 'introspection'] as const).filter((kind) => value[kind] !== undefined);
  if (given.length !== 1)
    throw new ConfigError(`${file}: "auth" takes exactly one of "apiKey", "jwt" and "introspection"`);
  if (value.apiKey) {
    const { env: name, subject = 'api-key', scopes = [] } = value.apiKey;
    const key = env[name];
    if (key === undefined || key === '')
      throw new ConfigError(`${file}: "auth.apiKey": the environment variable ${name} is not set`);
    if (key.length < 16)
      throw new ConfigError(`${file}: "auth.apiKey": the key in ${name} is shorter than 16 characters`);
    return { kind: 'apiKey', env: name, key, subject, scopes };
  }
  if (value.jwt) return { kind: 'jwt', settings: expandDeep(value.jwt, expand, 'auth.jwt') };
  return { kind: 'introspection', settings: expandDeep(value.introspection!, expand, 'auth.introspection') };
}

/** The SHA-256 digest of a key: compared in constant time, whatever the lengths. */
const digestOf = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The key a request carries: `Authorization: Bearer <key>`, or `X-API-Key: <key>`. */
function keyOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  if (typeof header === 'string' && header !== '') return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '';
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey : undefined;
}

/**
 * A `RequestAuthenticator` for one API key: a request must carry it as a bearer token (or in
 * `X-API-Key`); without it the answer is 401 with a `Bearer` challenge. Every caller with the key
 * is the principal `rxmcp:api-key` + `subject`, holding `scopes`. No metadata is published (no
 * authorization server issues the key).
 */
export function apiKeyAuthenticator(options: {
  readonly key: string;
  readonly subject: string;
  readonly scopes: readonly string[];
}): RequestAuthenticator {
  const expected = digestOf(options.key);
  const info: AuthInfo = {
    subject: options.subject,
    scopes: options.scopes,
    claims: { iss: 'rxmcp:api-key', sub: options.subject },
  };
  const refusal = (error: string | undefined, description: string): AuthRefusal => ({
    status: 401,
    wwwAuthenticate: `Bearer realm="rxmcp"${error ? `, error="${error}", error_description="${description}"` : ''}`,
    ...(error ? { error } : {}),
    description,
  });
  return {
    authenticate(headers): Promise<AuthOutcome> {
      const key = keyOf(headers);
      if (key === undefined) return Promise.resolve({ ok: false, ...refusal(undefined, 'an API key is required') });
      if (!timingSafeEqual(digestOf(key), expected))
        return Promise.resolve({ ok: false, ...refusal('invalid_token', 'the API key is not valid') });
      return Promise.resolve({ ok: true, info });
    },
    serveMetadata: () => false,
    insufficientScope: (scopes) => ({
      status: 403,
      wwwAuthenticate: `Bearer realm="rxmcp", error="insufficient_scope", scope="${scopes.join(' ')}"`,
      error: 'insufficient_scope',
      description: `this request needs the scopes ${scopes.join(' ')}`,
    }),
  };
}

/** The authenticator `auth` describes, for `startStreamableHttpServer({ auth })`. */
export function gatewayAuthenticator(auth: GatewayAuth, logger?: LoggerOption): RequestAuthenticator {
  if (auth.kind === 'apiKey') return apiKeyAuthenticator(auth);
  const { settings } = auth;
  const verify: TokenVerifier =
    auth.kind === 'jwt'
      ? jwtVerifier({
          jwksUri: auth.settings.jwksUri,
          issuer: settings.issuer,
          audience: auth.settings.audience ?? settings.resource,
          ...(auth.settings.algorithms ? { algorithms: auth.settings.algorithms } : {}),
        })
      : introspectionVerifier({
          endpoint: auth.settings.endpoint,
          clientId: auth.settings.clientId,
          clientSecret: auth.settings.clientSecret,
          audience: settings.resource,
        });
  return createResourceServer({
    resource: settings.resource,
    authorizationServers: [settings.issuer],
    verify,
    ...(settings.requiredScopes ? { requiredScopes: settings.requiredScopes } : {}),
    ...(settings.scopesSupported ? { scopesSupported: settings.scopesSupported } : {}),
    ...(logger ? { logger } : {}),
  });
}

/** How the gateway's endpoint is protected, in words, for its "serving" line. */
export function describeGatewayAuth(auth: GatewayAuth): string {
  if (auth.kind === 'apiKey') return `an API key (${auth.env})`;
  return auth.kind === 'jwt' ? `JWTs of ${auth.settings.issuer}` : `tokens introspected at ${auth.settings.issuer}`;
}
