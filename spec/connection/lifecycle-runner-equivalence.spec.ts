import { VirtualTimeScheduler } from 'rxjs';
import { assign, cancel, createActor, emit, log, raise, setup, SimulatedClock } from 'xstate';
import type { AnyActorRef, AnyMachineSnapshot, AnyStateMachine, InspectionEvent } from 'xstate';
import { clientLifecycle } from '../../lib/connection/client-lifecycle.machine';
import { LifecycleRunner } from '../../lib/connection/lifecycle-runner';
import { serverLifecycle } from '../../lib/connection/server-lifecycle.machine';
import { seeded } from '../../benchmarks/hostile-frames';

type Random = () => number;
type Trace = unknown[][];
type Context = { readonly count: number };
/** `record` throws when the context's count modulo 7 is `throwsAt`. */
type RecordParams = { readonly tag: string; readonly throwsAt?: number };

const EXTERNAL = ['a', 'b', 'c'] as const;
/** Events only the machine raises (and `d`, raised only with a delay): see {@link Reach}. */
const RAISED = ['r1', 'r2'] as const;
/**
 * What the actions of a list may raise, so that every step ends and delayed events never multiply:
 * on an outside event, anything (its delayed events are `RAISED` ones); on a raised or delayed
 * event, in entries, exits, `after`, `always` and `onDone`, delayed `d` only; on `d`, nothing.
 */
type Reach = 'outer' | 'inner' | 'quiet';

const int = (random: Random, below: number) => Math.floor(random() * below);
const pick = <T>(random: Random, items: readonly T[]): T => items[int(random, items.length)]!;

/** One generated state, with its document-order index (an eventless step only goes forward in it). */
interface Node {
  readonly path: string;
  readonly index: number;
  readonly final: boolean;
  readonly children: Node[];
  readonly config: Record<string, unknown>;
}

/**
 * A random machine: a small tree of states (compound, atomic, final) whose transitions, entries
 * and exits hold every action the runner accepts (assign, raise with and without delay and id,
 * cancel, log, emit, a custom action that records its call and sometimes throws, one that sends
 * to `self`), with guards on the context, `after`, `always` and `onDone`. Eventless and done
 * transitions go forward in document order, and what each list of actions may raise is bounded
 * (see {@link Reach}), so every step ends.
 */
function generateMachine(random: Random, seed: number): AnyStateMachine {
  const nodes: Node[] = [];
  const make = (path: string, depth: number, mayBeFinal: boolean): Node => {
    const final = mayBeFinal && random() < 0.25;
    const node: Node = { path, index: nodes.length, final, children: [], config: {} };
    nodes.push(node);
    if (!final && depth < 2 && random() < 0.45) {
      const size = 2 + int(random, 2);
      for (let i = 0; i < size; i++) node.children.push(make(`${path}.s${i}`, depth + 1, i > 0));
    }
    return node;
  };
  const roots = Array.from({ length: 2 + int(random, 3) }, (_, i) => make(`s${i}`, 0, i > 0));
  const descendantOf = (node: Node, of: Node) => node.path.startsWith(`${of.path}.`);
  const targetOf = (from: Node, forward: boolean) => {
    const options = forward ? nodes.filter((n) => n.index > from.index && !descendantOf(n, from)) : nodes;
    return options.length === 0 ? undefined : `#m.${pick(random, options).path}`;
  };
  let timerIds = 0;
  const guard = () => {
    const modulus = 2 + int(random, 3);
    const rest = int(random, modulus);
    return ({ context }: { context: Context }) => context.count % modulus === rest;
  };
  const action = (reach: Reach): unknown => {
    const roll = int(random, reach === 'outer' ? 10 : reach === 'inner' ? 7 : 5);
    const delayed = { type: reach === 'outer' ? pick(random, RAISED) : 'd' };
    switch (roll) {
      case 0:
        return assign({ count: ({ context, event }) => (context as Context).count + (event.n ?? 1) });
      case 1:
        return { type: 'record', params: { tag: `r${int(random, 100)}`, throwsAt: pick(random, [undefined, 0, 3]) } };
      case 2:
        return log(({ context }) => (context as Context).count, random() < 0.5 ? 'count' : undefined);
      case 3:
        return emit(({ context }) => ({ type: 'emitted', count: (context as Context).count }));
      case 4:
        return cancel(`t${int(random, 3)}`);
      case 5:
        return raise(delayed, { delay: 1 + int(random, 30) });
      case 6:
        return raise(delayed, { delay: 1 + int(random, 30), id: `t${timerIds++ % 3}` });
      case 7:
        return { type: 'tell', params: { type: pick(random, RAISED) } };
      default:
        return raise({ type: pick(random, RAISED) });
    }
  };
  const actions = (reach: Reach) => Array.from({ length: int(random, 3) }, () => action(reach));
  const transition = (from: Node, reach: Reach, forward = false) => ({
    target: random() < 0.2 && !forward ? undefined : targetOf(from, forward),
    guard: random() < 0.4 ? guard() : undefined,
    actions: actions(reach),
  });
  for (const node of nodes) {
    const config = node.config;
    if (node.final) {
      config.type = 'final';
    } else {
      const on: Record<string, unknown> = {};
      for (const type of EXTERNAL)
        if (random() < 0.5) on[type] = [transition(node, 'outer'), transition(node, 'outer')];
      for (const type of RAISED) if (random() < 0.4) on[type] = transition(node, 'inner');
      if (random() < 0.3) on.d = { guard: guard(), actions: actions('quiet') };
      config.on = on;
      if (random() < 0.3) config.after = { [1 + int(random, 40)]: transition(node, 'inner') };
      const always = transition(node, 'inner', true);
      if (random() < 0.25 && always.target !== undefined) config.always = { ...always, guard: guard() };
      if (node.children.length > 0) {
        config.initial = 's0';
        const done = transition(node, 'inner', true);
        if (random() < 0.5 && done.target !== undefined) config.onDone = done;
      }
    }
    config.entry = actions('inner');
    config.exit = actions('inner');
    if (node.children.length > 0)
      config.states = Object.fromEntries(node.children.map((c) => [c.path.split('.').at(-1), c.config]));
  }
  const unrecorded = () => {
    throw new Error(`machine ${seed} runs a custom action without a recorder`);
  };
  const machine = setup({
    types: { context: {} as Context },
    actions: { record: unrecorded, tell: unrecorded },
  }).createMachine({
    id: 'm',
    context: { count: 0 },
    initial: 's0',
    states: Object.fromEntries(roots.map((root) => [root.path, root.config])),
  } as never);
  return machine as unknown as AnyStateMachine;
}

