/** A namespace must also be a valid start of a URI scheme: resource URIs carry it as `<namespace>+<uri>`. */
const NAMESPACE = /^[A-Za-z][A-Za-z0-9.-]*$/;

/** Where a namespaced URI may point: an upstream (by its key) and the URI it knows. */
export interface Resolved {
  readonly upstream: string;
  readonly local: string;
}

/**
 * The names and URIs of several upstreams, made distinct. Each upstream (by its key in
 * `aggregate`'s record) has a namespace: a tool or prompt `name` of namespace `ns` is
 * `ns<separator>name`, a resource URI or template `scheme://…` is `ns+scheme://…` (still a URI, and
 * it round-trips: reading it reads the upstream's own URI). An empty namespace adds nothing.
 */
export class Namespaces {
  /** Upstreams with a namespace, longest namespace first, so that "a-b" wins over "a". */
  private readonly prefixed: ReadonlyArray<readonly [upstream: string, namespace: string]>;
  /** Upstreams with an empty namespace, in their order. */
  private readonly bare: readonly string[];

  constructor(
    private readonly namespaces: ReadonlyMap<string, string>,
    readonly separator: string,
  ) {
    if (separator.length === 0) throw new TypeError('The namespace separator may not be empty');
    const seen = new Map<string, string>();
    for (const [upstream, namespace] of namespaces) {
      if (namespace === '') continue;
      if (!NAMESPACE.test(namespace)) {
        throw new TypeError(
          `Upstream namespace "${namespace}" cannot namespace resource URIs: use letters, digits, "." and "-", starting with a letter`,
        );
      }
      const other = seen.get(namespace);
      if (other !== undefined)
        throw new TypeError(`Upstreams "${other}" and "${upstream}" share the namespace "${namespace}"`);
      seen.set(namespace, upstream);
    }
    this.prefixed = [...namespaces]
      .filter(([, namespace]) => namespace !== '')
      .sort(([, a], [, b]) => b.length - a.length);
    this.bare = [...namespaces].filter(([, namespace]) => namespace === '').map(([upstream]) => upstream);
  }

  /** The name downstream of the upstream's `local` tool or prompt name. */
  name(upstream: string, local: string): string {
    const namespace = this.namespaces.get(upstream) ?? upstream;
    return namespace === '' ? local : `${namespace}${this.separator}${local}`;
  }

  /** The name downstream under the upstream's key, whatever its namespace (the `'prefix'` collision fallback). */
  keyed(upstream: string, name: string): string {
    return `${upstream}${this.separator}${name}`;
  }

  /** The URI downstream of the upstream's `local` URI or template. */
  uri(upstream: string, local: string): string {
    const namespace = this.namespaces.get(upstream) ?? upstream;
    return namespace === '' ? local : `${namespace}+${local}`;
  }

  /** The upstream whose namespace prefixes `name`, if one does. */
  upstreamOfName(name: string): string | undefined {
    for (const [upstream, namespace] of this.prefixed)
      if (name.startsWith(namespace + this.separator) && name.length > namespace.length + this.separator.length)
        return upstream;
    return undefined;
  }

  /**
   * Where a URI may point, most likely first: the upstream whose namespace prefixes it, then each
   * upstream with an empty namespace, which knows it as it is.
   */
  resolveUri(uri: string): Resolved[] {
    const found: Resolved[] = [];
    for (const [upstream, namespace] of this.prefixed) {
      const prefix = `${namespace}+`;
      if (uri.startsWith(prefix) && uri.length > prefix.length) {
        found.push({ upstream, local: uri.slice(prefix.length) });
        break;
      }
    }
    for (const upstream of this.bare) found.push({ upstream, local: uri });
    return found;
  }
}
