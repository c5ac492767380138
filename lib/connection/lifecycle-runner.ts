import type { SchedulerLike, Subscription } from 'rxjs';
import { createActor } from 'xstate';
import type {
  AnyActorScope,
  AnyMachineSnapshot,
  AnyStateMachine,
  EventFromLogic,
  InputFrom,
  SnapshotFrom,
} from 'xstate';

/** A delayed event as XState's pure transition functions describe it (`xstate.raise` with a delay). */
interface DelayedRaise {
  readonly event: { readonly type: string };
  readonly id?: string;
  readonly delay?: number;
}

/** What executing an action needs to know of it: built-in actions are told apart by type. */
interface LifecycleAction {
  readonly type: string;
  readonly info?: unknown;
  readonly params?: unknown;
  readonly exec?: (info: unknown, params: unknown) => void;
}

/** An inert actor scope of a machine that collects the actions of one step instead of running them. */
interface Stepper {
  readonly scope: AnyActorScope;
  readonly actions: LifecycleAction[];
}

const steppers = new WeakMap<AnyStateMachine, Stepper>();

/**
 * What XState's pure `initialTransition`/`transition` do, with one inert scope per machine instead
 * of a new one (an actor and its system) per call, which cost about 60 µs a step. Our lifecycle
 * machines spawn no children, so nothing registers in the shared scope's system.
 */
function stepperOf(machine: AnyStateMachine): Stepper {
  let stepper = steppers.get(machine);
  if (!stepper) {
    const self = createActor(machine);
    const actions: LifecycleAction[] = [];
    const scope = {
      self,
      id: '',
      sessionId: '',
      system: self.system,
      logger: () => undefined,
      defer: () => undefined,
      emit: () => undefined,
      stopChild: () => undefined,
      actionExecutor: (action: LifecycleAction) => void actions.push(action),
    } as unknown as AnyActorScope;
    stepper = { scope, actions };
    steppers.set(machine, stepper);
  }
  return stepper;
}

/** The actions collected by the last step, taken out of the stepper. */
function taken(stepper: Stepper): readonly LifecycleAction[] {
  return stepper.actions.splice(0);
}

/**
 * Runs one connection's lifecycle machine without an actor. The machine's own transition functions
 * (as XState's pure `initialTransition` and `transition` use them) compute every next snapshot from the machine, so the machine
 * stays the single description of the lifecycle; the only effects our lifecycle machines have are
 * delayed events (`after`), timed here on the connection's scheduler and cancelled when the state
 * that armed them is left (custom actions, should a machine gain any, run as they would in an actor). An idle connection then holds one snapshot instead of an actor with its
 * own system, mailbox and scope (about 4.5 KiB a connection; see benchmarks/results/ANALYSIS.md).
 *
 * Events sent after the machine has reached a final state are ignored.
 */
export class LifecycleRunner<TMachine extends AnyStateMachine> {
  private current: AnyMachineSnapshot;
  /** Pending delayed events by id; created when the first one is armed. */
  private delayed: Map<string, Subscription> | undefined;

  constructor(
    private readonly machine: TMachine,
    input: InputFrom<TMachine>,
    private readonly scheduler: SchedulerLike,
    /** Called after every transition (not for the initial snapshot: read `snapshot` for that). */
    private readonly onTransition: (snapshot: SnapshotFrom<TMachine>) => void,
  ) {
    const stepper = stepperOf(machine);
    this.current = machine.getInitialSnapshot(stepper.scope, input) as AnyMachineSnapshot;
    this.execute(taken(stepper));
  }

  get snapshot(): SnapshotFrom<TMachine> {
    return this.current as SnapshotFrom<TMachine>;
  }

  send(event: EventFromLogic<TMachine>): void {
    if (this.current.status !== 'active') return;
    const stepper = stepperOf(this.machine);
    this.current = this.machine.transition(this.current, event, stepper.scope) as AnyMachineSnapshot;
    const actions = taken(stepper);
    if (this.current.status === 'active') this.execute(actions);
    else this.stop();
    this.onTransition(this.current as SnapshotFrom<TMachine>);
  }

  /** Cancels the pending delayed events; the snapshot stays readable. */
  stop(): void {
    const delayed = this.delayed;
    this.delayed = undefined;
    if (delayed) for (const timer of delayed.values()) timer.unsubscribe();
  }

  private execute(actions: readonly LifecycleAction[]): void {
    for (const action of actions) {
      if (action.type === 'xstate.raise') this.arm(action.params as DelayedRaise);
      else if (action.type === 'xstate.cancel') this.cancel((action.params as { sendId: string }).sendId);
      // assign is applied by the transition itself; a custom action runs its implementation.
      else if (!action.type.startsWith('xstate.')) action.exec?.(action.info, action.params);
    }
  }

  private arm({ event, id = event.type, delay = 0 }: DelayedRaise): void {
    this.cancel(id);
    const timer = this.scheduler.schedule(() => {
      this.delayed?.delete(id);
      this.send(event as EventFromLogic<TMachine>);
    }, delay);
    (this.delayed ??= new Map()).set(id, timer);
  }

  private cancel(id: string): void {
    const timer = this.delayed?.get(id);
    if (!timer) return;
    this.delayed!.delete(id);
    timer.unsubscribe();
  }
}
