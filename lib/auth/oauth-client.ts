/**
 * The OAuth 2.1 client of MCP authorization (spec: Basic → Authorization), as an `AuthProvider` for
 * the HTTP client transports: it answers a 401 or 403 by discovering the authorization server,
 * registering the client if needed, and obtaining a token (authorization code with PKCE, refresh,
 * or client credentials), then has the transport send the refused request again.
 */
import type { AuthChallengeAnswer, AuthProvider, AuthRequest } from '../transport/http-client/auth-provider';
import { DpopProver } from './dpop';
import { discover } from './discovery';
import type { Discovered } from './discovery';
import { OAuthError } from './errors';
import { createPkce, randomToken } from './pkce';
import { createMemoryOAuthStorage } from './storage';
import type { OAuthClientInformation, OAuthRecord, OAuthStorage, OAuthTokens } from './storage';
import { authenticate, authMethodOf, registerClient, requestTokens } from './token-endpoint';
import { clientAssertion, exchangeForIdJag } from './assertions';
import type { IdentityAssertionExchange, SigningKey } from './assertions';
import { bearerChallenge } from './www-authenticate';
import { applicationTypeOf, codeFrom, expired, registrationAuthMethod } from './oauth-rules';
export { applicationTypeOf } from './oauth-rules';
import type { BearerChallenge } from './www-authenticate';

/** Options of {@link createOAuthClient}. */
export interface OAuthClientOptions {
  /**
   * `authorization_code` (a user signs in; the default), `client_credentials` (a service acting on
   * its own behalf, with a pre-registered `client`), or `jwt_bearer` (RFC 7523: an `assertion` from
   * workload identity federation, or an ID-JAG from enterprise-managed authorization).
   */
  readonly grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer';
  /** The key `private_key_jwt` client authentication signs its client assertions with. */
  readonly clientKey?: SigningKey;
  /**
   * The JWT-bearer grant's assertion for an authorization server and resource: a workload identity
   * token, say. Without it, `identityAssertion` makes one by token exchange.
   */
  readonly assertion?: (target: AssertionTarget) => Promise<string>;
  /** Enterprise-managed authorization: the ID token to exchange for an ID-JAG at the identity provider. */
  readonly identityAssertion?: IdentityAssertionExchange;
  /** Where the authorization server sends the user back; registered with the client. */
  readonly redirectUrl?: string;
  /**
   * Has the user authorize: open `authorizationUrl` (a browser, a printed link) and resolve with the
   * URL the authorization server redirected back to, with its `code` and `state`.
   */
  readonly authorize?: (authorizationUrl: URL) => Promise<URL | string>;
  /** A client registered beforehand with the authorization server. */
  readonly client?: OAuthClientInformation;
  /**
   * The URL of this client's metadata document (a Client ID Metadata Document), used as its
   * `client_id` with authorization servers that support it, instead of registering.
   */
  readonly clientMetadataUrl?: string;
  /** Fields for dynamic client registration (RFC 7591), such as `client_name` and `application_type`. */
  readonly clientMetadata?: Readonly<Record<string, unknown>>;
  /** The scopes to ask for; default: those the server's challenge names, else all it supports. */
  readonly scope?: string;
  /** Where registrations and tokens are kept; default in memory. */
  readonly storage?: OAuthStorage;
  /** The `fetch` for discovery, registration and token requests; default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Authorizations in a row without an accepted request before giving up; default 3. */
  readonly maxAttempts?: number;
  /**
   * DPoP-bound tokens (RFC 9449) for a resource that asks for them (a `DPoP` challenge or DPoP in its
   * metadata), with authorization servers that take ES256 proofs: a proof on each token request and
   * each MCP request. Default true; false asks for bearer tokens only.
   */
  readonly dpop?: boolean;
}

/** What a JWT-bearer assertion is for. */
export interface AssertionTarget {
  /** The authorization server's issuer (the assertion's audience). */
  readonly issuer: string;
  readonly resource: string;
  readonly scope: string | undefined;
}

