/**
 * Lists an extension serves that change at runtime (the events extension's `events/list`): each
 * change is told to every client that declared the extension, as a notification without params:
 * to each session, and on each modern `subscriptions/listen` stream whose filter asks for the
 * list's key. The key is the extension's addition to the stream's filter, which takes keys beyond
 * the revision's own; the acknowledgement says whether it is honoured.
 */
import { Subject } from '../rx/rxjs';
import type { Observable, Subscription } from '../rx/rxjs';
import { extensionSettings } from '../schema/extensions';

/** A session as a list's changes reach it. */
export interface ListedSession {
  readonly operating: boolean;
  /** What the server declared to it. */
  readonly declared: Record<string, unknown> | undefined;
  /** What its client declared. */
  readonly clientCapabilities: Record<string, unknown> | undefined;
  readonly connection: {
    /** Sends notification `method`, without params. */
    notify(method: string): void;
  };
}

/** A list's changes as one server's `subscriptions/listen` streams follow them. */
export interface ListenedList {
  /**
   * Follows the list for a stream whose filter is `wanted`, when it asks for the list's key and
   * its client declared the extension: agrees to the key in `agreed`, and relays each change.
   */
  follow(
    wanted: Readonly<Record<string, unknown>>,
    clientCapabilities: Record<string, unknown> | undefined,
    agreed: Record<string, unknown>,
    relay: (method: string) => void,
  ): Subscription | undefined;
}

const declared = (capabilities: Record<string, unknown> | undefined, id: string): boolean =>
  extensionSettings(capabilities, id) !== undefined;

/**
 * What listen streams follow of list `method` of extension `id`, which changes at each `changes$`:
 * a stream whose filter asks for `filterKey`, from a client that declared the extension.
 */
export function listenedList(
  method: string,
  filterKey: string,
  id: string,
  changes$: Observable<unknown>,
): ListenedList {
  return {
    follow: (wanted, clientCapabilities, agreed, relay) => {
      if (wanted[filterKey] !== true || !declared(clientCapabilities, id)) return undefined;
      agreed[filterKey] = true;
      return changes$.subscribe(() => relay(method));
    },
  };
}

/**
 * The changes of a list an extension serves, for its `ServerExtension.listChanged`: call
 * `changed()` after each change.
 * @example
 * const changes = new ExtensionListChanges('notifications/events/list_changed', 'eventsListChanged');
 * const extension = { id: 'io.modelcontextprotocol/events', handlers, listChanged: changes };
 * // later, when the list changed:
 * changes.changed();
 */
export class ExtensionListChanges {
  private readonly changes = new Subject<void>();

  /**
   * `method`: the notification (`notifications/events/list_changed`); `filterKey`: the
   * `subscriptions/listen` filter key a modern client asks for it with (`eventsListChanged`).
   */
  constructor(
    readonly method: string,
    readonly filterKey: string,
  ) {}

  /** Each change, as `changed()` tells it. */
  get changed$(): Observable<void> {
    return this.changes.asObservable();
  }

  /** Tells every client that declared the extension, on every server serving it, that the list changed. */
  changed(): void {
    this.changes.next();
  }

  /**
   * Called by a server that serves extension `id` with this list: each change reaches its
   * `sessions` told of the extension whose client declared it; what it returns is what its
   * listen streams follow.
   */
  attach(id: string, sessions: Iterable<ListedSession>): ListenedList {
    const { method, filterKey } = this;
    const declares = (capabilities: Record<string, unknown> | undefined) => declared(capabilities, id);
    // Held weakly: servers made one per client around one extension are collected all the same.
    const held = new WeakRef(sessions);
    const following: Subscription = this.changes.subscribe(() => {
      const live = held.deref();
      if (live === undefined) return following.unsubscribe();
      for (const session of live)
        if (session.operating && declares(session.declared) && declares(session.clientCapabilities))
          session.connection.notify(method);
    });
    return listenedList(method, filterKey, id, this.changes);
  }
}
