/**
 * The resource-server side of MCP authorization (spec: Basic → Authorization): the protected
 * resource metadata (RFC 9728), the 401 and 403 challenges, and access token verification, as JWTs
 * against a key set (RFC 9068 style) or by introspection (RFC 7662). Each token's audience must be
 * this server: a token for another resource is refused, never passed on.
 */
import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { CryptoKey, JWTPayload, JWTVerifyGetKey, KeyObject } from 'jose' with { 'resolution-mode': 'import' };
import type { AuthInfo, AuthOutcome, AuthRefusal, RequestAuthenticator } from '../transport/http/request-auth';
import { childLogger } from '../base/logger';
import type { LoggerOption } from '../base/logger';
import { jose } from './jose';
import { TokenCache } from './token-cache';
import { basicCredentials } from './token-endpoint';

/** Verifies an access token; rejects with an `InvalidTokenError` (or any error) when it is not good. */
export type TokenVerifier = (token: string) => Promise<AuthInfo>;

/**
 * Why a token was refused, each with one fixed description that is all the client is told (the
 * error's message, which may carry a library's detail, goes to the log only).
 */
export type InvalidTokenReason =
  'expired' | 'not-yet-valid' | 'audience' | 'issuer' | 'signature' | 'malformed' | 'inactive' | 'invalid';

const REASON_DESCRIPTIONS: Readonly<Record<InvalidTokenReason, string>> = {
  expired: 'the token has expired',
  'not-yet-valid': 'the token is not valid yet',
  audience: 'the token was issued for another resource',
  issuer: 'the token was issued by an authorization server this resource does not trust',
  signature: 'the token signature does not verify',
  malformed: 'the token is malformed or lacks a required claim',
  inactive: 'the token is not active',
  invalid: 'the token is not valid',
};

/**
 * A token that is not valid for this resource: expired, forged, revoked, or for another audience.
 * The 401 tells the client only the fixed description of its `reason` (default `'invalid'`); the
 * message is for the log.
 */
export class InvalidTokenError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.InvalidToken;
  override readonly name: string = 'InvalidTokenError';
  /** Why the token was refused. */
  readonly reason: InvalidTokenReason;

  constructor(message: string, options?: { readonly reason?: InvalidTokenReason; readonly cause?: unknown }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.reason = options?.reason ?? 'invalid';
  }

  /** What the client is told: fixed per reason, never the message. */
  get description(): string {
    return REASON_DESCRIPTIONS[this.reason] ?? REASON_DESCRIPTIONS.invalid;
  }
}

/** The reason a `jose` verification error stands for. */
function reasonOfJoseError(error: unknown): InvalidTokenReason {
  const { code, claim, reason } = error as { code?: unknown; claim?: unknown; reason?: unknown };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (reason === 'missing') return 'malformed';
      if (claim === 'aud') return 'audience';
      if (claim === 'iss') return 'issuer';
      if (claim === 'nbf') return 'not-yet-valid';
      return 'malformed';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'signature';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'malformed';
    default:
      return 'invalid';
  }
}

/** Options of {@link createResourceServer}. */
export interface ResourceServerOptions {
  /** This MCP server's canonical URL (the `resource` of its metadata and the tokens' audience). */
  readonly resource: string;
  /** The issuers of the authorization servers that issue tokens for it. */
  readonly authorizationServers: readonly string[];
  readonly verify: TokenVerifier;
  /** The scopes it knows, published as `scopes_supported`. */
  readonly scopesSupported?: readonly string[];
  /** Scopes every request needs (challenged in the 401's `scope`). */
  readonly requiredScopes?: readonly string[];
  /** More metadata fields (`resource_name`, `resource_documentation`, ...). */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * Where why a token was refused is logged (info; warn when the verifier itself failed). The
   * client is told only a fixed description. Default silent.
   */
  readonly logger?: LoggerOption;
}

/** Splits a space-separated scope claim, or takes an array of scopes (`scp`). */
function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  const scope = claims.scope ?? claims.scp;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === 'string');
  return [];
}