/** The OAuth client: an `AuthProvider` for the HTTP client transports. */
export interface OAuthClient extends AuthProvider {
  /** The tokens in use, if any. */
  readonly tokens: OAuthTokens | undefined;
}

/** Creates an OAuth client for one MCP server (the transport it is given to). */
export function createOAuthClient(options: OAuthClientOptions): OAuthClient {
  return new OAuthFlows(options);
}

class OAuthFlows implements OAuthClient {
  private readonly doFetch: typeof fetch;
  private readonly storage: OAuthStorage;
  private readonly maxAttempts: number;
  private discovered: Discovered | undefined;
  private record: OAuthRecord | undefined;
  private attempts = 0;
  /** The access token last put on a request: a refusal is about that one. */
  private offered: string | undefined;
  /** The DPoP key, once DPoP is in use (RFC 9449). */
  private dpop: DpopProver | undefined;
  /** Whether the resource server challenged with the DPoP scheme. */
  private dpopChallenged = false;

  constructor(private readonly options: OAuthClientOptions) {
    this.doFetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.storage = options.storage ?? createMemoryOAuthStorage();
    this.maxAttempts = options.maxAttempts ?? 3;
  }

  get tokens(): OAuthTokens | undefined {
    return this.record?.tokens;
  }

  async headers(request: AuthRequest): Promise<Readonly<Record<string, string>>> {
    let tokens = this.record?.tokens;
    if (tokens && expired(tokens) && tokens.refresh_token !== undefined && this.discovered && this.record) {
      tokens = await this.refresh(this.discovered, this.record).catch(() => tokens);
    }
    this.offered = tokens?.access_token;
    if (!tokens) return {};
    if (this.dpop && tokens.token_type.toLowerCase() === 'dpop') {
      const proof = await this.dpop.proof(request.method, request.url, tokens.access_token);
      return { authorization: `DPoP ${tokens.access_token}`, dpop: proof };
    }
    return { authorization: `Bearer ${tokens.access_token}` };
  }

  accepted(): void {
    this.attempts = 0;
  }

  async challenged(serverUrl: URL, answer: AuthChallengeAnswer): Promise<boolean> {
    const challenge = bearerChallenge(answer.wwwAuthenticate) ?? {};
    if (challenge.scheme === 'dpop') this.dpopChallenged = true;
    const stepUp = answer.status === 403;
    if (stepUp && challenge.error !== 'insufficient_scope') return false;
    if (answer.status !== 401 && !stepUp) return false;
    if (++this.attempts > this.maxAttempts) {
      throw new OAuthError(`the server refused ${this.maxAttempts} authorizations in a row`, challenge.error);
    }
    if (challenge.error === 'use_dpop_nonce' && this.dpop && answer.dpopNonce) {
      // The resource server wants a nonce in the proof (RFC 9449 §9): same token, new proof.
      this.dpop.noteNonce(serverUrl, answer.dpopNonce);
      return true;
    }
    const discovered = await this.discoverFor(serverUrl, challenge, stepUp, answer.protocolVersion);
    const record = await this.recordFor(discovered);
    const current = record.tokens;
    if (!stepUp && current && current.access_token !== this.offered && !expired(current)) {
      // A stored token not tried yet (kept by an earlier process, or obtained meanwhile).
      return true;
    }
    if (!stepUp && current?.refresh_token !== undefined) {
      const refreshed = await this.refresh(discovered, record).catch(() => undefined);
      if (refreshed) return true;
    }
    const scope = this.scopeFor(discovered, challenge, stepUp ? current?.scope : undefined);
    const client = await this.clientFor(discovered, record);
    const tokens = await this.grant(discovered, client, scope);
    await this.keep(discovered, { issuer: discovered.issuer, client, tokens });
    return true;
  }

  /**
   * Discovery, again for every 401 (the resource may have moved to another authorization server,
   * whose registration and tokens are then its own); a step-up keeps what was found.
   */
  private async discoverFor(
    serverUrl: URL,
    challenge: BearerChallenge,
    stepUp: boolean,
    protocolVersion?: string,
  ): Promise<Discovered> {
    const known = this.discovered;
    if (known && stepUp && (challenge.resourceMetadata ?? known.resourceMetadataUrl) === known.resourceMetadataUrl) {
      return known;
    }
    this.discovered = await discover(this.doFetch, serverUrl, challenge.resourceMetadata, protocolVersion);
    return this.discovered;
  }

