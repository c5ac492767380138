import { VirtualTimeScheduler } from 'rxjs';
import { assign, createMachine, emit, log, raise, sendTo, setup, spawnChild } from 'xstate';
import type { AnyActorRef, AnyMachineSnapshot, InspectionEvent } from 'xstate';
import { clientLifecycle } from '../../lib/connection/client-lifecycle.machine';
import { LifecycleRunner } from '../../lib/connection/lifecycle-runner';
import { serverLifecycle } from '../../lib/connection/server-lifecycle.machine';

const input = { supported: ['2025-06-18', '2025-11-25'], initializeTimeoutMs: 1000 };
const initialize = {
  type: 'peer.initialize',
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'c', version: '1' },
} as const;

function run(machineInput = input) {
  const scheduler = new VirtualTimeScheduler();
  const seen: string[] = [];
  const runner = new LifecycleRunner(serverLifecycle, machineInput, scheduler, (snapshot) =>
    seen.push(JSON.stringify(snapshot.value)),
  );
  let time = 0;
  const advance = (ms: number) => {
    time += ms;
    scheduler.maxFrames = time;
    scheduler.flush();
  };
  return { runner, scheduler, seen, advance };
}

describe('LifecycleRunner', () => {
  it('starts in the machine initial state without reporting a transition', () => {
    const { runner, seen } = run();
    expect(runner.snapshot.value).toEqual({ initializing: 'awaitingInitialize' });
    expect(runner.snapshot.hasTag('accepts-initialize')).toBe(true);
    expect(seen).toEqual([]);
  });

  it('applies events through the machine and reports each transition', () => {
    const { runner, seen } = run();
    runner.send(initialize);
    runner.send({ type: 'peer.initialized' });
    expect(runner.snapshot.value).toBe('operating');
    expect(runner.snapshot.context.revision).toBe('2025-06-18');
    expect(seen).toEqual(['{"initializing":"awaitingInitialized"}', '"operating"']);
  });

  it('fires a delayed event on the scheduler when its state is not left in time', () => {
    const { runner, advance } = run();
    advance(999);
    expect(runner.snapshot.status).toBe('active');
    advance(1);
    expect(runner.snapshot.status).toBe('done');
    expect(runner.snapshot.context.closeReason).toMatch(/no initialize/);
  });

  it('cancels a delayed event when its state is left', () => {
    const { runner, scheduler, advance } = run();
    runner.send(initialize);
    expect(scheduler.actions).toHaveLength(0);
    advance(5000);
    expect(runner.snapshot.status).toBe('active');
    expect(runner.snapshot.hasTag('accepts-requests')).toBe(true);
  });

  it('arms no timer for an infinite delay (the machine chooses the untimed state)', () => {
    const { runner, scheduler } = run({ ...input, initializeTimeoutMs: Infinity });
    expect(runner.snapshot.value).toEqual({ initializing: 'awaitingInitializeUntimed' });
    expect(scheduler.actions).toHaveLength(0);
  });

  it('ignores events once final, and stop() cancels pending delays', () => {
    const { runner, scheduler, seen } = run();
    runner.send({ type: 'local.close', reason: 'bye' });
    expect(runner.snapshot.status).toBe('done');
    expect(scheduler.actions.every((action) => action.closed)).toBe(true);
    runner.send(initialize);
    expect(runner.snapshot.context.closeReason).toBe('bye');
    expect(seen).toHaveLength(1);

    const other = run();
    other.runner.stop();
    other.advance(2000);
    expect(other.runner.snapshot.status).toBe('active');
  });

  it('runs a custom action as an actor would', () => {
    const calls: string[] = [];
    const machine = setup({
      types: { events: {} as { type: 'go' }, context: {} as { count: number } },
      actions: { record: () => void calls.push('record'), bump: assign({ count: ({ context }) => context.count + 1 }) },
    }).createMachine({
      context: { count: 0 },
      initial: 'a',
      states: { a: { on: { go: { target: 'b', actions: ['record', 'bump'] } } }, b: {} },
    });
    const runner = new LifecycleRunner(machine, undefined, new VirtualTimeScheduler(), () => undefined);
    runner.send({ type: 'go' });
    expect(calls).toEqual(['record']);
    expect(runner.snapshot.context.count).toBe(1);
  });

  it('runs log and emit actions, and refuses a machine whose actions it cannot execute when it is defined', () => {
    const logged: unknown[] = [];
    const emitted: string[] = [];
    const talkative = setup({ types: { events: {} as { type: 'go' } } }).createMachine({
      initial: 'a',
      states: { a: { on: { go: { target: 'b', actions: [log('going'), emit({ type: 'went' })] } } }, b: {} },
    });
    const runner = new LifecycleRunner(talkative, undefined, new VirtualTimeScheduler(), {
      log: (_label, value) => logged.push(value),
      onEmit: (event) => emitted.push(event.type),
    });
    runner.send({ type: 'go' });
    expect(logged).toEqual(['going']);
    expect(emitted).toEqual(['went']);

    const sender = setup({ actions: { tell: sendTo('other', { type: 'hi' }) } }).createMachine({
      initial: 'a',
      states: { a: { entry: 'tell' } },
    });
    expect(() => new LifecycleRunner(sender, undefined, new VirtualTimeScheduler())).toThrow(/uses xstate\.sendTo/);
    const spawner = createMachine({ initial: 'a', states: { a: { entry: spawnChild(createMachine({})) } } });
    expect(() => new LifecycleRunner(spawner, undefined, new VirtualTimeScheduler())).toThrow(/xstate\.spawnChild/);
    const invoker = createMachine({ initial: 'a', states: { a: { invoke: { src: createMachine({}) } } } });
    expect(() => new LifecycleRunner(invoker, undefined, new VirtualTimeScheduler())).toThrow(/invokes an actor/);
  });

  it('reports each event, action and snapshot to an inspector, in the shape of XState inspection events', () => {
    const events: InspectionEvent[] = [];
    const runner = new LifecycleRunner(serverLifecycle, input, new VirtualTimeScheduler(), {
      inspect: (event) => events.push(event),
    });
    runner.send(initialize);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('@xstate.actor');
    expect(types).toContain('@xstate.action'); // the initialize deadline's delayed raise
    const received = events.filter((event) => event.type === '@xstate.event');
    expect(received.map((event) => (event as { event: { type: string } }).event.type)).toEqual([
      'xstate.init',
      'peer.initialize',
    ]);
    const snapshots = events.filter((event) => event.type === '@xstate.snapshot');
    expect(snapshots.map((event) => (event as unknown as { snapshot: { value: unknown } }).snapshot.value)).toEqual([
      { initializing: 'awaitingInitialize' },
      { initializing: 'awaitingInitialized' },
    ]);
    expect(new Set(events.map((event) => event.actorRef.sessionId)).size).toBe(1);
  });

  it("reports the same events to an observer's next, called on the observer, as to a function", () => {
    const called: InspectionEvent[] = [];
    const byFunction = new LifecycleRunner(serverLifecycle, input, new VirtualTimeScheduler(), {
      inspect: (event) => called.push(event),
    });
    byFunction.send(initialize);
    byFunction.send({ type: 'peer.initialized' });
    const observer = {
      seen: [] as InspectionEvent[],
      next(event: InspectionEvent) {
        this.seen.push(event);
      },
    };
    const byObserver = new LifecycleRunner(serverLifecycle, input, new VirtualTimeScheduler(), { inspect: observer });
    byObserver.send(initialize);
    byObserver.send({ type: 'peer.initialized' });
    expect(called.length).toBeGreaterThan(0);
    expect(observer.seen.map((event) => event.type)).toEqual(called.map((event) => event.type));
    expect(observer.seen.at(-1)).toMatchObject({ type: '@xstate.snapshot', snapshot: { value: 'operating' } });
  });

  it('names the machine as the logic of the actor its events are about, so that an inspector can draw it', () => {
    const events: InspectionEvent[] = [];
    new LifecycleRunner(clientLifecycle, { supported: input.supported }, new VirtualTimeScheduler(), {
      inspect: { next: (event) => events.push(event) },
    });
    const actor = events.find((event) => event.type === '@xstate.actor')!.actorRef as unknown as Record<
      string,
      unknown
    >;
    expect(actor.id).toBe('clientLifecycle');
    expect(actor.logic).toBe(clientLifecycle);
    expect((actor.getSnapshot as () => AnyMachineSnapshot)().value).toEqual({ initializing: 'idle' });
  });

  it("reads inspect and an observer's next once, when made, never per event", () => {
    const reads = { inspect: 0, next: 0 };
    const events: InspectionEvent[] = [];
    const observer = {
      get next() {
        reads.next++;
        return (event: InspectionEvent) => void events.push(event);
      },
    };
    const options = {
      get inspect() {
        reads.inspect++;
        return observer;
      },
    };
    const runner = new LifecycleRunner(serverLifecycle, input, new VirtualTimeScheduler(), options);
    runner.send(initialize);
    runner.send({ type: 'peer.initialized' });
    runner.send({ type: 'transport.closed', reason: 'gone' });
    expect(events.filter((event) => event.type === '@xstate.snapshot')).toHaveLength(4);
    expect(reads).toEqual({ inspect: 1, next: 1 });
  });

  it('does no inspection work without inspect: the option is read once, when made, and never again', () => {
    let reads = 0;
    const options = {
      sharesSteps: true,
      get inspect() {
        reads++;
        return undefined;
      },
    };
    const scheduler = new VirtualTimeScheduler();
    const runner = new LifecycleRunner(serverLifecycle, input, scheduler, options);
    expect(reads).toBe(1);
    runner.send(initialize);
    runner.send({ type: 'peer.initialized' });
    scheduler.flush();
    runner.send({ type: 'transport.closed', reason: 'gone' });
    expect(runner.snapshot.status).toBe('done');
    expect(reads).toBe(1);
  });

  it('refuses an inspect that is neither a function nor an observer, naming what it got', () => {
    const inspect = 'yes' as unknown as () => void;
    expect(() => new LifecycleRunner(serverLifecycle, input, new VirtualTimeScheduler(), { inspect })).toThrow(
      new TypeError('inspect must be a function or an observer with next, not string'),
    );
  });

  it('persists a snapshot that survives JSON, and restores it with its deadlines armed again', () => {
    const { runner } = run();
    runner.send({ type: 'peer.modernRequest', protocolVersion: '2026-07-28' });
    const persisted = JSON.parse(JSON.stringify(runner.getPersistedSnapshot()));
    const restored = new LifecycleRunner(serverLifecycle, input, new VirtualTimeScheduler(), { snapshot: persisted });
    expect(restored.snapshot.value).toBe('modern');
    expect(restored.snapshot.hasTag('accepts-modern-requests')).toBe(true);

    const waiting = run();
    const scheduler = new VirtualTimeScheduler();
    const again = new LifecycleRunner(serverLifecycle, input, scheduler, {
      snapshot: JSON.parse(JSON.stringify(waiting.runner.getPersistedSnapshot())),
    });
    expect(again.snapshot.value).toEqual({ initializing: 'awaitingInitialize' });
    scheduler.maxFrames = input.initializeTimeoutMs;
    scheduler.flush();
    expect(again.snapshot.status).toBe('done');
    expect(again.snapshot.context.closeReason).toMatch(/no initialize/);
  });

  it('restores many runners from one persisted snapshot once, and each then moves on its own', () => {
    const { runner } = run();
    runner.send(initialize);
    runner.send({ type: 'peer.initialized' });
    const persisted = runner.getPersistedSnapshot();
    const first = new LifecycleRunner(serverLifecycle, input, new VirtualTimeScheduler(), { snapshot: persisted });
    const second = new LifecycleRunner(serverLifecycle, input, new VirtualTimeScheduler(), { snapshot: persisted });
    // One restore for both: snapshots are immutable.
    expect(second.snapshot).toBe(first.snapshot);
    expect(first.snapshot.value).toBe('operating');
    expect(first.snapshot.context.revision).toBe('2025-06-18');
    first.send({ type: 'local.close', reason: 'done' });
    expect(first.snapshot.status).toBe('done');
    expect(second.snapshot.value).toBe('operating');
    expect(second.snapshot.status).toBe('active');
    // A copy of it (as read back from storage) is restored afresh, to an equal state.
    const copy = new LifecycleRunner(serverLifecycle, input, new VirtualTimeScheduler(), {
      snapshot: JSON.parse(JSON.stringify(persisted)),
    });
    expect(copy.snapshot).not.toBe(second.snapshot);
    expect(copy.snapshot.value).toBe('operating');
  });

  describe('as createActor, where it once differed', () => {
    const calls: string[] = [];
    const note = (what: string) => () => void calls.push(what);
    beforeEach(() => void (calls.length = 0));

    it('processes a raise without a delay once, within the step', () => {
      const machine = setup({ actions: { counted: note('counted') } }).createMachine({
        initial: 'a',
        states: { a: { on: { go: { actions: raise({ type: 'inner' }) }, inner: { actions: 'counted' } } } },
      });
      const scheduler = new VirtualTimeScheduler();
      new LifecycleRunner(machine, undefined, scheduler).send({ type: 'go' });
      scheduler.flush();
      expect(calls).toEqual(['counted']);
    });

    it('runs the exit and entry actions of a step into a final state, then cancels what is pending', () => {
      const machine = setup({
        actions: { left: note('left'), arrived: note('arrived'), late: note('late') },
      }).createMachine({
        initial: 'a',
        states: {
          a: { exit: 'left', after: { 10: { actions: 'late' } }, on: { end: 'done' } },
          done: { type: 'final', entry: 'arrived' },
        },
      });
      const scheduler = new VirtualTimeScheduler();
      const runner = new LifecycleRunner(machine, undefined, scheduler);
      runner.send({ type: 'end' });
      scheduler.flush();
      expect(calls).toEqual(['left', 'arrived']);
      expect(runner.snapshot.status).toBe('done');
    });

    it('fires two delayed raises of one event without an id both', () => {
      const machine = setup({ actions: { ticked: note('tick') } }).createMachine({
        initial: 'a',
        states: { a: { on: { go: { actions: raise({ type: 'tick' }, { delay: 5 }) }, tick: { actions: 'ticked' } } } },
      });
      const scheduler = new VirtualTimeScheduler();
      const runner = new LifecycleRunner(machine, undefined, scheduler);
      runner.send({ type: 'go' });
      runner.send({ type: 'go' });
      scheduler.flush();
      expect(calls).toEqual(['tick', 'tick']);
    });

    it('ends in status error when an action throws, reports the error and ignores what comes after', () => {
      const boom = new Error('boom');
      const fail = () => {
        throw boom;
      };
      const states = { a: { on: { go: { target: 'b', actions: 'fail' as const } } }, b: {} };
      const machine = setup({ actions: { fail } }).createMachine({ initial: 'a', states });
      const errors: unknown[] = [];
      const onError = (error: unknown) => void errors.push(error);
      const runner = new LifecycleRunner(machine, undefined, new VirtualTimeScheduler(), { onError });
      runner.send({ type: 'go' });
      expect(errors).toEqual([boom]);
      expect([runner.snapshot.status, runner.snapshot.error, runner.snapshot.value]).toEqual(['error', boom, 'a']);
      runner.send({ type: 'go' });
      expect(errors).toHaveLength(1);
      // Without onError the caller gets it, and the runner has ended all the same.
      const bare = new LifecycleRunner(machine, undefined, new VirtualTimeScheduler());
      expect(() => bare.send({ type: 'go' })).toThrow(boom);
      expect(bare.snapshot.status).toBe('error');
    });

    it('fires a restored delay after the time it had left, not its full delay', () => {
      const scheduler = new VirtualTimeScheduler();
      const runner = new LifecycleRunner(serverLifecycle, input, scheduler);
      scheduler.maxFrames = 600;
      scheduler.flush();
      scheduler.frame = 600;
      const persisted = JSON.parse(JSON.stringify(runner.getPersistedSnapshot())) as { scheduledEvents: unknown[] };
      expect(persisted.scheduledEvents).toEqual([expect.objectContaining({ delay: 1000, startedAt: 0 })]);
      runner.stop();
      const later = new VirtualTimeScheduler();
      later.frame = 600;
      const restored = new LifecycleRunner(serverLifecycle, input, later, { snapshot: persisted });
      later.maxFrames = 999;
      later.flush();
      expect(restored.snapshot.status).toBe('active');
      later.maxFrames = 1000;
      later.flush();
      expect(restored.snapshot.status).toBe('done');
      // A snapshot persisted before delays were kept arms its `after` events again, from now.
      const legacy = new VirtualTimeScheduler();
      legacy.frame = 600;
      const { scheduledEvents: _, ...old } = persisted;
      const rearmed = new LifecycleRunner(serverLifecycle, input, legacy, { snapshot: old });
      expect(legacy.actions.map((action) => action.delay)).toEqual([1600]);
      expect(rearmed.snapshot.status).toBe('active');
    });

    it('gives custom actions the runner that runs them as self, in a shared step too', () => {
      const selves: AnyActorRef[] = [];
      const machine = setup({
        actions: { echo: ({ self }) => void (selves.push(self), self.send({ type: 'echo' })) },
      }).createMachine({
        initial: 'a',
        states: { a: { on: { go: { target: 'b', actions: 'echo' } } }, b: { on: { echo: 'c' } }, c: {} },
      });
      const one = new LifecycleRunner(machine, undefined, new VirtualTimeScheduler(), { sharesSteps: true });
      const two = new LifecycleRunner(machine, undefined, new VirtualTimeScheduler(), { sharesSteps: true });
      one.send({ type: 'go' });
      two.send({ type: 'go' });
      expect([one.snapshot.value, two.snapshot.value]).toEqual(['c', 'c']);
      expect(selves[1]).not.toBe(selves[0]);
      expect(selves[1]!.getSnapshot()).toBe(two.snapshot);
    });

    it('refuses a machine that declares actors to spawn, naming them', () => {
      const spawner = setup({ actors: { child: createMachine({}) } }).createMachine({ id: 'parent' });
      expect(() => new LifecycleRunner(spawner, undefined, new VirtualTimeScheduler())).toThrow(
        new TypeError('lifecycle machine: parent declares actors (child), which the lifecycle runner cannot spawn'),
      );
    });
  });
});
