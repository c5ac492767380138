/** PKCE (RFC 7636) with the S256 method, and the random values of an authorization request. */

/** Base64url without padding; `btoa` keeps it usable in browsers too. */
export const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A random URL-safe string from `bytes` random bytes (43 characters for 32). */
export function randomToken(bytes = 32): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A code verifier and its S256 challenge. */
export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
  readonly method: 'S256';
}

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export async function s256(verifier: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** A fresh verifier (32 random bytes) and its challenge. */
export async function createPkce(): Promise<Pkce> {
  const verifier = randomToken(32);
  return { verifier, challenge: await s256(verifier), method: 'S256' };
}
