import { Subject } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import { JsonRpcError } from '../jsonrpc/errors';

/** How many items a list method returns per page unless the server says otherwise. */
export const DEFAULT_PAGE_SIZE = 100;

/** One registered item: its definition, its place in the registration order, and whether it is enabled. */
export interface RegistryEntry<D> {
  readonly key: string;
  /** Increases with every registration; cursors point after one. */
  readonly seq: number;
  readonly definition: D;
  enabled: boolean;
}

/**
 * What registering a tool, prompt, resource or resource template gives back: a handle to disable,
 * re-enable or remove it at run time. Each change that alters what a list method answers sends
 * the matching `notifications/.../list_changed` to every session that was told `listChanged`.
 */
export interface Registration {
  /** The tool or prompt name, the resource URI or the URI template. */
  readonly key: string;
  /** Whether it is listed and can be used; false once removed. */
  readonly enabled: boolean;
  /** Lists it again after `disable()`. Does nothing once removed. */
  enable(): void;
  /** Hides it: not listed, and using it answers as if it did not exist. */
  disable(): void;
  /** Removes it; true the first time. The key may then be registered again. */
  remove(): boolean;
}

/** One page of a registry's enabled items. */
export interface RegistryPage<D> {
  readonly entries: readonly RegistryEntry<D>[];
  readonly nextCursor?: string;
}

/**
 * Items of one kind (tools, prompts, resources, resource templates) keyed by name or URI, in
 * registration order, shared by every session of a server.
 */
export interface Registry<D> {
  /** Registers an item; throws a `TypeError` naming the key when it is taken. */
  add(key: string, definition: D, enabled?: boolean): RegistryEntry<D>;
  /** Removes an item; true if it was registered. Emits on `changed$` when it was enabled. */
  remove(key: string): boolean;
  /** A handle on a registered entry. */
  registration(entry: RegistryEntry<D>): Registration;
  /** The enabled item with this key. */
  get(key: string): RegistryEntry<D> | undefined;
  /** Enables or disables an item; emits on `changed$` when that changes what is listed. */
  setEnabled(key: string, enabled: boolean): void;
  /** Every enabled item, in registration order. */
  enabled(): IterableIterator<RegistryEntry<D>>;
  /**
   * One page of enabled items after `cursor`. Throws `JsonRpcError` -32602 for a cursor this
   * registry did not issue.
   */
  page(cursor: string | undefined, pageSize: number): RegistryPage<D>;
  /** How many items are registered, enabled or not. */
  readonly size: number;
  /** Hot: emits each time what a list method answers changes. Completes never. */
  readonly changed$: Observable<void>;
}

/**
 * Creates an empty registry. Cursors are opaque to clients: they name the registration after which
 * the next page starts, so removing an item does not shift later pages.
 */
export function createRegistry<D>(kind: string): Registry<D> {
  const entries = new Map<string, RegistryEntry<D>>();
  const changed$ = new Subject<void>();
  let seq = 0;

  const encodeCursor = (after: number) => Buffer.from(`${kind}:${after}`).toString('base64url');
  const decodeCursor = (cursor: string): number => {
    const match = new RegExp(`^${kind}:(\\d+)$`).exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!match)
      throw JsonRpcError.invalidParams([{ path: 'cursor', message: `not a cursor this server issued for ${kind}` }]);
    return Number(match[1]);
  };

  const live = (entry: RegistryEntry<D>) => entries.get(entry.key) === entry;
  const setEnabled = (key: string, enabled: boolean) => {
    const entry = entries.get(key);
    if (!entry || entry.enabled === enabled) return;
    entry.enabled = enabled;
    changed$.next();
  };
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return false;
    entries.delete(key);
    if (entry.enabled) changed$.next();
    return true;
  };

  return {
    add(key, definition, enabled = true) {
      if (entries.has(key)) throw new TypeError(`${kind}: ${JSON.stringify(key)} is already registered`);
      const entry: RegistryEntry<D> = { key, seq: ++seq, definition, enabled };
      entries.set(key, entry);
      if (enabled) changed$.next();
      return entry;
    },
    remove,
    registration(entry) {
      return {
        key: entry.key,
        get enabled() {
          return entry.enabled && live(entry);
        },
        enable: () => void (live(entry) && setEnabled(entry.key, true)),
        disable: () => void (live(entry) && setEnabled(entry.key, false)),
        remove: () => live(entry) && remove(entry.key),
      };
    },
    get(key) {
      const entry = entries.get(key);
      return entry?.enabled ? entry : undefined;
    },
    setEnabled,
    *enabled() {
      for (const entry of entries.values()) if (entry.enabled) yield entry;
    },
    page(cursor, pageSize) {
      const after = cursor === undefined ? 0 : decodeCursor(cursor);
      const page: RegistryEntry<D>[] = [];
      for (const entry of entries.values()) {
        if (!entry.enabled || entry.seq <= after) continue;
        if (page.length === pageSize) return { entries: page, nextCursor: encodeCursor(page.at(-1)!.seq) };
        page.push(entry);
      }
      return { entries: page };
    },
    get size() {
      return entries.size;
    },
    changed$: changed$.asObservable(),
  };
}
