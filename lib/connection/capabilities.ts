/**
 * Capability checks shared by the connection, the server and the client.
 */

/** Dotted paths split once: the paths are rxmcp's own (method registry, server and client code), so few. */
const splitPaths = new Map<string, readonly string[]>();

/** True when `capabilities` has the dotted `path` (e.g. `resources.subscribe`) set. */
export function hasCapability(capabilities: Record<string, unknown> | undefined, path: string): boolean {
  let keys = splitPaths.get(path);
  if (!keys) splitPaths.set(path, (keys = path.split('.')));
  let node: unknown = capabilities;
  for (const key of keys) {
    if (typeof node !== 'object' || node === null) return false;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined || node === null || node === false) return false;
  }
  return true;
}