/** What a custom action is given. */
type ActionArgs = { context: Context; event: { type: string }; self: AnyActorRef };

/** `machine` with its custom action recording into `trace`, and throwing where its params say. */
function recording(machine: AnyStateMachine, trace: Trace): AnyStateMachine {
  return machine.provide({
    actions: {
      record: ({ context, event, self }: ActionArgs, params: RecordParams) => {
        trace.push(['record', params.tag, context.count, event.type, self.getSnapshot().value]);
        if (params.throwsAt === context.count % 7) throw new Error(`record ${params.tag} failed at ${context.count}`);
      },
      // Sends to itself, as a custom action may: the event waits for the step being taken.
      tell: ({ self }: ActionArgs, params: { type: string }) => self.send(params),
    },
  });
}

/** The parts of an inspection event that mean something across the two: no refs, no session ids. */
function meaning(event: InspectionEvent): unknown {
  switch (event.type) {
    case '@xstate.actor':
      return ['actor'];
    case '@xstate.event':
      return ['event', event.event, event.sourceRef === undefined ? 'outside' : 'self'];
    case '@xstate.action':
      return ['action', event.action.type, event.action.params];
    case '@xstate.microstep':
      return ['microstep', event.event, (event.snapshot as AnyMachineSnapshot).value, event._transitions.length];
    case '@xstate.snapshot': {
      const snapshot = event.snapshot as AnyMachineSnapshot;
      return ['snapshot', snapshot.value, snapshot.status, snapshot.context, (event.event as { type: string }).type];
    }
    default:
      return [event.type];
  }
}

/** What is compared of a snapshot: value, status, context, tags and the error's message. */
function observed(snapshot: AnyMachineSnapshot): unknown {
  return {
    value: snapshot.value,
    status: snapshot.status,
    context: snapshot.context,
    tags: snapshot.tags === undefined ? [] : [...snapshot.tags].sort(),
    error: snapshot.status === 'error' ? String(snapshot.error) : undefined,
  };
}

/** An XState actor of `machine` on a simulated clock, with its actions, logs, emits, errors and inspection recorded. */
function actorSide(machine: AnyStateMachine, input: unknown) {
  const trace: Trace = [];
  const inspected: InspectionEvent[] = [];
  const clock = new SimulatedClock();
  const actor = createActor(recording(machine, trace), {
    input,
    clock,
    inspect: (event) => inspected.push(event),
    logger: (...args: unknown[]) => trace.push(['log', ...args]),
  });
  actor.on('*', (event) => trace.push(['emit', event]));
  actor.subscribe({ error: (error) => trace.push(['error', String(error)]) });
  actor.start();
  const advance = (ms: number) => {
    // One millisecond at a time: the clock starts a timer set while it flushes from the time it was told.
    for (let i = 0; i < ms; i++) clock.increment(1);
  };
  return { trace, inspected, snapshot: () => actor.getSnapshot() as AnyMachineSnapshot, send: actor.send, advance };
}

