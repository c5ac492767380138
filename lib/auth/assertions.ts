/**
 * The JWTs the authorization client signs or obtains: the client assertion of `private_key_jwt`
 * (RFC 7523 §2.2), and the assertions of the JWT-bearer grant (RFC 7523 §2.1) for workload identity
 * federation and enterprise-managed authorization (an ID-JAG obtained by token exchange, RFC 8693).
 */
import type { CryptoKey as JoseKey, KeyObject } from 'jose' with { 'resolution-mode': 'import' };
import { jose } from './jose';
import { OAuthError } from './errors';
import { randomToken } from './pkce';
import { basicCredentials, requestTokens } from './token-endpoint';

/** A signing key: a PKCS #8 PEM, or a key already imported. */
export interface SigningKey {
  readonly key: string | JoseKey | KeyObject;
  /** The JWS algorithm, such as `ES256` or `RS256`. */
  readonly alg: string;
}

/** How long a client assertion is valid. */
const ASSERTION_LIFETIME_S = 60;

/** Signs a client assertion for `private_key_jwt`: iss and sub the client, aud the authorization server. */
export async function clientAssertion(clientId: string, audience: string, signing: SigningKey): Promise<string> {
  const { SignJWT, importPKCS8 } = jose();
  const key = typeof signing.key === 'string' ? await importPKCS8(signing.key, signing.alg) : signing.key;
  return new SignJWT({})
    .setProtectedHeader({ alg: signing.alg, typ: 'JWT' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(audience)
    .setJti(randomToken(16))
    .setIssuedAt()
    .setExpirationTime(`${ASSERTION_LIFETIME_S}s`)
    .sign(key);
}

/** Where an enterprise identity provider exchanges an ID token for an ID-JAG. */
export interface IdentityAssertionExchange {
  /** The identity provider's token endpoint. */
  readonly tokenEndpoint: string;
  /** The user's ID token from that identity provider. */
  readonly idToken: string;
  /** The client's registration at the identity provider. */
  readonly clientId: string;
  readonly clientSecret?: string;
}

/**
 * Exchanges an ID token for an Identity Assertion JWT Authorization Grant (ID-JAG) for one
 * authorization server and resource (RFC 8693 token exchange; enterprise-managed authorization).
 */
export async function exchangeForIdJag(
  doFetch: typeof fetch,
  exchange: IdentityAssertionExchange,
  audience: string,
  resource: string,
  scope: string | undefined,
): Promise<string> {
  const body = new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    subject_token: exchange.idToken,
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    audience,
    resource,
  });
  if (scope !== undefined) body.set('scope', scope);
  const headers: Record<string, string> = {};
  if (exchange.clientSecret !== undefined)
    headers.authorization = basicCredentials(exchange.clientId, exchange.clientSecret);
  else body.set('client_id', exchange.clientId);
  const answer = await requestTokens(doFetch, exchange.tokenEndpoint, body, headers);
  const issued = (answer as unknown as { issued_token_type?: unknown }).issued_token_type;
  if (issued !== undefined && issued !== 'urn:ietf:params:oauth:token-type:id-jag') {
    throw new OAuthError(`the identity provider issued ${String(issued)}, not an ID-JAG`);
  }
  return answer.access_token;
}
