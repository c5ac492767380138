/**
 * One way to name entries: an exact name, a glob (`*` any run of characters, `?` any one), or a
 * regular expression tested against the whole name.
 */
export type NamePattern = string | RegExp;

/** Which names a filter matches: one pattern, a list of them (any may match), or a predicate. */
export type NameMatcher = NamePattern | readonly NamePattern[] | ((name: string) => boolean);

/**
 * Which entries of an upstream the aggregate shows and serves. An entry is kept when it matches
 * `include` (everything, when absent) and does not match `exclude`. A tool or prompt is matched by
 * the name its upstream gives it; a resource by its URI, a resource template by its URI template.
 * An entry filtered out is refused as well as hidden: a request for it answers -32602.
 */
export interface EntryFilter {
  readonly include?: NameMatcher;
  readonly exclude?: NameMatcher;
}

/** A compiled {@link EntryFilter}: whether a name is kept. */
export type NamePredicate = (name: string) => boolean;

function escapeRegExp(text: string): string {
  return text.replace(/[.+^${}()|[\]\\]/g, '\\$&');
}

/** A glob as an anchored regular expression: `*` is any run of characters, `?` any one. */
export function globToRegExp(glob: string): RegExp {
  const source = escapeRegExp(glob).replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's');
}

function compilePattern(pattern: NamePattern): NamePredicate {
  if (typeof pattern !== 'string') {
    // A global or sticky expression keeps state between tests: test a copy without those flags.
    const modern = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
    return (name) => modern.test(name);
  }
  if (!/[*?]/.test(pattern)) return (name) => name === pattern;
  const glob = globToRegExp(pattern);
  return (name) => glob.test(name);
}

/** A predicate for one {@link NameMatcher}. */
export function compileMatcher(matcher: NameMatcher): NamePredicate {
  if (typeof matcher === 'function') return matcher as NamePredicate;
  if (typeof matcher === 'string' || matcher instanceof RegExp) return compilePattern(matcher);
  const each = (matcher as readonly NamePattern[]).map(compilePattern);
  return (name) => each.some((test) => test(name));
}

/** A predicate for one {@link EntryFilter}; compiled once, at construction. */
export function compileFilter(filter: EntryFilter | undefined): NamePredicate {
  if (!filter || (filter.include === undefined && filter.exclude === undefined)) return () => true;
  const included = filter.include === undefined ? () => true : compileMatcher(filter.include);
  const excluded = filter.exclude === undefined ? () => false : compileMatcher(filter.exclude);
  return (name) => included(name) && !excluded(name);
}