/** The identity of a verified token's claims. */
export function authInfoOf(claims: Readonly<Record<string, unknown>>): AuthInfo {
  const clientId = claims.client_id ?? claims.azp;
  return {
    ...(typeof claims.sub === 'string' ? { subject: claims.sub } : {}),
    ...(typeof clientId === 'string' ? { clientId } : {}),
    scopes: scopesOf(claims),
    ...(typeof claims.exp === 'number' ? { expiresAt: claims.exp } : {}),
    claims,
  };
}

/** Options of {@link jwtVerifier}. */
export interface JwtVerifierOptions {
  /** The authorization server's key set URL; or give `keys`. */
  readonly jwksUri?: string;
  /** A key resolver or a public key, instead of `jwksUri`. */
  readonly keys?: JWTVerifyGetKey | CryptoKey | KeyObject | Uint8Array;
  /** The issuer the tokens must name. */
  readonly issuer: string | readonly string[];
  /** The audience the tokens must name: this server's resource URL. */
  readonly audience: string | readonly string[];
  /** Allowed signature algorithms; default the asymmetric ones. */
  readonly algorithms?: readonly string[];
  /** Seconds of clock skew allowed; default 30. */
  readonly clockTolerance?: number;
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * Verifies JWT access tokens (RFC 9068): signature against the key set, issuer, audience, and an
 * expiry, which every token must carry. Rejects with an {@link InvalidTokenError} whose `reason`
 * says what failed.
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  let keys: JWTVerifyGetKey | CryptoKey | KeyObject | Uint8Array | undefined = options.keys;
  return async (token) => {
    const { createRemoteJWKSet, jwtVerify } = jose();
    if (keys === undefined) {
      if (options.jwksUri === undefined) throw new Error('jwtVerifier needs jwksUri or keys');
      keys = createRemoteJWKSet(new URL(options.jwksUri));
    }
    let payload: JWTPayload;
    try {
      const verified = await jwtVerify(token, keys as JWTVerifyGetKey, {
        issuer: options.issuer as string | string[],
        audience: options.audience as string | string[],
        algorithms: [...(options.algorithms ?? ASYMMETRIC)],
        clockTolerance: options.clockTolerance ?? 30,
        requiredClaims: ['exp'],
      });
      payload = verified.payload;
    } catch (error) {
      throw new InvalidTokenError((error as Error).message, { reason: reasonOfJoseError(error), cause: error });
    }
    return authInfoOf(payload as Record<string, unknown>);
  };
}

/** Options of {@link introspectionVerifier}. */
export interface IntrospectionVerifierOptions {
  /** The authorization server's introspection endpoint (RFC 7662). */
  readonly endpoint: string;
  /** This resource server's credentials at the authorization server. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The audience the token must have been issued for: this server's resource URL. */
  readonly audience: string;
  /** The `fetch` that calls the introspection endpoint; default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * How long an active token's answer is reused, in milliseconds, never past the token's `exp`; a
   * token revoked meanwhile is accepted until then. 0 asks on every request. Default 60 seconds.
   */
  readonly cacheMaxAgeMs?: number;
  /** How many tokens' answers are kept at most, the least recently used dropped first. Default 1000. */
  readonly cacheMaxEntries?: number;
}

/** The default of `cacheMaxAgeMs`. */
const DEFAULT_INTROSPECTION_CACHE_MS = 60_000;
/** The default of `cacheMaxEntries`. */
const DEFAULT_INTROSPECTION_CACHE_ENTRIES = 1000;

