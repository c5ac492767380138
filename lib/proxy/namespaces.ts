/** A namespace must also be a valid start of a URI scheme: resource URIs carry it as `<namespace>+<uri>`. */
const NAMESPACE = /^[A-Za-z][A-Za-z0-9.-]*$/;

/** Where a namespaced name or URI points: the upstream's namespace and the name or URI it knows. */
export interface Resolved {
  readonly namespace: string;
  readonly local: string;
}

/**
 * The names and URIs of several upstreams, made distinct: a tool or prompt `name` of upstream `ns`
 * is `ns<separator>name`, a resource URI or template `scheme://…` is `ns+scheme://…` (still a URI,
 * and it round-trips: reading it reads the upstream's own URI).
 */
export class Namespaces {
  private readonly byLength: readonly string[];

  constructor(
    namespaces: readonly string[],
    readonly separator: string,
  ) {
    for (const namespace of namespaces) {
      if (!NAMESPACE.test(namespace)) {
        throw new TypeError(
          `Upstream name "${namespace}" cannot namespace resource URIs: use letters, digits, "." and "-", starting with a letter`,
        );
      }
    }
    if (separator.length === 0) throw new TypeError('The namespace separator may not be empty');
    // Longest first, so that "a-b" wins over "a" when both could prefix a name.
    this.byLength = [...namespaces].sort((a, b) => b.length - a.length);
  }

  name(namespace: string, local: string): string {
    return `${namespace}${this.separator}${local}`;
  }

  uri(namespace: string, local: string): string {
    return `${namespace}+${local}`;
  }

  resolveName(name: string): Resolved | undefined {
    for (const namespace of this.byLength) {
      const prefix = namespace + this.separator;
      if (name.startsWith(prefix) && name.length > prefix.length)
        return { namespace, local: name.slice(prefix.length) };
    }
    return undefined;
  }

  resolveUri(uri: string): Resolved | undefined {
    for (const namespace of this.byLength) {
      const prefix = `${namespace}+`;
      if (uri.startsWith(prefix) && uri.length > prefix.length) return { namespace, local: uri.slice(prefix.length) };
    }
    return undefined;
  }
}
