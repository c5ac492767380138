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
 * registration order, shared by every session of a server. A class, so that a server definition
 * (one per client in some deployments) holds its registries as a few small objects.
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
  /** Told of each change before `changed$` emits: the server's `list_changed` to its sessions. */
  onChange: ListChangeListener | undefined;
}

/**
 * What a registry tells of its changes, naming its kind (`tools`, `prompts`, `resources`,
 * `resource-templates`): an object with a method rather than a closure, so that a definition's
 * registries share their server's sessions as their listener.
 */
export interface ListChangeListener {
  listChanged(kind: string): void;
}

/** The entries of every registry nothing was registered in yet; never written to. */
const NO_ENTRIES: ReadonlyMap<string, never> = new Map<string, never>();

/** A registered entry's handle. */
class EntryRegistration<D> implements Registration {
  constructor(
    private readonly registry: ItemRegistry<D>,
    private readonly entry: RegistryEntry<D>,
  ) {}

  get key(): string {
    return this.entry.key;
  }

  get enabled(): boolean {
    return this.entry.enabled && this.registry.holds(this.entry);
  }

  enable(): void {
    if (this.registry.holds(this.entry)) this.registry.setEnabled(this.entry.key, true);
  }

  disable(): void {
    if (this.registry.holds(this.entry)) this.registry.setEnabled(this.entry.key, false);
  }

  remove(): boolean {
    return this.registry.holds(this.entry) && this.registry.remove(this.entry.key);
  }
}

/**
 * Cursors are opaque to clients: they name the registration after which the next page starts, so
 * removing an item does not shift later pages.
 */
class ItemRegistry<D> implements Registry<D> {
  /** Made at the first registration: most servers leave some kinds empty. */
  private entries: ReadonlyMap<string, RegistryEntry<D>> = NO_ENTRIES;
  private seq = 0;
  private subject: Subject<void> | undefined;
  onChange: ListChangeListener | undefined = undefined;

  constructor(private readonly kind: string) {}

  get changed$(): Observable<void> {
    return (this.subject ??= new Subject<void>()).asObservable();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether `entry` is still the one registered under its key. */
  holds(entry: RegistryEntry<D>): boolean {
    return this.entries.get(entry.key) === entry;
  }

  add(key: string, definition: D, enabled = true): RegistryEntry<D> {
    if (this.entries.has(key)) throw new TypeError(`${this.kind}: ${JSON.stringify(key)} is already registered`);
    const entry: RegistryEntry<D> = { key, seq: ++this.seq, definition, enabled };
    this.writable().set(key, entry);
    if (enabled) this.changed();
    return entry;
  }

  remove(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.writable().delete(key);
    if (entry.enabled) this.changed();
    return true;
  }

  registration(entry: RegistryEntry<D>): Registration {
    return new EntryRegistration(this, entry);
  }

  get(key: string): RegistryEntry<D> | undefined {
    const entry = this.entries.get(key);
    return entry?.enabled ? entry : undefined;
  }

  setEnabled(key: string, enabled: boolean): void {
    const entry = this.entries.get(key);
    if (!entry || entry.enabled === enabled) return;
    entry.enabled = enabled;
    this.changed();
  }

  *enabled(): IterableIterator<RegistryEntry<D>> {
    for (const entry of this.entries.values()) if (entry.enabled) yield entry;
  }

  page(cursor: string | undefined, pageSize: number): RegistryPage<D> {
    const after = cursor === undefined ? 0 : this.decodeCursor(cursor);
    const page: RegistryEntry<D>[] = [];
    for (const entry of this.entries.values()) {
      if (!entry.enabled || entry.seq <= after) continue;
      if (page.length === pageSize) return { entries: page, nextCursor: this.encodeCursor(page.at(-1)!.seq) };
      page.push(entry);
    }
    return { entries: page };
  }

  private writable(): Map<string, RegistryEntry<D>> {
    if (this.entries === NO_ENTRIES) this.entries = new Map<string, RegistryEntry<D>>();
    return this.entries as Map<string, RegistryEntry<D>>;
  }

  private changed(): void {
    this.onChange?.listChanged(this.kind);
    this.subject?.next();
  }

  private encodeCursor(after: number): string {
    return Buffer.from(`${this.kind}:${after}`).toString('base64url');
  }

  private decodeCursor(cursor: string): number {
    const text = Buffer.from(cursor, 'base64url').toString('utf8');
    const at = text.lastIndexOf(':');
    const after = text.slice(at + 1);
    if (at < 0 || text.slice(0, at) !== this.kind || !/^\d+$/.test(after))
      throw JsonRpcError.invalidParams([
        { path: 'cursor', message: `not a cursor this server issued for ${this.kind}` },
      ]);
    return Number(after);
  }
}

/** A registry of one kind of item (tools, prompts), showing its size and changes as its own. */
export abstract class OverRegistry<D> {
  protected readonly registry: Registry<D>;

  constructor(kind: string) {
    this.registry = new ItemRegistry<D>(kind);
  }

  get size(): number {
    return this.registry.size;
  }

  get changed$(): Observable<void> {
    return this.registry.changed$;
  }

  set onChange(listener: ListChangeListener | undefined) {
    this.registry.onChange = listener;
  }
}

/** Creates an empty registry. */
export function createRegistry<D>(kind: string): Registry<D> {
  return new ItemRegistry<D>(kind);
}
