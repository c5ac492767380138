import { filter, firstValueFrom, VirtualTimeScheduler } from 'rxjs';
import { connect, createInMemoryPair, createServer } from '../../lib/index';
import { assign, setup } from 'xstate';
import { LifecycleRunner } from '../../lib/connection/lifecycle-runner';
import { serverLifecycle } from '../../lib/connection/server-lifecycle.machine';
import { dataKey } from '../../lib/connection/shared-steps';
import { seeded } from '../../benchmarks/hostile-frames';

const input = { supported: ['2025-06-18', '2025-11-25'], initializeTimeoutMs: 1000 };
const initialize = {
  type: 'peer.initialize',
  protocolVersion: '2025-06-18',
  capabilities: { roots: {} },
  clientInfo: { name: 'c', version: '1' },
} as const;

function runner(machineInput: object = input, scheduler = new VirtualTimeScheduler()) {
  return new LifecycleRunner(serverLifecycle, machineInput as typeof input, scheduler, { sharesSteps: true });
}

describe('dataKey', () => {
  it('gives equal plain data one key, whatever the objects holding it', () => {
    const make = () => ({ a: [1, 'two', null, true, { b: 2.5 }], c: 0, e: 'x' });
    expect(dataKey(make())).toBe(dataKey(make()));
    expect(dataKey(Object.assign(Object.create(null) as object, { a: 1 }))).toBe(dataKey({ a: 1 }));
  });

  it('takes a property set to undefined for a missing one, as JSON does', () => {
    expect(dataKey({ a: 1, b: undefined })).toBe(dataKey({ a: 1 }));
  });

  it.each([
    ['a string and the same text in an array', 'a', ['a']],
    ['a number and its text', { a: 1 }, { a: '1' }],
    ['true and the string "true"', true, 'true'],
    ['keys in another order', { a: 1, b: 2 }, { b: 2, a: 1 }],
    ['a string that spells out more keys', { a: 'x","b":1' }, { a: 'x', b: 1 }],
    ['an object and an array of its values', { 0: 'a' }, ['a']],
    ['nested arrays', [[1], 2], [[1, 2]]],
    ['a longer array', ['a', 'b'], ['a', 'b', 'c']],
  ])('tells apart %s', (_what, one, other) => {
    expect(dataKey(one)).toEqual(expect.any(String));
    expect(dataKey(other)).toEqual(expect.any(String));
    expect(dataKey(one)).not.toBe(dataKey(other));
  });

  it.each([
    ['a Date', { at: new Date(0) }],
    ['a class instance', { value: new (class Point {})() }],
    ['a function', { f: () => 1 }],
    ['an object with toJSON', { value: { toJSON: () => 'x' } }],
    ['a bigint', { n: 1n }],
    ['a symbol', { s: Symbol('s') }],
    ['a Map', new Map()],
    ['negative zero, which JSON writes as 0', { n: -0 }],
    ['NaN and the infinities, which JSON writes as null', [NaN, Infinity, -Infinity]],
    ['undefined in an array, which JSON writes as null', [undefined]],
    ['more than a kilobyte of data', { text: 'x'.repeat(1100) }],
    ['many small values', Array.from({ length: 600 }, () => 1)],
  ])('gives no key for %s', (_what, value) => {
    expect(dataKey(value)).toBeUndefined();
  });

  it('gives two random values one key exactly when they are the same data (seeded)', () => {
    const random = seeded(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const leaves = ['', 'a', '1', '"a"', 0, 1, 12, 1.5, true, false, null];
    const value = (depth: number): unknown => {
      const kind = depth > 2 ? 0 : Math.floor(random() * 3);
      if (kind === 0) return pick(leaves);
      const size = Math.floor(random() * 3);
      if (kind === 1) return Array.from({ length: size }, () => value(depth + 1));
      const entries = Array.from({ length: size }, () => [pick(['a', 'b', '1']), pick([value(depth + 1), undefined])]);
      return Object.fromEntries(entries);
    };
    // The same data with every kind tagged and undefined properties left out.
    const reference = (v: unknown): unknown => {
      if (Array.isArray(v)) return ['array', ...v.map(reference)];
      if (typeof v === 'object' && v !== null) {
        const present = Object.entries(v).filter(([, x]) => x !== undefined);
        return ['object', ...present.map(([k, x]) => [k, reference(x)])];
      }
      return [typeof v, v];
    };
    let same = 0;
    for (let i = 0; i < 3000; i++) {
      const [one, other] = [value(0), value(0)];
      const equal = JSON.stringify(reference(one)) === JSON.stringify(reference(other));
      if (equal) same++;
      expect([one, other, dataKey(one) === dataKey(other)]).toEqual([one, other, equal]);
    }
    expect(same).toBeGreaterThan(50);
  });

  it('gives no key, and does not overflow the stack, for data nested ten thousand deep', () => {
    let arrays: unknown = 1;
    let objects: unknown = 1;
    for (let i = 0; i < 10_000; i++) {
      arrays = [arrays];
      objects = { a: objects };
    }
    expect(dataKey(arrays)).toBeUndefined();
    expect(dataKey(objects)).toBeUndefined();
  });

  it('gives no key for a cycle (the budget ends it)', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(dataKey(cycle)).toBeUndefined();
  });
});

