/**
 * `node:crypto`, loaded when first used rather than with the server: a server that never signs a
 * request state, starts a task, asks for URL elicitation or publishes a skill does not pay the
 * 2 ms its first load takes (load time of a stdio server, see the benchmarks).
 */
import type * as NodeCrypto from 'node:crypto';

let loaded: typeof NodeCrypto | undefined;

export function nodeCrypto(): typeof NodeCrypto {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('node:crypto') as typeof NodeCrypto;
  return loaded;
}