/** A LifecycleRunner of `machine` on a virtual-time scheduler, recorded as the actor is. */
function runnerSide(machine: AnyStateMachine, input: unknown, sharesSteps: boolean) {
  const trace: Trace = [];
  let inspected: InspectionEvent[] = [];
  let now = 0;
  let scheduler = new VirtualTimeScheduler();
  const recorded = recording(machine, trace);
  const make = (snapshot?: unknown) =>
    new LifecycleRunner(recorded, input as never, scheduler, {
      sharesSteps,
      snapshot,
      inspect: (event) => inspected.push(event),
      log: (label, value) => trace.push(label === undefined ? ['log', value] : ['log', label, value]),
      onEmit: (event) => trace.push(['emit', event]),
      onError: (error) => trace.push(['error', String(error)]),
    });
  let runner = make();
  const advance = (ms: number) => {
    now += ms;
    scheduler.maxFrames = now;
    scheduler.flush();
    scheduler.frame = now;
  };
  /** Persists the runner (through JSON), drops it and goes on with one restored on a fresh scheduler. */
  const restore = () => {
    const persisted = JSON.parse(JSON.stringify(runner.getPersistedSnapshot())) as { scheduledEvents: object[] };
    if (persisted.scheduledEvents.length > 0) covered.add('restored pending delays');
    if (persisted.scheduledEvents.some((event) => 'superseded' in event)) covered.add('restored superseded delays');
    runner.stop();
    scheduler = new VirtualTimeScheduler();
    scheduler.frame = now;
    inspected = [];
    runner = make(persisted);
    return inspected.splice(0).map(meaning);
  };
  return {
    trace,
    inspected: () => inspected,
    snapshot: () => runner.snapshot as AnyMachineSnapshot,
    send: (event: { type: string }) => runner.send(event as never),
    advance,
    restore,
  };
}

/** Runs `steps` random events and time steps through both, comparing after each; restores the runner at `restoreAt`. */
function compare(
  machine: AnyStateMachine,
  input: unknown,
  events: readonly { type: string }[],
  options: { seed: number; sharesSteps: boolean; steps: number; restoreAt?: number; maxMs: number },
): void {
  const random = seeded(options.seed * 7919 + 1);
  const actor = actorSide(machine, input);
  const runner = runnerSide(machine, input, options.sharesSteps);
  // What was compared already: each check compares what came since (inspection restarts with a restore).
  const seen = { trace: 0, runner: 0, actor: 0 };
  const same = (where: string) => {
    const ours = {
      snapshot: observed(runner.snapshot()),
      trace: runner.trace.slice(seen.trace),
      inspected: runner.inspected().slice(seen.runner).map(meaning),
    };
    const theirs = {
      snapshot: observed(actor.snapshot()),
      trace: actor.trace.slice(seen.trace),
      inspected: actor.inspected.slice(seen.actor).map(meaning),
    };
    // One matcher call when they differ (for its diff); a string comparison when they do not.
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) expect({ where, ...ours }).toEqual({ where, ...theirs });
    seen.trace = runner.trace.length;
    seen.runner = runner.inspected().length;
    seen.actor = actor.inspected.length;
  };
  same('start');
  for (let step = 0; step < options.steps; step++) {
    if (step === options.restoreAt) {
      const errors = runner.trace.length;
      const started = runner.restore();
      seen.runner = 0;
      const init = [['actor'], ['event', { type: 'xstate.init', input }, 'outside']];
      if (actor.snapshot().status === 'error') {
        // As an actor made from it: the error is reported again, and that is all it does.
        expect(started).toEqual(init);
        expect(runner.trace.slice(errors)).toEqual([['error', expect.any(String)]]);
        expect(runner.snapshot().status).toBe('error');
        return;
      }
      const { value, status, context } = actor.snapshot();
      expect(started).toEqual([...init, ['snapshot', value, status, context, 'xstate.init']]);
      same(`restored at step ${step}`);
      // A done machine is not restarted (nor its timers, as an actor's start does not): nothing more to compare.
      if (status === 'done') return;
    }
    if (random() < 0.35) {
      const ms = 1 + int(random, options.maxMs);
      actor.advance(ms);
      runner.advance(ms);
      same(`step ${step}: ${ms} ms later`);
    } else {
      const event = pick(random, events);
      actor.send(event as never);
      runner.send(event);
      same(`step ${step}: ${JSON.stringify(event)}`);
    }
  }
  covered.add(`ended ${actor.snapshot().status}`);
  for (const [kind] of actor.trace) covered.add(String(kind));
  for (const event of actor.inspected) covered.add(JSON.stringify((meaning(event) as unknown[]).slice(0, 2)));
}

