/**
 * The `oauth` key of a URL upstream in `rxmcp proxy`'s servers file: how the gateway signs in to
 * that server (a user's authorization code with PKCE, or the client credentials of the gateway
 * itself), with a client registered beforehand or dynamically, and where the tokens are kept so
 * that a restart reuses them instead of signing in again.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from './errors';

/** The `oauth` key as the file writes it. */
export const UpstreamOAuthSchema = z.strictObject({
  grant: z.enum(['authorization_code', 'client_credentials']).optional(),
  clientId: z.string().min(1).optional(),
  clientSecret: z.string().min(1).optional(),
  scopes: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  tokenFile: z.string().min(1).optional(),
  callbackPort: z.number().int().min(0).max(65_535).optional(),
});

/** How the gateway signs in to one upstream, read. */
export interface UpstreamOAuth {
  readonly grant: 'authorization_code' | 'client_credentials';
  /** A client registered beforehand; absent: dynamic registration (RFC 7591). */
  readonly client?: { readonly client_id: string; readonly client_secret?: string };
  /** The scopes to ask for, space-separated; absent: those the server's challenge names. */
  readonly scope?: string;
  /** The file tokens and registrations are kept in (mode 0600, its folder 0700). */
  readonly tokenFile: string;
  /** The loopback port of the sign-in's redirect (authorization code); 0 picks a free one. */
  readonly callbackPort: number;
}

/**
 * Where tokens are kept when the entry names no `tokenFile`: `$XDG_STATE_HOME/rxmcp/tokens.json`,
 * else `~/.local/state/rxmcp/tokens.json`. One file serves every upstream (keyed by server and issuer).
 */
export function defaultTokenFile(env: Readonly<Record<string, string | undefined>>): string {
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'rxmcp', 'tokens.json');
}

/**
 * An entry's `oauth`, with its strings already expanded: a relative `tokenFile` is taken from the
 * servers file's folder. Throws `ConfigError` for a secret without a client id, or for client
 * credentials without a client to authenticate.
 */
export function parseUpstreamOAuth(
  where: string,
  file: string,
  value: z.infer<typeof UpstreamOAuthSchema>,
  env: Readonly<Record<string, string | undefined>>,
): UpstreamOAuth {
  const grant = value.grant ?? 'authorization_code';
  if (value.clientSecret !== undefined && value.clientId === undefined)
    throw new ConfigError(`${where}: "oauth.clientSecret" needs "oauth.clientId"`);
  if (grant === 'client_credentials' && value.clientSecret === undefined)
    throw new ConfigError(`${where}: "oauth.grant": "client_credentials" needs "clientId" and "clientSecret"`);
  const scope = Array.isArray(value.scopes) ? value.scopes.join(' ') : value.scopes;
  const tokenFile =
    value.tokenFile === undefined
      ? defaultTokenFile(env)
      : isAbsolute(value.tokenFile)
        ? value.tokenFile
        : resolve(dirname(resolve(file)), value.tokenFile);
  return {
    grant,
    ...(value.clientId !== undefined
      ? {
          client: {
            client_id: value.clientId,
            ...(value.clientSecret !== undefined ? { client_secret: value.clientSecret } : {}),
          },
        }
      : {}),
    ...(scope !== undefined ? { scope } : {}),
    tokenFile,
    callbackPort: value.callbackPort ?? 0,
  };
}

/** The JSON Schema of the `oauth` key, for `--print-schema`. */
export const UPSTREAM_OAUTH_JSON_SCHEMA = {
  description: 'How the gateway signs in to this server when it answers 401 (OAuth 2.1), and where tokens are kept.',
  type: 'object',
  additionalProperties: false,
  properties: {
    grant: {
      enum: ['authorization_code', 'client_credentials'],
      description: 'A user signs in through a printed URL (default), or the gateway uses its own client credentials.',
    },
    clientId: {
      type: 'string',
      minLength: 1,
      description: 'A client registered beforehand. Default: registered dynamically.',
    },
    clientSecret: { type: 'string', minLength: 1, description: 'Its secret; write it as ${VAR}.' },
    scopes: {
      description: 'The scopes to ask for. Default: those the server asks for.',
      oneOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      ],
    },
    tokenFile: {
      type: 'string',
      minLength: 1,
      description:
        'Where tokens are kept (mode 0600), relative to this file. Default ~/.local/state/rxmcp/tokens.json.',
    },
    callbackPort: {
      type: 'integer',
      minimum: 0,
      maximum: 65535,
      description: 'The sign-in redirect port. Default: any.',
    },
  },
} as const;
