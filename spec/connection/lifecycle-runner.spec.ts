import { VirtualTimeScheduler } from 'rxjs';
import { assign, setup } from 'xstate';
import { LifecycleRunner } from '../../lib/connection/lifecycle-runner';
import { serverLifecycle } from '../../lib/connection/server-lifecycle.machine';

const input = { supported: ['2025-06-18', '2025-11-25'], initializeTimeoutMs: 1000 };
const initialize = { type: 'peer.initialize', protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } as const;

function run(machineInput = input) {
  const scheduler = new VirtualTimeScheduler();
  const seen: string[] = [];
  const runner = new LifecycleRunner(serverLifecycle, machineInput, scheduler, (snapshot) => seen.push(JSON.stringify(snapshot.value)));
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
});
