/**
 * JOSE (JWS, JWK, JWT) for the authorization client and the resource server, from the `jose`
 * package, loaded on first use only: a client or server without authorization never loads it.
 * `jose` is an ES module; Node loads it through `require` (20.19 and later).
 */
import type * as Jose from 'jose' with { 'resolution-mode': 'import' };

let loaded: typeof Jose | undefined;

/** The `jose` module. */
export function jose(): typeof Jose {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('jose') as typeof Jose;
  return loaded;
}
