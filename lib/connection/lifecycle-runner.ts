import type { SchedulerLike, Subscription } from '../rx/rxjs';
import { createActor } from 'xstate';
import type {
  AnyActorRef,
  AnyActorScope,
  AnyMachineSnapshot,
  AnyStateMachine,
  EventFromLogic,
  InputFrom,
  InspectionEvent,
  Observer,
  SnapshotFrom,
} from 'xstate';
import { assertRunnable } from './lifecycle-check';
import { sharedInitialStep, sharedStep, shareRestored } from './shared-steps';
import type { Step, StepAction } from './shared-steps';

/** A delayed event as XState's pure transition functions describe it (`xstate.raise` with a delay). */
interface DelayedRaise {
  readonly event: { readonly type: string };
  readonly id?: string;
  readonly delay?: number;
}

/** An inert actor scope of a machine that collects the actions of one step instead of running them. */
interface Stepper {
  readonly scope: AnyActorScope;
  readonly actions: StepAction[];
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
    } as unknown as AnyActorScope;
    stepper = { scope, actions };
    steppers.set(machine, stepper);
  }
  return stepper;
}

/** The actions collected by the last step, taken out of the stepper. */
function taken(stepper: Stepper): readonly StepAction[] {
  return stepper.actions.splice(0);
}

/** Options of {@link LifecycleRunner} beyond its machine, input and scheduler. */
export interface LifecycleRunnerOptions<TMachine extends AnyStateMachine> {
  /** Called after every transition (not for the initial snapshot: read `snapshot` for that). */
  readonly onTransition?: (snapshot: SnapshotFrom<TMachine>, owner: unknown) => void;
  /**
   * Receives XState inspection events, shaped as an actor's inspector gets them: `@xstate.actor`
   * once, `@xstate.event` for each event received, `@xstate.action` for each action executed and
   * `@xstate.snapshot` after each step (the initial one included). A function, or an observer whose
   * `next` is called, as `createActor` takes it (`inspector.inspect` of `@statelyai/inspect` is
   * one). Read once, by the constructor.
   */
  readonly inspect?: ((event: InspectionEvent) => void) | Observer<InspectionEvent>;
  /** Receives the machine's `log` actions. Default: nowhere. */
  readonly log?: (label: string | undefined, value: unknown) => void;
  /** Receives the events of the machine's `emit` actions. */
  readonly onEmit?: (event: { readonly type: string }) => void;
  /**
   * Starts from a snapshot `getPersistedSnapshot` returned instead of the initial state; the
   * delayed events of the states it is in are armed again from now.
   */
  readonly snapshot?: unknown;
  /**
   * Says that the machine is pure: its guards, assigns and delays read only its context and the
   * event's properties (one set to undefined reads as a missing one). Its runners then share
   * snapshots and steps (see `shared-steps.ts`): runners of equal input start from one snapshot,
   * and a step from a shared snapshot on an event equal to one taken before reaches the snapshot
   * that step reached, its actions executed again.
   */
  readonly sharesSteps?: boolean;
}

let runners = 0;

/** Where a runner's inspection events go, and the actor they name. Made only when someone inspects. */
interface Inspection {
  readonly next: (event: InspectionEvent) => void;
  readonly actorRef: AnyActorRef;
}

/**
 * `inspect` as one function, as XState's `toObserver` makes it: an observer's `next` called on the
 * observer. Undefined when nothing would receive the events (no `inspect`, or an observer without
 * `next`), so that the runner then does no inspection work at all.
 */
function inspectorOf(
  inspect: LifecycleRunnerOptions<AnyStateMachine>['inspect'],
): ((event: InspectionEvent) => void) | undefined {
  if (inspect === undefined || inspect === null) return undefined;
  if (typeof inspect === 'function') return inspect;
  if (typeof inspect !== 'object')
    throw new TypeError(`inspect must be a function or an observer with next, not ${typeof inspect}`);
  const next = inspect.next;
  if (next === undefined) return undefined;
  if (typeof next !== 'function') throw new TypeError(`inspect.next must be a function, not ${typeof next}`);
  return (event) => next.call(inspect, event);
}

/**
 * A stand-in actor reference for inspection events, with what inspectors read of one: its id, session
 * id and snapshot, and its logic (the machine), whose `config` `@statelyai/inspect` sends so that
 * the inspector draws the machine.
 */
