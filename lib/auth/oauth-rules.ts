/**
 * The small rules of the OAuth client: when a token counts as expired, what to register as, and how
 * an authorization response is checked before its code is redeemed.
 */
import type { Discovered } from './discovery';
import { OAuthError } from './errors';
import type { OAuthTokens } from './storage';

/** Seconds before expiry at which a token is refreshed rather than used. */
export const EXPIRY_MARGIN_MS = 30_000;

/** Whether a token is (about to be) expired: within 30 s of its end, or half its lifetime if shorter. */
export const expired = (tokens: OAuthTokens): boolean =>
  tokens.expires_in !== undefined &&
  tokens.obtained_at !== undefined &&
  tokens.obtained_at + tokens.expires_in * 1000 - Math.min(EXPIRY_MARGIN_MS, tokens.expires_in * 500) < Date.now();

/**
 * The `application_type` to register (OpenID Connect Registration; required by MCP 2026-07-28):
 * `native` for a redirect to a loopback address or a private scheme (a desktop or command-line
 * client), `web` for one to a web origin.
 */
export function applicationTypeOf(redirectUrl: string | undefined): 'native' | 'web' {
  if (redirectUrl === undefined) return 'native';
  const url = new URL(redirectUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'native';
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) ? 'native' : 'web';
}

/** The token endpoint method to register with: none for a public client where allowed, else a secret. */
export function registrationAuthMethod(supported: readonly string[] | undefined, codeFlow: boolean): string {
  if (supported === undefined) return codeFlow ? 'none' : 'client_secret_basic';
  if (codeFlow && supported.includes('none')) return 'none';
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return supported[0] ?? 'none';
}

/** The code of an authorization response, after checking its `state`, `error` and `iss`. */
export function codeFrom(returned: URL, state: string, discovered: Discovered): string {
  const params = returned.searchParams;
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    throw new OAuthError(`authorization was refused: ${error}${description ? ` (${description})` : ''}`, error);
  }
  if (params.get('state') !== state) throw new OAuthError('the authorization response carries another state');
  const iss = params.get('iss');
  const issuer = discovered.serverMetadata.issuer;
  if (
    iss !== null ? iss !== issuer : discovered.serverMetadata.authorization_response_iss_parameter_supported === true
  ) {
    throw new OAuthError(`the authorization response's issuer ${iss ?? '(none)'} is not ${issuer}`);
  }
  const code = params.get('code');
  if (code === null || code === '') throw new OAuthError('the authorization response carries no code');
  return code;
}
