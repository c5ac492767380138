/**
 * Requests to the authorization server's token endpoint (RFC 6749 §3.2) and registration
 * endpoint (RFC 7591), with the client authentication methods of RFC 6749 §2.3 and OpenID Connect
 * (`client_secret_basic`, `client_secret_post`, `none`).
 */
import type { AuthorizationServerMetadata } from './discovery';
import { OAuthError } from './errors';
import type { OAuthClientInformation, OAuthTokens } from './storage';
import type { DpopProver } from './dpop';

type Fetch = typeof fetch;

/** The authentication method for the token endpoint: the registration's, else what the server supports. */
export function authMethodOf(client: OAuthClientInformation, server: AuthorizationServerMetadata): string {
  if (client.token_endpoint_auth_method !== undefined) return client.token_endpoint_auth_method;
  if (client.client_secret === undefined) return 'none';
  const supported = server.token_endpoint_auth_methods_supported;
  // RFC 8414 §2: absent means client_secret_basic.
  if (supported === undefined || supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

/** RFC 6749 §2.3.1: both parts form-encoded, then Base64. */
export function basicCredentials(id: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${btoa(`${encode(id)}:${encode(secret)}`)}`;
}

/** Adds the client's authentication to a token request; `assertion` signs a `private_key_jwt` one. */
export async function authenticate(
  method: string,
  client: OAuthClientInformation,
  body: URLSearchParams,
  headers: Record<string, string>,
  assertion?: () => Promise<string>,
): Promise<void> {
  switch (method) {
    case 'private_key_jwt':
      if (!assertion) throw new OAuthError('private_key_jwt needs a signing key (`clientKey`)');
      body.set('client_id', client.client_id);
      body.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      body.set('client_assertion', await assertion());
      return;
    case 'client_secret_basic':
      if (client.client_secret === undefined) throw new OAuthError('client_secret_basic needs a client secret');
      headers.authorization = basicCredentials(client.client_id, client.client_secret);
      return;
    case 'client_secret_post':
      if (client.client_secret === undefined) throw new OAuthError('client_secret_post needs a client secret');
      body.set('client_id', client.client_id);
      body.set('client_secret', client.client_secret);
      return;
    case 'none':
      body.set('client_id', client.client_id);
      return;
    default:
      throw new OAuthError(`unsupported token endpoint authentication method ${method}`);
  }
}

/** What an OAuth endpoint's error body says (RFC 6749 §5.2), as an `OAuthError`. */
async function endpointError(response: Response, what: string): Promise<OAuthError> {
  const body = (await response.json().catch(() => undefined)) as
    { error?: unknown; error_description?: unknown } | undefined;
  const code = typeof body?.error === 'string' ? body.error : undefined;
  const description = typeof body?.error_description === 'string' ? `: ${body.error_description}` : '';
  return new OAuthError(`${what} failed with HTTP ${response.status}${code ? ` (${code}${description})` : ''}`, code);
}

/**
 * POSTs a form to the token endpoint and reads the tokens. `headers` carries the client's Basic
 * credentials; with `dpop`, each attempt carries a fresh proof, and a `use_dpop_nonce` refusal is
 * retried once with the nonce the server sent (RFC 9449 §8).
 */
export async function requestTokens(
  doFetch: Fetch,
  endpoint: string,
  body: URLSearchParams,
  headers: Record<string, string>,
  dpop?: DpopProver,
): Promise<OAuthTokens> {
  const post = async (): Promise<Response> =>
    doFetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...headers,
        ...(dpop ? { dpop: await dpop.proof('POST', endpoint) } : {}),
      },
      body: body.toString(),
    });
  let response = await post();
  if (dpop && response.status === 400 && response.headers.get('dpop-nonce')) {
    const refusal = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: unknown } | undefined;
    if (refusal?.error === 'use_dpop_nonce') {
      dpop.noteNonce(endpoint, response.headers.get('dpop-nonce'));
      response = await post();
    }
  }
  if (!response.ok) throw await endpointError(response, `the token request (${body.get('grant_type')})`);
  const tokens = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (typeof tokens?.access_token !== 'string' || typeof tokens.token_type !== 'string') {
    throw new OAuthError('the token endpoint answered without access_token and token_type');
  }
  return { ...(tokens as unknown as OAuthTokens), obtained_at: Date.now() };
}

/** Registers the client dynamically (RFC 7591 §3). */
export async function registerClient(
  doFetch: Fetch,
  endpoint: string,
  metadata: Readonly<Record<string, unknown>>,
): Promise<OAuthClientInformation> {
  const response = await doFetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(metadata),
  });
  if (!response.ok) throw await endpointError(response, 'client registration');
  const client = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (typeof client?.client_id !== 'string')
    throw new OAuthError('the registration endpoint answered without client_id');
  return client as unknown as OAuthClientInformation;
}
