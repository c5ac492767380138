import { Subject } from '../rx/rxjs';
import { hasCapability } from '../connection/capabilities';
import { declaresPartialResults, PARTIAL_RESULTS_EXTENSION } from '../connection/partial-results';
import type { Connection } from '../connection/connection';
import { childLogger } from '../base/logger';
import type { Transport } from '../transport/transport';
import { declared } from './aggregate-catalog';
import type { Member } from './aggregate-catalog';
import { Front } from './front';
import type { McpProxy } from './front';
import { listenRelay } from './listen-relay';
import { compileFilter } from './name-filter';
import { Namespaces } from './namespaces';
import { downstreamCapabilities } from './proxy';
import { PerSessionLinks } from './per-session-links';
import { listsChanged, SharedLinks } from './upstream-links';
import type { LinkSetup } from './upstream-links';
import { ArgumentPolicies, NamePolicy } from './upstream-policy';
import { normalizeUpstream } from './upstream-source';
import type { NormalizedUpstream, UpstreamEntry } from './upstream-source';

import type { AggregateOptions } from './aggregate-options';
import { aggregateHandlers, updatesOf } from './aggregate-handlers';
import { aggregateEventHandlers } from './aggregate-events';
import { declaredEvents, mergedEvents } from './event-declarations';
import { EVENTS_EXTENSION } from '../schema/events';
import type { Routing } from './aggregate-handlers';

export type { AggregateOptions } from './aggregate-options';

/** An aggregate whose upstreams can change while it serves. */
export interface ReconfigurableAggregate extends McpProxy {
  /**
   * Serves `upstreams` from now on, downstream sessions staying connected: upstreams whose key is
   * new join, those whose key is gone leave (their connections closed), and the others are made
   * again from their new entry unless `keep(key)` says the running one stays. Downstream clients
   * get `list_changed`. Throws a `TypeError`, changing nothing, for what `aggregate` would refuse.
   */
  reconfigure(upstreams: Readonly<Record<string, UpstreamEntry>>, keep?: (key: string) => boolean): void;
}

/**
 * Many upstream servers behind one: `aggregate({ files: filesClient, search: searchConnector })`.
 *
 * Each entry is a connected client, a connector (`{ connect }` or a function) that the aggregate
 * connects itself, or an `UpstreamConfig` with the entry's policies: its namespace (default its
 * key; `''` for none), which tools, prompts and resources it shows, renamed tools and prompts,
 * hidden or defaulted tool arguments, one connection shared by all downstream clients or one per
 * downstream session. Tools and prompts are listed as `<namespace><separator><name>`, resource
 * URIs and templates as `<namespace>+<uri>`; names two upstreams share are settled by
 * `collisions`. Each request goes to its upstream under the name or URI that upstream knows, with
 * progress, cancellation, errors and `_meta` passed as by `proxy`. Lists are merged (one page).
 *
 * An upstream that fails or whose connection closes leaves the lists (downstream clients get
 * `list_changed`) while the others keep serving; a request for one of its entries answers -32000
 * naming it. A connector's upstream is connected again with exponential backoff (`reconnect`) and
 * its entries come back (`list_changed` again). Each upstream's list changes, resource updates and
 * log messages reach downstream clients, renamed to match. Resource subscriptions are shared: one
 * upstream subscription per URI, whatever the number of downstream subscribers. Event types
 * (experimental) are listed namespaced like tools, and each poll, push stream and webhook
 * subscription goes to the upstream owning its type (see `aggregateEventHandlers`).
 *
 * Throws a `TypeError` for a configuration that cannot work: a namespace that cannot prefix a URI,
 * two upstreams with one namespace, two entries renamed alike, `'perSession'` on a ready client.
 */
