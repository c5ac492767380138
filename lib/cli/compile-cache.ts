/**
 * The `rxmcp` command asks Node to keep the compiled code of the modules it loads between runs
 * (Node 22.1 and later; in the system's temporary folder, `NODE_COMPILE_CACHE` to move it,
 * `NODE_DISABLE_COMPILE_CACHE=1` to turn it off). Compiling rxmcp's modules is most of what a
 * command spends before its work starts: with the cache, loading a stdio server's modules takes
 * about 60% of the time. Only the command does this; the library leaves its host's settings alone.
 */
import * as nodeModule from 'node:module';

/** The part of `node:module` this uses; absent before Node 22.1. */
export interface CompileCacheApi {
  readonly enableCompileCache?: () => unknown;
}

/** Turns Node's compile cache on where Node has one; whether it asked. Never throws. */
export function enableCompileCache(api: CompileCacheApi = nodeModule as CompileCacheApi): boolean {
  if (typeof api.enableCompileCache !== 'function') return false;
  try {
    api.enableCompileCache();
    return true;
  } catch {
    // A cache that cannot be made (a read-only temporary folder) costs nothing but its speed.
    return false;
  }
}
