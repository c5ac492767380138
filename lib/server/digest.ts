import { nodeCrypto } from '../base/node-builtins';

/** JSON with object keys in sorted order, so equal values digest alike whatever order a client sent. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A SHA-256 digest (base64url) of a value's canonical JSON. */
export function digestOf(value: unknown): string {
  return nodeCrypto().createHash('sha256').update(canonicalJson(value)).digest('base64url');
}

/** Digests already made, by the object they were made of: a session's capabilities are one object. */
const digests = new WeakMap<object, string>();

/**
 * The digest of a client's declared capabilities (extensions included), made once per object: a
 * session's requests all share theirs. `'none'` when the client declared none.
 */
export function capabilitiesDigest(capabilities: object | undefined): string {
  if (capabilities === undefined) return 'none';
  let digest = digests.get(capabilities);
  if (digest === undefined) {
    digest = digestOf(capabilities);
    digests.set(capabilities, digest);
  }
  return digest;
}
