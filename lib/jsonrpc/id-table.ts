import type { RequestId } from './message';

/** Slots (an id and its value) a table starts with when its first integer id arrives. */
const FIRST_CAPACITY = 8;
/** A table this large that empties drops its slots: a burst's worth is not kept for good. */
const KEPT_CAPACITY = 1024;

/**
 * Values by request id, for what a connection has in flight. Integer ids (what rxmcp sends, and
 * what most peers send) live in one array of slots, open-addressed by the id itself, that grows
 * and is never rebuilt while in use; other ids (strings) go to a `Map`. A `Map` that requests
 * pass through rebuilds its table whenever it fills up or empties out, and once that table has
 * lived long enough to be in the old generation, every rebuild allocates there: a connection
 * that had a quiet moment then made each burst of calls leave old-generation garbage behind.
 */
export class IdTable<V> {
  /** Interleaved ids and values; an empty slot holds `undefined` as its id. */
  private slots: unknown[] | undefined = undefined;
  private mask = 0;
  private count = 0;
  /**
   * How many integer ids sit away from their home slot (pushed on by a collision). While none do,
   * a deletion has nothing to shift: the ids of calls in flight are mostly consecutive, each at
   * home, and a delete that scanned the run after it would cost as many steps as calls in flight.
   */
  private displaced = 0;
  private others: Map<RequestId, V> | undefined = undefined;

  get size(): number {
    return this.count + (this.others?.size ?? 0);
  }

  get(id: RequestId): V | undefined {
    if (typeof id !== 'number' || !Number.isInteger(id)) return this.others?.get(id);
    const slot = this.slotOf(id);
    return slot < 0 ? undefined : (this.slots![2 * slot + 1] as V);
  }

  has(id: RequestId): boolean {
    return this.get(id) !== undefined;
  }

  /** Sets the value of `id` (values are never `undefined`). */
  set(id: RequestId, value: V): void {
    if (typeof id !== 'number' || !Number.isInteger(id)) {
      (this.others ??= new Map()).set(id, value);
      return;
    }
    this.reserve();
    this.place(id, value, true);
  }

  /** Adds `value` under `id` unless the table holds `id` already: false then, and nothing changed. One probe. */
  add(id: RequestId, value: V): boolean {
    if (typeof id !== 'number' || !Number.isInteger(id)) {
      const others = (this.others ??= new Map());
      if (others.has(id)) return false;
      others.set(id, value);
      return true;
    }
    this.reserve();
    return this.place(id, value, false);
  }

  delete(id: RequestId): boolean {
    if (typeof id !== 'number' || !Number.isInteger(id)) return this.others?.delete(id) ?? false;
    const slot = this.slotOf(id);
    if (slot < 0) return false;
    this.vacate(slot, id);
    return true;
  }

  /** Removes `id` if the table holds it with `value` (not a later value of the same id): whether it did. One probe. */
  deleteIf(id: RequestId, value: V): boolean {
    if (typeof id !== 'number' || !Number.isInteger(id)) {
      if (this.others?.get(id) !== value) return false;
      return this.others.delete(id);
    }
    const slot = this.slotOf(id);
    if (slot < 0 || this.slots![2 * slot + 1] !== value) return false;
    this.vacate(slot, id);
    return true;
  }

  /** Removes `id` and answers its value, if the table holds it. One probe. */
  take(id: RequestId): V | undefined {
    if (typeof id !== 'number' || !Number.isInteger(id)) {
      const others = this.others;
      const value = others?.get(id);
      if (value !== undefined) others!.delete(id);
      return value;
    }
    const slot = this.slotOf(id);
    if (slot < 0) return undefined;
    const value = this.slots![2 * slot + 1] as V;
    this.vacate(slot, id);
    return value;
  }

  /** Empties the table; returns what it held, integer ids in ascending order first, then the others in insertion order. */
  drain(): Array<[RequestId, V]> {
    const drained: Array<[RequestId, V]> = [];
    const slots = this.slots;
    if (slots !== undefined)
      for (let i = 0; i < slots.length; i += 2)
        if (slots[i] !== undefined) drained.push([slots[i] as number, slots[i + 1] as V]);
    drained.sort((a, b) => (a[0] as number) - (b[0] as number));
    if (this.others !== undefined) drained.push(...this.others);
    this.slots = this.others = undefined;
    this.count = this.displaced = 0;
    return drained;
  }

  /** The slot integer `id` sits in, or -1. */
  private slotOf(id: number): number {
    const slots = this.slots;
    if (slots === undefined) return -1;
    const mask = this.mask;
    for (let slot = id & mask; ; slot = (slot + 1) & mask) {
      const held = slots[2 * slot];
      if (held === undefined) return -1;
      if (held === id) return slot;
    }
  }

  /** Empties `hole`, which holds `id`. */
  private vacate(hole: number, id: number): void {
    const slots = this.slots!;
    const mask = this.mask;
    if (hole !== (id & mask)) this.displaced--;
    // Backward-shift deletion: later ids of the same run move up, so a lookup never meets a gap early.
    for (let next = (hole + 1) & mask; this.displaced > 0 && slots[2 * next] !== undefined; next = (next + 1) & mask) {
      const home = (slots[2 * next] as number) & mask;
      const movable = next > hole ? home <= hole || home > next : home <= hole && home > next;
      if (!movable) continue;
      slots[2 * hole] = slots[2 * next];
      slots[2 * hole + 1] = slots[2 * next + 1];
      if (hole === home) this.displaced--;
      hole = next;
    }
    slots[2 * hole] = slots[2 * hole + 1] = undefined;
    this.count--;
    if (this.count === 0 && this.mask + 1 > KEPT_CAPACITY) this.slots = undefined;
  }

  /** Room for one more integer id. */
  private reserve(): void {
    if (this.slots === undefined) this.resize(FIRST_CAPACITY);
    else if (2 * (this.count + 1) > this.mask + 1) this.resize(2 * (this.mask + 1));
  }

  /** Puts `value` under `id`: replacing one held there when `replace`, else answering false. */
  private place(id: number, value: V, replace: boolean): boolean {
    const slots = this.slots!;
    for (let i = id & this.mask; ; i = (i + 1) & this.mask) {
      const held = slots[2 * i];
      if (held === id) {
        if (replace) slots[2 * i + 1] = value;
        return replace;
      }
      if (held === undefined) {
        slots[2 * i] = id;
        slots[2 * i + 1] = value;
        this.count++;
        if (i !== (id & this.mask)) this.displaced++;
        return true;
      }
    }
  }

  private resize(capacity: number): void {
    const old = this.slots;
    this.slots = new Array<unknown>(2 * capacity).fill(undefined);
    this.mask = capacity - 1;
    this.count = this.displaced = 0;
    if (old !== undefined)
      for (let i = 0; i < old.length; i += 2)
        if (old[i] !== undefined) this.place(old[i] as number, old[i + 1] as V, true);
  }
}
