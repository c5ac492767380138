/**
 * What an aggregate does when two upstreams show a tool or prompt under the same final name:
 * - `'prefix'` (the default): each of them is shown as `<upstream key><separator><name>` instead
 *   (an upstream with an empty namespace gets its key back for that name only);
 * - `'first'`: the upstream listed first in `aggregate`'s record keeps the name, the others' entry is left out;
 * - `'error'`: every entry under that name is left out, and the collision is logged as an error.
 *
 * Every entry left out is logged; a `rename` in the upstream's policy resolves a collision for good.
 * Collisions that can be seen in the configuration (two upstreams with the same non-empty
 * namespace, two entries of one upstream renamed alike) are refused when the aggregate is made.
 */
export type CollisionPolicy = 'prefix' | 'first' | 'error';

/** One entry an upstream offers, under the name it would have downstream. */
export interface Candidate<T> {
  /** The upstream's key in `aggregate`'s record. */
  readonly upstream: string;
  /** The name the upstream knows it by. */
  readonly local: string;
  /** The name downstream. */
  readonly name: string;
  readonly item: T;
}

/** Who was left out, for the log. */
export interface Collision {
  readonly name: string;
  readonly upstreams: readonly string[];
  readonly kept: string | undefined;
}

/**
 * The entries under distinct names, in the order given (which is the upstreams' order), by
 * `policy`. `prefixed(candidate)` is the fallback name of `'prefix'`; `report` hears each collision.
 */
export function resolveCollisions<C extends Candidate<unknown>>(
  candidates: readonly C[],
  policy: CollisionPolicy,
  prefixed: (candidate: C) => string,
  report: (collision: Collision) => void,
): Map<string, C> {
  const byName = new Map<string, C[]>();
  for (const candidate of candidates) {
    const same = byName.get(candidate.name);
    if (same) same.push(candidate);
    else byName.set(candidate.name, [candidate]);
  }
  const chosen = new Map<string, C>();
  const fallback: C[] = [];
  for (const [name, same] of byName) {
    if (same.length === 1) chosen.set(name, same[0]!);
    else if (policy === 'first') {
      chosen.set(name, same[0]!);
      report({ name, upstreams: same.map((c) => c.upstream), kept: same[0]!.upstream });
    } else if (policy === 'error') report({ name, upstreams: same.map((c) => c.upstream), kept: undefined });
    else for (const candidate of same) fallback.push({ ...candidate, name: prefixed(candidate) });
  }
  // A prefixed name may still meet one already taken: then the one there first keeps it.
  for (const candidate of fallback) {
    const holder = chosen.get(candidate.name);
    if (holder)
      report({ name: candidate.name, upstreams: [holder.upstream, candidate.upstream], kept: holder.upstream });
    else chosen.set(candidate.name, candidate);
  }
  const order = new Map(candidates.map((candidate, index) => [`${candidate.upstream}\u0000${candidate.local}`, index]));
  const rank = (candidate: C) => order.get(`${candidate.upstream}\u0000${candidate.local}`) ?? 0;
  return new Map([...chosen.entries()].sort(([, a], [, b]) => rank(a) - rank(b)));
}