describe('LifecycleRunner with shared steps', () => {
  it('starts runners of equal input from one snapshot, and a different input from another', () => {
    const one = runner({ supported: ['2025-06-18', '2025-11-25'], initializeTimeoutMs: 1000 });
    const two = runner({ supported: ['2025-06-18', '2025-11-25'], initializeTimeoutMs: 1000 });
    const other = runner({ supported: ['2025-06-18', '2025-11-25'], initializeTimeoutMs: 2000 });
    expect(two.snapshot).toBe(one.snapshot);
    expect(other.snapshot).not.toBe(one.snapshot);
    expect(other.snapshot.value).toEqual(one.snapshot.value);
  });

  it('shares the snapshot reached on an equal event, and not the one reached on another', () => {
    const one = runner();
    const two = runner();
    const three = runner();
    one.send({ ...initialize, clientInfo: { ...initialize.clientInfo } });
    two.send({ ...initialize, clientInfo: { ...initialize.clientInfo } });
    three.send({ ...initialize, clientInfo: { name: 'other', version: '1' } });
    expect(two.snapshot).toBe(one.snapshot);
    expect(three.snapshot).not.toBe(one.snapshot);
    expect(three.snapshot.context.clientInfo).toEqual({ name: 'other', version: '1' });
    one.send({ type: 'peer.initialized' });
    two.send({ type: 'peer.initialized' });
    expect(two.snapshot).toBe(one.snapshot);
    expect(one.snapshot.value).toBe('operating');
    // Each runner still moves on its own.
    one.send({ type: 'transport.closed', reason: 'gone' });
    expect(one.snapshot.status).toBe('done');
    expect(two.snapshot.status).toBe('active');
  });

  it("executes a shared step's actions for every runner: each arms its own deadline", () => {
    const first = new VirtualTimeScheduler();
    const second = new VirtualTimeScheduler();
    const one = runner(input, first);
    const two = runner(input, second);
    expect(two.snapshot).toBe(one.snapshot);
    expect(first.actions).toHaveLength(1);
    expect(second.actions).toHaveLength(1);
    second.flush();
    expect(two.snapshot.status).toBe('done');
    expect(two.snapshot.context.closeReason).toMatch(/no initialize/);
    expect(one.snapshot.status).toBe('active');
    first.flush();
    expect(one.snapshot).toBe(two.snapshot);
  });

  it('steps on its own an event that is not plain data', () => {
    const one = runner();
    const two = runner();
    const capabilities = { when: new Date(0) };
    one.send({ ...initialize, capabilities } as never);
    two.send({ ...initialize, capabilities } as never);
    expect(two.snapshot).not.toBe(one.snapshot);
    expect(two.snapshot.value).toEqual(one.snapshot.value);
  });

  it('stops sharing below a snapshot once its tree holds its limit of steps, and still steps correctly', () => {
    const machine = setup({
      types: { context: {} as { n: number }, events: {} as { type: 'bump'; by: number } },
      actions: { bump: assign({ n: ({ context, event }) => context.n + event.by }) },
    }).createMachine({ context: { n: 0 }, on: { bump: { actions: 'bump' } } });
    const make = () => new LifecycleRunner(machine, undefined, new VirtualTimeScheduler(), { sharesSteps: true });
    const one = make();
    const two = make();
    const shared: boolean[] = [];
    for (let i = 0; i < 200; i++) {
      one.send({ type: 'bump', by: 1 });
      two.send({ type: 'bump', by: 1 });
      shared.push(one.snapshot === two.snapshot);
    }
    expect(one.snapshot.context.n).toBe(200);
    expect(two.snapshot.context.n).toBe(200);
    // The same event over and over makes a chain of new snapshots: shared up to the limit only.
    expect(shared.indexOf(false)).toBeGreaterThan(50);
    expect(shared.slice(shared.indexOf(false)).every((same) => !same)).toBe(true);
  });

  it('does not share steps without the option', () => {
    const scheduler = new VirtualTimeScheduler();
    const one = new LifecycleRunner(serverLifecycle, input, scheduler);
    const two = new LifecycleRunner(serverLifecycle, input, scheduler);
    expect(two.snapshot).not.toBe(one.snapshot);
  });

  it('lets connections that open alike hold one lifecycle snapshot on each side, and close on their own', async () => {
    const server = createServer({ name: 'alike', version: '1.0.0' });
    const open = async () => {
      const [clientSide, serverSide] = createInMemoryPair();
      const session = server.connect(serverSide);
      const client = await connect(clientSide, { name: 'c', version: '1.0.0', protocolVersion: '2025-11-25' });
      await firstValueFrom(session.connection.state$.pipe(filter((state) => state === 'operating')));
      return { client, session };
    };
    const lifecycleOf = (connection: unknown) => (connection as { lifecycle: { snapshot: object } }).lifecycle.snapshot;
    const one = await open();
    const two = await open();
    expect(lifecycleOf(two.client.connection)).toBe(lifecycleOf(one.client.connection));
    expect(lifecycleOf(two.session.connection)).toBe(lifecycleOf(one.session.connection));
    one.client.close();
    await firstValueFrom(one.session.closed$);
    expect(one.session.connection.state).toBe('shutdown');
    expect(two.client.connection.state).toBe('operating');
    expect(two.session.connection.state).toBe('operating');
    await expect(two.client.promises.ping()).resolves.toBeUndefined();
    two.client.close();
    server.close();
  });
});
