/**
 * Capability checks shared by the connection, the server and the client.
 */

/** True when `capabilities` has the dotted `path` (e.g. `resources.subscribe`) set. */
export function hasCapability(capabilities: Record<string, unknown> | undefined, path: string): boolean {
  let node: unknown = capabilities;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null) return false;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined || node === null || node === false) return false;
  }
  return true;
}