  /** What is kept for this server under the discovered issuer (nothing of another issuer's). */
  private async recordFor(discovered: Discovered): Promise<OAuthRecord> {
    if (this.record?.issuer === discovered.issuer) return this.record;
    this.record = (await this.storage.load(discovered.resource, discovered.issuer)) ?? { issuer: discovered.issuer };
    return this.record;
  }

  private async keep(discovered: Discovered, record: OAuthRecord): Promise<void> {
    this.record = record;
    await this.storage.save(discovered.resource, record);
  }

  /**
   * The scopes to ask for (spec: Scope Selection Strategy): the configured ones, else the
   * challenge's, else all the resource supports, else none (the parameter is omitted). A step-up
   * adds the challenge's to those already granted; `offline_access` joins when the authorization
   * server offers it, for a refresh token.
   */
  private scopeFor(discovered: Discovered, challenge: BearerChallenge, granted?: string): string | undefined {
    const base =
      this.options.scope ?? challenge.scope ?? discovered.resourceMetadata?.scopes_supported?.join(' ') ?? undefined;
    if (base === undefined || base.trim() === '') return granted;
    const scopes = new Set([...(granted?.split(' ') ?? []), ...base.split(' ')].filter((s) => s !== ''));
    const offered = discovered.serverMetadata.scopes_supported ?? [];
    const userGrant = this.options.grant === undefined || this.options.grant === 'authorization_code';
    if (userGrant && offered.includes('offline_access')) scopes.add('offline_access');
    return [...scopes].join(' ');
  }

  /** The client registration: kept, pre-registered, a metadata document URL, or registered now. */
  private async clientFor(discovered: Discovered, record: OAuthRecord): Promise<OAuthClientInformation> {
    if (record.client) return record.client;
    if (this.options.client) return this.options.client;
    const server = discovered.serverMetadata;
    if (this.options.clientMetadataUrl !== undefined && server.client_id_metadata_document_supported === true) {
      return { client_id: this.options.clientMetadataUrl, token_endpoint_auth_method: 'none' };
    }
    if (server.registration_endpoint === undefined) {
      throw new OAuthError(`the authorization server ${discovered.issuer} offers no registration: configure a client`);
    }
    const codeFlow = this.options.grant !== 'client_credentials';
    return registerClient(this.doFetch, server.registration_endpoint, {
      client_name: 'rxmcp client',
      application_type: applicationTypeOf(this.options.redirectUrl),
      ...(codeFlow && this.options.redirectUrl !== undefined ? { redirect_uris: [this.options.redirectUrl] } : {}),
      grant_types: codeFlow ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
      response_types: codeFlow ? ['code'] : [],
      token_endpoint_auth_method: registrationAuthMethod(server.token_endpoint_auth_methods_supported, codeFlow),
      ...this.options.clientMetadata,
    });
  }

  /**
   * The DPoP prover, when the resource asks for proof-of-possession tokens (a `DPoP` challenge, or
   * DPoP algorithms in its metadata), the authorization server takes ES256 proofs, and DPoP is not
   * turned off. Otherwise tokens are plain bearer tokens.
   */
  private dpopFor(discovered: Discovered): DpopProver | undefined {
    const algs = discovered.serverMetadata.dpop_signing_alg_values_supported;
    const resource = discovered.resourceMetadata;
    const wanted =
      this.dpopChallenged ||
      resource?.dpop_bound_access_tokens_required === true ||
      Array.isArray(resource?.dpop_signing_alg_values_supported);
    if (this.options.dpop === false || !wanted || !Array.isArray(algs) || !algs.includes('ES256')) return undefined;
    this.dpop ??= new DpopProver('ES256');
    return this.dpop;
  }