export function aggregate(
  upstreams: Readonly<Record<string, UpstreamEntry>>,
  options: AggregateOptions = {},
): ReconfigurableAggregate {
  const logger = childLogger(options.logger, { component: 'aggregate' });
  const entries = Object.entries(upstreams).map(([key, entry]) => [key, normalizeUpstream(key, entry)] as const);
  const members: Member[] = [];
  const left = new Subject<Member>();
  const routing: Routing = { members, names: namespacesOf(entries, options), options, logger, left };
  const transports = new WeakMap<Connection, Transport>();
  const closing = new Subject<void>();
  const handlers = { ...aggregateHandlers(routing), ...aggregateEventHandlers(routing) };
  handlers['subscriptions/listen'] = listenRelay({
    capabilities: () => unionCapabilities(members),
    changes: () => front.broadcasts,
    updates: (uri) => updatesOf(routing, uri),
    closing,
    logger,
  });
  const front: Front = new Front({
    info: { name: options.name ?? 'rxmcp-aggregate', version: options.version ?? '0.0.0' },
    instructions: options.instructions,
    capabilities: () => unionCapabilities(members),
    handlers,
    middleware: options.middleware,
    logger,
    onSessionClosed: (session) => members.forEach((member) => member.links.sessionClosed(session)),
    onRootsChanged: (session) => members.forEach((member) => member.links.rootsChanged(session)),
    onClose: () => {
      closing.next();
      members.forEach((member) => member.links.close());
    },
  });
  const setupOf = (key: string): LinkSetup => ({
    key,
    logger,
    front,
    downstreamUri: (uri) => routing.names.uri(key, uri),
    renameLog: (message) => ({
      ...message,
      logger: typeof message.logger === 'string' ? routing.names.name(key, message.logger) : key,
    }),
    transportOf: (session) => transports.get(session.connection),
  });
  for (const [key, entry] of entries) members.push(memberOf(key, entry, setupOf(key), options));
  return {
    reconfigure: (next, keep = () => false) => {
      const normalized = Object.entries(next).map(([key, entry]) => [key, normalizeUpstream(key, entry)] as const);
      const names = namespacesOf(normalized, options);
      const made = new Map<string, Member>();
      // Built before anything changes, so that a policy `aggregate` refuses leaves the old members serving.
      try {
        for (const [key, entry] of normalized)
          if (!keep(key) || !members.some((member) => member.key === key))
            made.set(key, memberOf(key, entry, setupOf(key), options));
      } catch (error) {
        for (const member of made.values()) member.links.close();
        throw error;
      }
      const old = new Map(members.map((member) => [member.key, member]));
      members.splice(0, members.length, ...normalized.map(([key]) => made.get(key) ?? old.get(key)!));
      routing.names = names;
      for (const [key, member] of old)
        if (made.has(key) || !(key in next)) {
          member.links.close();
          left.next(member);
        }
      listsChanged(front);
    },
    connect: (transport) => {
      const connection = front.connect(transport);
      transports.set(connection, transport);
      return connection;
    },
    get modern() {
      return front.modern;
    },
    get sessions() {
      return front.sessions;
    },
    close: (reason) => front.close(reason),
  };
}

function memberOf(key: string, entry: NormalizedUpstream, setup: LinkSetup, options: AggregateOptions): Member {
  const links =
    entry.connect && entry.sharing === 'perSession'
      ? new PerSessionLinks(setup, entry.connect)
      : new SharedLinks(
          setup,
          entry.client ? { client: entry.client } : { connect: entry.connect! },
          entry.reconnect === false ? false : { ...options.reconnect, ...entry.reconnect },
        );
  return {
    key,
    links,
    connector: entry.client === undefined,
    tools: new NamePolicy(key, 'tool', entry.tools),
    prompts: new NamePolicy(key, 'prompt', entry.prompts),
    resources: compileFilter(entry.resources),
    args: new ArgumentPolicies(entry.tools?.arguments),
  };
}

/** What the aggregate declares: every capability that some upstream declared. */
function unionCapabilities(members: readonly Member[]): Record<string, unknown> {
  const union: Record<string, unknown> = {};
  for (const member of members) {
    const own = declared(member);
    if (!own) continue;
    for (const key of ['tools', 'resources', 'prompts', 'completions']) if (hasCapability(own, key)) union[key] ??= {};
    if (hasCapability(own, 'resources.subscribe')) union.resources = { subscribe: true };
    if (declaresPartialResults(own)) union.extensions = { [PARTIAL_RESULTS_EXTENSION]: {} };
  }
  // Events: every delivery mode one upstream serves, under the longest heartbeat (see `mergedEvents`).
  const events = mergedEvents(members.map((member) => declaredEvents(declared(member))));
  if (events) union.extensions = { ...(union.extensions as Record<string, unknown>), [EVENTS_EXTENSION]: events };
  return downstreamCapabilities(union);
}

/** The namespaces of the entries, by their keys. */
function namespacesOf(
  entries: ReadonlyArray<readonly [string, NormalizedUpstream]>,
  options: AggregateOptions,
): Namespaces {
  return new Namespaces(
    new Map(entries.map(([key, entry]) => [key, entry.namespace ?? key])),
    options.separator ?? '_',
  );
}