/** What the generated runs went through (filled by `compare`), to check that they cover what they claim to. */
const covered = new Set<string>();

const generatedEvents = [
  ...EXTERNAL.map((type) => ({ type })),
  { type: 'a', n: 2 },
  { type: 'b', n: 3 },
  { type: 'c', n: 5 },
];
const seeds = Array.from({ length: 60 }, (_, i) => i + 1);

describe('LifecycleRunner against createActor', () => {
  let generatedRuns = 0;
  afterAll(() => {
    // Checked when every generated run ran (not when a filter picked some): what they went through.
    if (generatedRuns < seeds.length * 4) return;
    for (const outcome of ['active', 'done', 'error']) expect(covered).toContain(`ended ${outcome}`);
    for (const kind of ['record', 'log', 'emit', 'error', 'restored pending delays', 'restored superseded delays'])
      expect(covered).toContain(kind);
    const actions = ['xstate.raise', 'xstate.cancel', 'xstate.log', 'xstate.emit', 'record', 'tell'];
    for (const type of actions) expect(covered).toContain(JSON.stringify(['action', type]));
    expect(covered).toContain(JSON.stringify(['microstep', { type: 'xstate.done.state.m.s0' }]));
  });

  describe.each([false, true])('on generated machines (shared steps: %s)', (sharesSteps) => {
    it.each(seeds)('executes the same actions and reports the same inspection events (machine %i)', (seed) => {
      const machine = generateMachine(seeded(seed), seed);
      compare(machine, undefined, generatedEvents, { seed, sharesSteps, steps: 30, maxMs: 25 });
      generatedRuns++;
    });

    it.each(seeds)('goes on as the actor after a restore mid-way, its timers firing on time (machine %i)', (seed) => {
      const machine = generateMachine(seeded(seed), seed);
      const restoreAt = 3 + (seed % 20);
      compare(machine, undefined, generatedEvents, { seed: seed + 1000, sharesSteps, steps: 30, restoreAt, maxMs: 25 });
      generatedRuns++;
    });
  });

  const hello = { capabilities: {}, clientInfo: { name: 'c', version: '1' } };
  const welcome = { capabilities: {}, serverInfo: { name: 's', version: '1' } };
  describe.each([
    // A short initialize deadline, so that time passing decides as often as events do.
    [
      'server',
      serverLifecycle,
      { supported: ['2025-06-18', '2025-11-25'], initializeTimeoutMs: 150 },
      [
        { type: 'peer.initialize', protocolVersion: '2025-06-18', ...hello },
        { type: 'peer.initialize', protocolVersion: '1999-01-01', ...hello },
        { type: 'peer.initialized' },
        { type: 'peer.modernRequest', protocolVersion: '2026-07-28' },
        { type: 'transport.closed', reason: 'gone' },
      ],
    ],
    [
      'client',
      clientLifecycle,
      { supported: ['2025-11-25', '2026-07-28'] },
      [
        { type: 'local.initialize' },
        { type: 'peer.initializeResult', protocolVersion: '2025-11-25', ...welcome },
        { type: 'peer.initializeResult', protocolVersion: '1999-01-01', ...welcome },
        { type: 'peer.initializeFailed', reason: 'no' },
        { type: 'local.modern', protocolVersion: '2026-07-28' },
        { type: 'local.close', reason: 'bye' },
      ],
    ],
  ] as const)('on the %s lifecycle', (_name, machine, input, events) => {
    const cases = [1, 2, 3, 4, 5, 6, 7, 8].flatMap((seed) => [false, true].map((shares) => [seed, shares] as const));
    it.each(cases)('gives the same snapshots, actions and inspection (seed %i, shared: %s)', (seed, sharesSteps) => {
      compare(machine as AnyStateMachine, input, events, { seed, sharesSteps, steps: 30, maxMs: 600 });
    });
    it.each(cases)('goes on as the actor after a restore mid-way (seed %i, shared steps: %s)', (seed, sharesSteps) => {
      const restoreAt = 1 + seed;
      compare(machine as AnyStateMachine, input, events, { seed, sharesSteps, steps: 30, restoreAt, maxMs: 100 });
    });
  });
});