function standInActorRef(machine: AnyStateMachine, snapshot: () => AnyMachineSnapshot): AnyActorRef {
  return {
    id: machine.id,
    sessionId: `lifecycle:${++runners}`,
    logic: machine,
    getSnapshot: snapshot,
  } as unknown as AnyActorRef;
}

/** Snapshots restored from persisted ones, by the persisted object: restoring the same one twice gives the same. */
const restored = new WeakMap<object, AnyMachineSnapshot>();

/**
 * `persisted` restored: once per persisted object, since snapshots are immutable (many sessions
 * start from one persisted lifecycle: see `impliedLifecycle`).
 */
function restoredSnapshot(machine: AnyStateMachine, persisted: unknown, scope: AnyActorScope): AnyMachineSnapshot {
  const cacheable = typeof persisted === 'object' && persisted !== null;
  let snapshot = cacheable ? restored.get(persisted) : undefined;
  if (snapshot === undefined || snapshot.machine !== machine) {
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
  for (const _ in snapshot.children) return snapshot;
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

/**
 * Runs one connection's lifecycle machine without an actor, as an XState actor would: the machine's
 * own transition functions compute every snapshot, so the machine stays the single description of
 * the lifecycle, and every action it may hold is executed here: `assign` (applied by the
 * transition), `raise` with or without a delay (timed on the connection's scheduler), `cancel`,
 * `log`, `emit` and custom actions. A machine that uses anything else (`sendTo`, `spawnChild`,
 * `enqueueActions`, an `invoke`, ...) is refused when the first runner for it is made. An idle
 * connection then holds one snapshot instead of an actor with its own system, mailbox and scope
 * (about 4.5 KiB a connection; see benchmarks/results/ANALYSIS.md). `spec/connection/
 * lifecycle-runner.spec.ts` runs random event sequences through this and through `createActor` and
 * requires the same snapshots.
 *
 * Events sent after the machine has reached a final state are ignored.
 */
export class LifecycleRunner<TMachine extends AnyStateMachine> {
  private current: AnyMachineSnapshot;
  /** Pending delayed events by id; created when the first one is armed. */
  private delayed: Map<string, Subscription> | undefined;
  private readonly options: LifecycleRunnerOptions<TMachine>;
  /** Undefined unless someone inspects: every inspection step is behind one check of it. */
  private readonly inspection: Inspection | undefined;

  constructor(
    private readonly machine: TMachine,
    input: InputFrom<TMachine>,
    private readonly scheduler: SchedulerLike,
    options: LifecycleRunnerOptions<TMachine> | ((snapshot: SnapshotFrom<TMachine>) => void) = {},
    /** Passed to `onTransition` as its second argument: lets one options object serve many runners. */
    private readonly owner?: unknown,
  ) {
    this.options = typeof options === 'function' ? { onTransition: options } : options;
    const next = inspectorOf(this.options.inspect);
    this.inspection = next === undefined ? undefined : { next, actorRef: standInActorRef(machine, () => this.current) };
    const stepper = stepperOf(machine);
    let initial: Step | undefined;
    if (this.options.snapshot !== undefined) {
      this.current = restoredSnapshot(machine, this.options.snapshot, stepper.scope);
      if (this.options.sharesSteps) shareRestored(machine, this.current);
    } else {
      const compute = () => ({
        snapshot: sharedShape(machine, machine.getInitialSnapshot(stepper.scope, input) as AnyMachineSnapshot),
        actions: taken(stepper),
      });
      initial = this.options.sharesSteps ? sharedInitialStep(machine, input, compute) : compute();
      this.current = initial.snapshot;
    }
    if (this.inspection) {
      const { actorRef } = this.inspection;
      this.inspection.next({ type: '@xstate.actor', actorRef, rootId: actorRef.sessionId } as InspectionEvent);
    }
    if (initial === undefined) this.rearm();
    else this.execute(initial.actions);
    this.inspectSnapshot({ type: 'xstate.init', input });
  }

  get snapshot(): SnapshotFrom<TMachine> {
    return this.current as SnapshotFrom<TMachine>;
  }

  /** The snapshot in a form that survives JSON, for `snapshot` in the options of a later runner. */
  getPersistedSnapshot(): unknown {
    return this.machine.getPersistedSnapshot(this.current);
  }

  send(event: EventFromLogic<TMachine>): void {
    if (this.current.status !== 'active') return;
    if (this.inspection) {
      const { actorRef } = this.inspection;
      this.inspection.next({
        type: '@xstate.event',
        event,
        sourceRef: undefined,
        actorRef,
        rootId: actorRef.sessionId,
      } as InspectionEvent);
    }
    const { snapshot, actions } = this.options.sharesSteps
      ? sharedStep(this.machine, this.current, event, () => this.step(event))
      : this.step(event);
    this.current = snapshot;
    if (this.current.status === 'active') this.execute(actions);
    else this.stop();
    this.inspectSnapshot(event);
    this.options.onTransition?.(this.current as SnapshotFrom<TMachine>, this.owner);
  }

  /** The step from the current snapshot on `event`, computed by the machine. */
  private step(event: EventFromLogic<TMachine>): Step {
    const stepper = stepperOf(this.machine);
    const snapshot = this.machine.transition(this.current, event, stepper.scope) as AnyMachineSnapshot;
    return { snapshot: sharedShape(this.machine, snapshot), actions: taken(stepper) };
  }

  /** Cancels the pending delayed events; the snapshot stays readable. */
  stop(): void {
    const delayed = this.delayed;
    this.delayed = undefined;
    if (delayed) for (const timer of delayed.values()) timer.unsubscribe();
  }

  private inspectSnapshot(event: unknown): void {
    if (!this.inspection) return;
    const { actorRef } = this.inspection;
    this.inspection.next({
      type: '@xstate.snapshot',
      snapshot: this.current,
      event,
      actorRef,
      rootId: actorRef.sessionId,
    } as InspectionEvent);
  }

  private execute(actions: readonly StepAction[]): void {
    for (const action of actions) {
      if (this.inspection) {
        const { actorRef } = this.inspection;
        this.inspection.next({
          type: '@xstate.action',
          action: { type: action.type, params: action.params },
          actorRef,
          rootId: actorRef.sessionId,
        } as InspectionEvent);
      }
      switch (action.type) {
        case 'xstate.raise':
          this.arm(action.params as DelayedRaise);
          break;
        case 'xstate.cancel':
          this.cancel((action.params as { sendId: string }).sendId);
          break;
        case 'xstate.log': {
          const { label, value } = action.params as { label?: string; value: unknown };
          this.options.log?.(label, value);
          break;
        }
        case 'xstate.emit':
          this.options.onEmit?.((action.params as { event: { type: string } }).event);
          break;
        case 'xstate.assign':
          break; // applied by the transition itself
        default:
          // A custom action runs its implementation; assertRunnable refused every other built-in.
          action.exec?.(action.info, action.params);
      }
    }
  }

  private arm({ event, id = event.type, delay = 0 }: DelayedRaise): void {
    this.cancel(id);
    const timer = this.scheduler.schedule(() => {
      this.forget(id);
      this.send(event as EventFromLogic<TMachine>);
    }, delay);
    (this.delayed ??= new Map()).set(id, timer);
  }

  private cancel(id: string): void {
    const timer = this.delayed?.get(id);
    if (!timer) return;
    this.forget(id);
    timer.unsubscribe();
  }

  /** Drops a delayed event that fired or was cancelled; the map goes with the last one (an idle connection keeps none). */
  private forget(id: string): void {
    if (this.delayed?.delete(id) && this.delayed.size === 0) this.delayed = undefined;
  }

  /** Arms again the `after` events of the states a restored snapshot is in, with their full delays. */
  private rearm(): void {
    if (this.current.status !== 'active') return;
    const delays = this.machine.implementations.delays as Record<string, unknown>;
    for (const node of this.current._nodes) {
      for (const transition of node.after) {
        const configured: unknown = transition.delay;
        const named = typeof configured === 'string' ? delays[configured] : configured;
        const delay =
          typeof named === 'function'
            ? (named as (args: unknown) => number)({ context: this.current.context, event: { type: 'xstate.init' } })
            : named;
        if (typeof delay === 'number' && Number.isFinite(delay))
          this.arm({ event: { type: transition.eventType }, id: transition.eventType, delay });
      }
    }
  }
}
