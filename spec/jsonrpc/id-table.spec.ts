import { IdTable } from '../../lib/jsonrpc/id-table';
import type { RequestId } from '../../lib/jsonrpc/message';

/** A small deterministic generator (mulberry32), so that a failure repeats. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('IdTable', () => {
  it('keeps integer and string ids apart, and 1 apart from "1"', () => {
    const table = new IdTable<string>();
    table.set(1, 'number');
    table.set('1', 'string');
    table.set(-3, 'negative');
    table.set(2 ** 40, 'large');
    expect([table.get(1), table.get('1'), table.get(-3), table.get(2 ** 40), table.get(2)]).toEqual([
      'number',
      'string',
      'negative',
      'large',
      undefined,
    ]);
    expect(table.size).toBe(4);
    expect(table.delete('1')).toBe(true);
    expect(table.delete('1')).toBe(false);
    expect(table.has(1)).toBe(true);
    expect(table.size).toBe(3);
  });

  it('replaces the value of an id set twice', () => {
    const table = new IdTable<string>();
    table.set(7, 'a');
    table.set(7, 'b');
    expect([table.get(7), table.size]).toEqual(['b', 1]);
  });

  it('deletes an id only while it holds the value given', () => {
    const table = new IdTable<object>();
    const [first, later] = [{}, {}];
    table.set(3, first);
    table.set('3', first);
    expect([table.deleteIf(3, later), table.deleteIf('3', later), table.size]).toEqual([false, false, 2]);
    table.set(3, later);
    expect([table.deleteIf(3, first), table.get(3)]).toEqual([false, later]);
    expect([table.deleteIf(3, later), table.deleteIf('3', first), table.deleteIf(9, first), table.size]).toEqual([
      true,
      true,
      false,
      0,
    ]);
  });

  it('adds an id only once, and takes it out with its value', () => {
    const table = new IdTable<string>();
    expect([table.add(7, 'a'), table.add(7, 'b'), table.add('7', 'c'), table.add('7', 'd')]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect([table.get(7), table.get('7'), table.size]).toEqual(['a', 'c', 2]);
    expect([table.take(7), table.take(7), table.take('7'), table.take('7'), table.size]).toEqual([
      'a',
      undefined,
      'c',
      undefined,
      0,
    ]);
  });

  it('finds every id after deletions inside runs of colliding ids', () => {
    const table = new IdTable<number>();
    // 8 slots at first: 0, 8, 16 and 24 share a home slot, 1 and 9 the next one.
    for (const id of [0, 8, 1, 16, 9, 24]) table.set(id, id * 10);
    expect(table.delete(8)).toBe(true);
    expect(table.delete(1)).toBe(true);
    expect([0, 8, 1, 16, 9, 24].map((id) => table.get(id))).toEqual([0, undefined, undefined, 160, 90, 240]);
    expect(table.size).toBe(4);
  });

  it('behaves as a Map through random sets, adds, takes and deletes, across growth and wrap-around', () => {
    const next = random(19);
    const table = new IdTable<number>();
    const model = new Map<RequestId, number>();
    const mismatches: string[] = [];
    for (let step = 0; step < 20_000; step++) {
      // Ids from a sliding window (as request ids in flight are), now and then a far or a string one.
      const roll = next();
      const id: RequestId =
        roll < 0.05
          ? `s${Math.floor(next() * 50)}`
          : roll < 0.1
            ? Math.floor(next() * 1e6)
            : step + Math.floor(next() * 64);
      const action = next();
      if (action < 0.35) {
        table.set(id, step);
        model.set(id, step);
      } else if (action < 0.55) {
        // Adds only an id the table does not hold, as a Map would be asked `has` first.
        const added = !model.has(id);
        if (added) model.set(id, step);
        if (table.add(id, step) !== added) mismatches.push(`add ${id} at ${step}`);
      } else if (action < 0.75) {
        const held = model.get(id);
        model.delete(id);
        if (table.take(id) !== held) mismatches.push(`take ${id} at ${step}`);
      } else if (table.delete(id) !== model.delete(id)) mismatches.push(`delete ${id} at ${step}`);
      if (table.size !== model.size) mismatches.push(`size at ${step}`);
      if (step % 500 === 0)
        for (const [key, value] of model) if (table.get(key) !== value) mismatches.push(`get ${key} at ${step}`);
    }
    expect(mismatches).toEqual([]);
    expect(model.size).toBeGreaterThan(1_000);
  });

  it('behaves as a Map for calls in flight answered oldest first, with a colliding id now and then', () => {
    // A window of consecutive ids, each at home; a far id that lands in the window's run is pushed
    // on, and deleting ids before and after it must keep every id findable.
    const next = random(7);
    const table = new IdTable<number>();
    const model = new Map<RequestId, number>();
    const mismatches: string[] = [];
    let oldest = 0;
    for (let id = 0; id < 5_000; id++) {
      table.set(id, id);
      model.set(id, id);
      if (next() < 0.1) {
        const far = id + 128 * (1 + Math.floor(next() * 4));
        table.set(far, -far);
        model.set(far, -far);
      }
      while (model.size > 64) {
        const gone = [...model.keys()][next() < 0.8 ? 0 : Math.floor(next() * model.size)]!;
        if (table.delete(gone) !== model.delete(gone)) mismatches.push(`delete ${gone}`);
        oldest++;
      }
      for (const [key, value] of model) if (table.get(key) !== value) mismatches.push(`get ${key} after ${id}`);
      if (table.size !== model.size) mismatches.push(`size after ${id}`);
    }
    expect(mismatches).toEqual([]);
    expect(oldest).toBeGreaterThan(4_000);
  });

  it('drains integer ids in ascending order, then the others in insertion order', () => {
    const table = new IdTable<string>();
    for (const id of [5, 'b', 3, 'a', 12, 4]) table.set(id, String(id));
    expect(table.drain().map(([id]) => id)).toEqual([3, 4, 5, 12, 'b', 'a']);
    expect(table.size).toBe(0);
    expect(table.get(5)).toBeUndefined();
    table.set(5, 'again');
    expect(table.get(5)).toBe('again');
  });

  it('gives up the slots of a large burst once it has emptied', () => {
    const table = new IdTable<number>();
    for (let id = 0; id < 3_000; id++) table.set(id, id);
    const grown = (table as unknown as { slots: unknown[] }).slots.length;
    expect(grown).toBeGreaterThanOrEqual(2 * 6_000);
    for (let id = 0; id < 3_000; id++) table.delete(id);
    expect((table as unknown as { slots: unknown[] | undefined }).slots).toBeUndefined();
    table.set(1, 1);
    expect(table.get(1)).toBe(1);
  });
});
