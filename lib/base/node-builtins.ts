/**
 * Node's built-in modules, loaded through `process.getBuiltinModule` when first used rather than
 * imported. A static import loads the module with rxmcp whether it is used or not (a stdio server
 * never spawns a process; most servers never hash), and keeps the code that imports it out of
 * browser bundles.
 */
import type * as NodeChildProcess from 'node:child_process';
import type * as NodeCrypto from 'node:crypto';

type BuiltinLoader = (id: string) => unknown;

function runtimeLoader(): { getBuiltinModule?: BuiltinLoader } | undefined {
  return (globalThis as { process?: { getBuiltinModule?: BuiltinLoader } }).process;
}

/** `process.getBuiltinModule`; undefined where there is no Node (a browser) or Node is older than 20.16. */
export function builtinModuleLoader(): BuiltinLoader | undefined {
  const runtime = runtimeLoader();
  return typeof runtime?.getBuiltinModule === 'function' ? runtime.getBuiltinModule.bind(runtime) : undefined;
}

/** A built-in module that the caller cannot work without: a clear error where Node is not. */
function required<T>(id: string): T {
  const runtime = runtimeLoader();
  if (typeof runtime?.getBuiltinModule !== 'function') {
    throw new Error(`rxmcp needs Node's ${id} here (Node 20.19 or later), and this runtime has none`);
  }
  return runtime.getBuiltinModule(id) as T;
}

let cryptoModule: typeof NodeCrypto | undefined;
let childProcessModule: typeof NodeChildProcess | undefined;

/**
 * `node:crypto`, loaded at the first call: request-state keys and digests, task and URL-elicitation
 * ids, skill digests.
 */
export const nodeCrypto = (): typeof NodeCrypto => (cryptoModule ??= required<typeof NodeCrypto>('node:crypto'));

/** `node:child_process`, loaded at the first call: the stdio client transport's server process. */
export const nodeChildProcess = (): typeof NodeChildProcess =>
  (childProcessModule ??= required<typeof NodeChildProcess>('node:child_process'));