  private grant(
    discovered: Discovered,
    client: OAuthClientInformation,
    scope: string | undefined,
  ): Promise<OAuthTokens> {
    switch (this.options.grant) {
      case 'client_credentials':
        return this.clientCredentials(discovered, client, scope);
      case 'jwt_bearer':
        return this.jwtBearer(discovered, client, scope);
      default:
        return this.authorizationCode(discovered, client, scope);
    }
  }

  private async tokenRequest(
    discovered: Discovered,
    client: OAuthClientInformation,
    body: URLSearchParams,
  ): Promise<OAuthTokens> {
    const server = discovered.serverMetadata;
    const endpoint = server.token_endpoint;
    if (endpoint === undefined)
      throw new OAuthError(`the authorization server ${discovered.issuer} has no token endpoint`);
    body.set('resource', discovered.resource);
    const headers: Record<string, string> = {};
    const key = this.options.clientKey;
    const sign = key && (() => clientAssertion(client.client_id, server.issuer, key));
    await authenticate(authMethodOf(client, server), client, body, headers, sign);
    return requestTokens(this.doFetch, endpoint, body, headers, this.dpopFor(discovered));
  }

  /** The JWT-bearer grant (RFC 7523 §2.1) with the configured assertion, or an ID-JAG exchanged for. */
  private async jwtBearer(
    discovered: Discovered,
    client: OAuthClientInformation,
    scope: string | undefined,
  ): Promise<OAuthTokens> {
    const target = { issuer: discovered.serverMetadata.issuer, resource: discovered.resource, scope };
    const { assertion: given, identityAssertion } = this.options;
    let assertion: string;
    if (given) assertion = await given(target);
    else if (identityAssertion) {
      assertion = await exchangeForIdJag(this.doFetch, identityAssertion, target.issuer, target.resource, scope);
    } else throw new OAuthError('the jwt_bearer grant needs `assertion` or `identityAssertion`');
    const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
    if (scope !== undefined) body.set('scope', scope);
    return this.tokenRequest(discovered, client, body);
  }

  /** Authorization code with PKCE S256, `state`, the resource indicator, and RFC 9207 `iss` checked. */
  private async authorizationCode(
    discovered: Discovered,
    client: OAuthClientInformation,
    scope: string | undefined,
  ): Promise<OAuthTokens> {
    const { authorize, redirectUrl } = this.options;
    const endpoint = discovered.serverMetadata.authorization_endpoint;
    if (!authorize || redirectUrl === undefined)
      throw new OAuthError('authorization needs `authorize` and `redirectUrl`');
    if (endpoint === undefined)
      throw new OAuthError(`the authorization server ${discovered.issuer} has no authorization endpoint`);
    const pkce = await createPkce();
    const state = randomToken(16);
    const url = new URL(endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', redirectUrl);
    url.searchParams.set('code_challenge', pkce.challenge);
    url.searchParams.set('code_challenge_method', pkce.method);
    url.searchParams.set('state', state);
    url.searchParams.set('resource', discovered.resource);
    if (scope !== undefined) url.searchParams.set('scope', scope);
    const returned = new URL(await authorize(url), redirectUrl);
    const code = codeFrom(returned, state, discovered);
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUrl,
      code_verifier: pkce.verifier,
    });
    return this.tokenRequest(discovered, client, body);
  }

  private clientCredentials(
    discovered: Discovered,
    client: OAuthClientInformation,
    scope: string | undefined,
  ): Promise<OAuthTokens> {
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined) body.set('scope', scope);
    return this.tokenRequest(discovered, client, body);
  }

  /** Refreshes the access token; a new refresh token replaces the old one, else the old one stays. */
  private async refresh(discovered: Discovered, record: OAuthRecord): Promise<OAuthTokens> {
    const old = record.tokens;
    const client = record.client ?? this.options.client;
    if (old?.refresh_token === undefined || client === undefined) throw new OAuthError('nothing to refresh');
    const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: old.refresh_token });
    const fresh = await this.tokenRequest(discovered, client, body);
    const tokens = fresh.refresh_token === undefined ? { ...fresh, refresh_token: old.refresh_token } : fresh;
    await this.keep(discovered, { ...record, client, tokens });
    return tokens;
  }
}