/**
 * Verifies opaque tokens by asking the authorization server (RFC 7662), audience included. An
 * active token's answer is kept for a while (see `cacheMaxAgeMs`), by a digest of the token; an
 * inactive or failed one is asked again each time.
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const cache = new TokenCache({
    maxAgeMs: options.cacheMaxAgeMs ?? DEFAULT_INTROSPECTION_CACHE_MS,
    maxEntries: options.cacheMaxEntries ?? DEFAULT_INTROSPECTION_CACHE_ENTRIES,
  });
  const introspect = async (token: string): Promise<AuthInfo> => {
    const response = await doFetch(options.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: basicCredentials(options.clientId, options.clientSecret),
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
    });
    if (!response.ok) throw new Error(`token introspection failed with HTTP ${response.status}`);
    const claims = (await response.json()) as Record<string, unknown>;
    if (claims.active !== true) throw new InvalidTokenError('the token is not active', { reason: 'inactive' });
    const audience = claims.aud;
    const audiences = Array.isArray(audience) ? audience : [audience];
    if (!audiences.includes(options.audience))
      throw new InvalidTokenError('the token was issued for another resource', { reason: 'audience' });
    if (typeof claims.exp === 'number' && claims.exp * 1000 < Date.now())
      throw new InvalidTokenError('the token expired', { reason: 'expired' });
    return authInfoOf(claims);
  };
  return (token) => cache.verify(token, introspect);
}

/** A `WWW-Authenticate` parameter value, quoted. */
const quoted = (value: string): string => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** Where the metadata of `resource` is published: its path under `/.well-known/oauth-protected-resource`. */
export function resourceMetadataUrl(resource: string): URL {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return new URL(`/.well-known/oauth-protected-resource${path}`, url.origin);
}

/** Creates the resource server of one protected MCP endpoint, for `startStreamableHttpServer({ auth })`. */
export function createResourceServer(options: ResourceServerOptions): RequestAuthenticator {
  const metadataUrl = resourceMetadataUrl(options.resource);
  const metadata = JSON.stringify({
    resource: options.resource,
    authorization_servers: options.authorizationServers,
    bearer_methods_supported: ['header'],
    ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
    ...options.metadata,
  });
  const required = options.requiredScopes ?? [];
  const logger = childLogger(options.logger, { component: 'resource-server' });
  const challenge = (params: Record<string, string | undefined>): string =>
    `Bearer ${Object.entries({ resource_metadata: metadataUrl.href, ...params })
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => `${name}=${quoted(value)}`)
      .join(', ')}`;
  const scopeParam = required.length > 0 ? required.join(' ') : undefined;
  const refuse = (error: string | undefined, description: string): AuthRefusal => ({
    status: 401,
    wwwAuthenticate: challenge({ error, error_description: error ? description : undefined, scope: scopeParam }),
    ...(error !== undefined ? { error } : {}),
    description,
  });
  const insufficientScope = (scopes: readonly string[]): AuthRefusal => ({
    status: 403,
    wwwAuthenticate: challenge({ error: 'insufficient_scope', scope: scopes.join(' ') }),
    error: 'insufficient_scope',
    description: `this request needs the scopes ${scopes.join(' ')}`,
  });
  return {
    async authenticate(headers: IncomingHttpHeaders): Promise<AuthOutcome> {
      const header = headers.authorization;
      if (header === undefined || header === '') return { ok: false, ...refuse(undefined, 'authorization required') };
      const match = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
      if (!match) return { ok: false, ...refuse('invalid_request', 'the Authorization header is not a Bearer token') };
      let info: AuthInfo;
      try {
        info = await options.verify(match[1] as string);
      } catch (error) {
        if (error instanceof InvalidTokenError) {
          logger.info({ reason: error.reason, err: error }, 'access token refused');
          return { ok: false, ...refuse('invalid_token', error.description) };
        }
        logger.warn({ err: error }, 'access token could not be verified');
        return { ok: false, ...refuse('invalid_token', 'the token could not be verified') };
      }
      if (info.subject === undefined && info.clientId === undefined)
        return { ok: false, ...refuse('invalid_token', 'the token names neither a subject nor a client') };
      const missing = required.filter((scope) => !info.scopes.includes(scope));
      if (missing.length > 0) return { ok: false, ...insufficientScope([...new Set([...info.scopes, ...required])]) };
      return { ok: true, info };
    },
    serveMetadata(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
      if (url.pathname !== metadataUrl.pathname || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
      res.writeHead(200, {
        'content-type': 'application/json',
        'cache-control': 'max-age=3600',
        'access-control-allow-origin': '*',
      });
      res.end(req.method === 'HEAD' ? undefined : metadata);
      return true;
    },
    insufficientScope,
  };
}
