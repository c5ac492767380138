import type { Logger } from 'pino';
import { catchError, forkJoin, map, of, take } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import { hasCapability } from '../connection/capabilities';
import type { RequestContext } from '../connection/dispatcher';
import type { McpClient } from '../client/client-api';
import { resolveCollisions } from './collisions';
import type { Candidate, CollisionPolicy, Collision } from './collisions';
import type { DownstreamSession } from './front';
import type { NamePredicate } from './name-filter';
import type { Namespaces } from './namespaces';
import type { ArgumentPolicies, NamePolicy } from './upstream-policy';
import type { UpstreamLinks } from './upstream-links';

/** A tool, prompt, resource or template as an upstream lists it. */
export type Item = Record<string, unknown>;

/** One upstream as the aggregate holds it: its connections and its policies. */
export interface Member {
  readonly key: string;
  readonly links: UpstreamLinks;
  /** Whether the aggregate opens its connections (and may open them again). */
  readonly connector: boolean;
  readonly tools: NamePolicy;
  readonly prompts: NamePolicy;
  readonly resources: NamePredicate;
  readonly args: ArgumentPolicies;
}

/** What is assumed of a connector's upstream before it ever connected: lists that may fill later. */
const ASSUMED: Record<string, unknown> = { tools: {}, prompts: {}, resources: {} };

/** What a member declares now; undefined when it is gone for good (a given client whose connection closed). */
export function declared(member: Member): Record<string, unknown> | undefined {
  if (!member.connector && !member.links.available) return undefined;
  return member.links.capabilities ?? ASSUMED;
}

/** The members that serve now and declared `capability`. */
export function serving(members: readonly Member[], capability: string): Member[] {
  return members.filter((member) => {
    const own = declared(member);
    return member.links.available && own !== undefined && hasCapability(own, capability);
  });
}

/** Who asks: the downstream session (none for a modern request) and the request. */
export interface Asker {
  readonly owner: DownstreamSession | undefined;
  readonly context: RequestContext | undefined;
}

/**
 * Each member's list, as `list` gets it from its client; a member whose listing fails is left out
 * (and logged), so one failing upstream never empties the others' lists. Cold.
 */
export function listsOf(
  members: readonly Member[],
  capability: string,
  asker: Asker,
  list: (client: McpClient) => Observable<readonly Item[]>,
  logger: Logger,
): Observable<Array<{ readonly member: Member; readonly items: readonly Item[] }>> {
  const each = serving(members, capability).map((member) =>
    member.links
      .use(asker.owner, asker.context, (link) => list(link.client).pipe(take(1)))
      .pipe(
        map((items) => ({ member, items })),
        catchError((error: unknown) => {
          logger.warn({ upstream: member.key, err: error }, 'upstream left out of a merged list');
          return of({ member, items: [] as readonly Item[] });
        }),
      ),
  );
  return each.length === 0 ? of([]) : forkJoin(each);
}

/** A tool or prompt of a member, under its name downstream; `item` is the upstream's own entry. */
export type Listed = Candidate<Item> & { readonly member: Member };

/** How tools or prompts are named downstream. */
export interface Naming {
  readonly names: Namespaces;
  readonly collisions: CollisionPolicy;
  readonly kind: 'tools' | 'prompts';
}

/**
 * The tools or prompts of `lists` by their name downstream: filtered and renamed by each member's
 * policy, namespaced, with collisions settled. Each candidate's `item` is the upstream's own entry.
 */
export function catalog(
  lists: ReadonlyArray<{ readonly member: Member; readonly items: readonly Item[] }>,
  naming: Naming,
  report: (collision: Collision) => void = () => undefined,
): Map<string, Listed> {
  const candidates: Listed[] = [];
  for (const { member, items } of lists) {
    const policy = member[naming.kind];
    for (const item of items) {
      const local = String(item.name);
      if (!policy.keeps(local)) continue;
      const name = naming.names.name(member.key, policy.exposed(local));
      candidates.push({ upstream: member.key, local, name, item, member });
    }
  }
  // The fallback of 'prefix': the upstream's key before the name it would have had with no namespace.
  const prefixed = (candidate: Listed) =>
    naming.names.keyed(candidate.upstream, candidate.member[naming.kind].exposed(candidate.local));
  return resolveCollisions(candidates, naming.collisions, prefixed, report);
}

/**
 * The members that could show a tool or prompt under `name`: those whose namespace or key
 * prefixes it, and those with no namespace. Only they are asked for their lists to find it, so
 * that a call does not connect every per-session upstream.
 */
export function mayName(members: readonly Member[], names: Namespaces, name: string): Member[] {
  return members.filter(
    (member) =>
      names.name(member.key, '') === '' ||
      name.startsWith(names.name(member.key, '')) ||
      name.startsWith(names.keyed(member.key, '')),
  );
}
