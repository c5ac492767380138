/**
 * DPoP (RFC 9449): proof-of-possession for access tokens. One key pair per client, a fresh proof
 * per request (`jti`, `iat`, `htm`, `htu`, and `ath` when it carries a token), and the nonces the
 * authorization server and the resource server hand out.
 */
import type { CryptoKey as JoseKey, JWK } from 'jose' with { 'resolution-mode': 'import' };
import { jose } from './jose';
import { base64url, randomToken } from './pkce';

/** A DPoP key and the nonces last received, per server. */
export class DpopProver {
  private keys: Promise<{ privateKey: JoseKey; jwk: JWK }> | undefined;
  /** The last `DPoP-Nonce` each server (by origin) sent. */
  private readonly nonces = new Map<string, string>();

  constructor(private readonly alg = 'ES256') {}

  private keyPair(): Promise<{ privateKey: JoseKey; jwk: JWK }> {
    this.keys ??= (async () => {
      const { generateKeyPair, exportJWK } = jose();
      const { privateKey, publicKey } = await generateKeyPair(this.alg);
      return { privateKey, jwk: await exportJWK(publicKey) };
    })();
    return this.keys;
  }

  /** Notes a `DPoP-Nonce` from the server at `url`. */
  noteNonce(url: string | URL, nonce: string | null | undefined): void {
    if (nonce) this.nonces.set(new URL(url).origin, nonce);
  }

  /** A proof for one request; `accessToken` binds it to the token presented with it (`ath`). */
  async proof(method: string, url: string | URL, accessToken?: string): Promise<string> {
    const { SignJWT } = jose();
    const { privateKey, jwk } = await this.keyPair();
    const target = new URL(url);
    const htu = `${target.origin}${target.pathname}`;
    const claims: Record<string, unknown> = { htm: method, htu, jti: randomToken(16) };
    const nonce = this.nonces.get(target.origin);
    if (nonce !== undefined) claims.nonce = nonce;
    if (accessToken !== undefined) {
      const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken));
      claims.ath = base64url(new Uint8Array(digest));
    }
    return new SignJWT(claims)
      .setProtectedHeader({ alg: this.alg, typ: 'dpop+jwt', jwk })
      .setIssuedAt()
      .sign(privateKey);
  }
}
