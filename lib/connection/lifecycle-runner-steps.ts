/**
 * How `LifecycleRunner` computes its steps: XState's own transition functions, with one inert
 * actor scope per machine that collects the actions of a step instead of running them, and the
 * snapshots they reach sharing what follows from their states alone.
 */
import { createActor } from 'xstate';
import type { AnyActorRef, AnyActorScope, AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { assertRunnable } from './lifecycle-check';
import type { Step, StepAction } from './shared-steps';

/** An inert actor scope of a machine that collects the actions of one step instead of running them. */
interface Stepper {
  /** Its `self` is the actor the actions of a step are given: the stepping runner, else an inert one. */
  readonly scope: AnyActorScope & { self: AnyActorRef };
  readonly inert: AnyActorRef;
  readonly actions: StepAction[];
  /** Whether the step being taken keeps XState's `@xstate.microstep` inspection events among its actions. */
  microsteps: boolean;
}

/** The type under which a step keeps a microstep inspection event (params: the event) among its actions. */
export const MICROSTEP = '@xstate.microstep';

/**
 * A step that threw (a guard, an assign, a delay or the context factory): the error, and the actions
 * the step had reached before it threw, which an actor would have executed by then.
 */
export class StepFailure {
  constructor(
    readonly error: unknown,
    readonly actions: readonly StepAction[],
  ) {}
}

const steppers = new WeakMap<AnyStateMachine, Stepper>();

/**
 * What XState's pure `initialTransition`/`transition` do, with one inert scope per machine instead
 * of a new one (an actor and its system) per call, which cost about 60 µs a step. The machine is
 * checked once, here, to use only the actions the runner executes (`assertRunnable`), so no
 * action can reach the inert scope's stubs and be dropped.
 */
function stepperOf(machine: AnyStateMachine): Stepper {
  let stepper = steppers.get(machine);
  if (!stepper) {
    assertRunnable(machine);
    const self = createActor(machine);
    const actions: StepAction[] = [];
    // XState reports each microstep to the scope's system while it steps: kept only when asked for.
    const system = self.system as unknown as { _sendInspectionEvent: (event: unknown) => void };
    system._sendInspectionEvent = (event) => {
      if (stepper!.microsteps) actions.push({ type: MICROSTEP, params: event });
    };
    const scope = {
      self,
      id: '',
      sessionId: '',
      system: self.system,
      logger: () => undefined,
      defer: () => undefined,
      emit: () => undefined,
      stopChild: () => undefined,
      actionExecutor: (action: StepAction) => void actions.push(action),
    } as unknown as AnyActorScope & { self: AnyActorRef };
    stepper = { scope, inert: self, actions, microsteps: false };
    steppers.set(machine, stepper);
  }
  return stepper;
}

/** Checks `machine` (once) and readies its stepper; throws a TypeError when the runner cannot run it. */
export function prepare(machine: AnyStateMachine): void {
  stepperOf(machine);
}

/**
 * The initial step of `machine` from `input`; throws a StepFailure when the machine throws. With
 * `microsteps`, its actions hold the microstep inspection events too; with `self`, its actions are
 * given that actor.
 */
export function initialStep(machine: AnyStateMachine, input: unknown, microsteps = false, self?: AnyActorRef): Step {
  const stepper = stepperOf(machine);
  let snapshot: AnyMachineSnapshot;
  stepper.microsteps = microsteps;
  if (self) stepper.scope.self = self;
  try {
    snapshot = machine.getInitialSnapshot(stepper.scope, input) as AnyMachineSnapshot;
  } catch (error) {
    throw new StepFailure(error, stepper.actions.splice(0));
  } finally {
    stepper.microsteps = false;
    stepper.scope.self = stepper.inert;
  }
  const actions = stepper.actions.splice(0);
  return { snapshot: sharedShape(machine, snapshot), actions };
}

/**
 * The step of `machine` from `snapshot` on `event`; throws a StepFailure when the machine throws.
 * With `microsteps`, its actions hold the microstep inspection events too; with `self`, its actions
 * are given that actor.
 */
export function nextStep(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  event: unknown,
  microsteps = false,
  self?: AnyActorRef,
): Step {
  const stepper = stepperOf(machine);
  let next: AnyMachineSnapshot;
  stepper.microsteps = microsteps;
  if (self) stepper.scope.self = self;
  try {
    next = machine.transition(snapshot, event as never, stepper.scope) as AnyMachineSnapshot;
  } catch (error) {
    throw new StepFailure(error, stepper.actions.splice(0));
  } finally {
    stepper.microsteps = false;
    stepper.scope.self = stepper.inert;
  }
  const actions = stepper.actions.splice(0);
  return { snapshot: sharedShape(machine, next), actions };
}

/** Snapshots restored from persisted ones, by the persisted object: restoring the same one twice gives the same. */
const restored = new WeakMap<object, AnyMachineSnapshot>();

/**
 * `persisted` restored: once per persisted object, since snapshots are immutable (many sessions
 * start from one persisted lifecycle: see `impliedLifecycle`).
 */
export function restoredSnapshot(machine: AnyStateMachine, persisted: unknown): AnyMachineSnapshot {
  const cacheable = typeof persisted === 'object' && persisted !== null;
  let snapshot = cacheable ? restored.get(persisted) : undefined;
  if (snapshot === undefined || snapshot.machine !== machine) {
    const { scope } = stepperOf(machine);
    snapshot = sharedShape(machine, machine.restoreSnapshot!(persisted as never, scope) as AnyMachineSnapshot);
    if (cacheable) restored.set(persisted, snapshot);
  }
  return snapshot;
}

/** The parts of a snapshot that depend only on the states it is in. */
interface StateShape {
  readonly _nodes: unknown;
  readonly tags: unknown;
  readonly value: unknown;
  readonly children: unknown;
  readonly historyValue: unknown;
}

const shapes = new WeakMap<AnyStateMachine, Map<string, StateShape>>();

/**
 * Makes `snapshot` share, with every other snapshot of the same states, the parts that follow from
 * the states alone (the state nodes, tags, value, and the empty children and history): each
 * transition builds them anew, and an idle connection would hold its own copies (a `Set` of tags
 * and its table, about half a kilobyte). Snapshots are immutable, so sharing them is safe.
 */
function sharedShape(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): AnyMachineSnapshot {
  for (const id in snapshot.children)
    throw new TypeError(`lifecycle machine: ${machine.id} spawned ${id}, which the lifecycle runner cannot run`);
  for (const _ in snapshot.historyValue) return snapshot;
  let byStates = shapes.get(machine);
  if (!byStates) shapes.set(machine, (byStates = new Map()));
  const key = snapshot._nodes.map((node) => node.id).join(' ');
  let shape = byStates.get(key);
  if (!shape) {
    const { _nodes, tags, value, children, historyValue } = snapshot;
    byStates.set(key, (shape = { _nodes, tags, value, children, historyValue }));
  }
  Object.assign(snapshot, shape);
  return snapshot;
}
