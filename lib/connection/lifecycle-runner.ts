import type { SchedulerLike } from '../rx/rxjs';
import type { AnyActorRef, AnyMachineSnapshot, AnyStateMachine, EventFromLogic, InputFrom, SnapshotFrom } from 'xstate';
import { usesCustomActions } from './lifecycle-check';
import {
  inspectAction,
  inspectActor,
  inspectEvent,
  inspectionOf,
  inspectMicrostep,
  inspectSnapshot,
  standInActorRef,
} from './lifecycle-runner-inspection';
import type { Inspection, InspectOption } from './lifecycle-runner-inspection';
import { initialStep, MICROSTEP, nextStep, prepare, restoredSnapshot, StepFailure } from './lifecycle-runner-steps';
import { ScheduledEvents } from './lifecycle-runner-timers';
import { sharedInitialStep, sharedStep, shareRestored } from './shared-steps';
import type { Step, StepAction } from './shared-steps';

export type { PersistedScheduledEvent } from './lifecycle-runner-timers';

/** The events received while a step is taken when there are none: no array made for them. */
const NOTHING_QUEUED: Array<{ readonly type: string }> = [];

/** A raise as XState's transition functions resolve it: with a delay only when it is a delayed one. */
interface ResolvedRaise {
  readonly event: { readonly type: string };
  readonly id?: string;
  readonly delay?: number;
}

/**
 * Options of {@link LifecycleRunner} beyond its machine, input and scheduler. `TOwner` is the type of
 * the runner's `owner`, which the callbacks receive (undefined when the runner was given none).
 */
export interface LifecycleRunnerOptions<TMachine extends AnyStateMachine, TOwner = unknown> {
  /**
   * Called after every transition (not for the initial snapshot: read `snapshot` for that), as an
   * actor's observers are: after the step's actions, before its `@xstate.snapshot` inspection event.
   */
  readonly onTransition?: (snapshot: SnapshotFrom<TMachine>, owner: TOwner | undefined) => void;
  /**
   * Called when the machine throws (a custom action, a guard, an assign, a delay): the snapshot is
   * then the one before the step with status `'error'` and `error` set, and the runner ignores
   * events from then on, as an XState actor does. Without it the error is thrown to whoever sent
   * the event (or made the runner, or flushed the scheduler for a delayed event).
   */
  readonly onError?: (error: unknown, owner: TOwner | undefined) => void;
  /**
   * Receives XState inspection events, shaped as an actor's inspector gets them: `@xstate.actor`
   * once, `@xstate.event` for each event received (`xstate.init` first), `@xstate.action` for each
   * action executed and `@xstate.snapshot` after each step (the initial one included). A function,
   * or an observer whose `next` is called, as `createActor` takes it (`inspector.inspect` of
   * `@statelyai/inspect` is one). Read once, by the constructor.
   */
  readonly inspect?: InspectOption;
  /** Receives the machine's `log` actions. Default: nowhere. */
  readonly log?: (label: string | undefined, value: unknown) => void;
  /** Receives the events of the machine's `emit` actions. */
  readonly onEmit?: (event: { readonly type: string }) => void;
  /**
   * Starts from a snapshot `getPersistedSnapshot` returned instead of the initial state. Its delayed
   * events fire when they would have (each after the time it had left, on this runner's scheduler);
   * a snapshot persisted without them (`scheduledEvents`, before they were kept) arms the `after`
   * events of its states again, from now.
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

/**
 * Runs one connection's lifecycle machine without an actor, as `createActor` would: the machine's
 * own transition functions compute every snapshot, so the machine stays the single description of
 * the lifecycle, and every action it may hold is executed as an actor executes it: custom actions
 * and `log` while the step is taken, `raise` with a delay (timed on the connection's scheduler),
 * `cancel` and `emit` once it is taken; `assign` and a `raise` without a delay are the step's own.
 * Exit and entry actions of a step into a final state run, then the pending delays are cancelled.
 * A machine that throws leaves the runner in status `'error'` (see `onError`). Events received
 * while a step is taken (from a callback) wait for it, as in an actor's mailbox. A machine that uses
 * anything else (`sendTo`, `spawnChild`, `enqueueActions`, an `invoke`, declared actors, ...) is
 * refused when the first runner for it is made. Custom actions get the context, event and params,
 * and this runner as `self` (its `send` and `getSnapshot`); the `system` they get is not one this
 * runner belongs to. Unlike an actor's, `log` actions go to the `log` option (default: nowhere, not
 * the console), and `stop()` cancels the pending delays but leaves the snapshot's status as it is.
 *
 * An idle connection holds one snapshot instead of an actor with its own system, mailbox and scope
 * (about 4.5 KiB a connection; see benchmarks/results/ANALYSIS.md).
 * `spec/connection/lifecycle-runner-equivalence.spec.ts` runs generated machines, events and time
 * through this and through `createActor` and requires the same snapshots, actions and inspection.
 *
 * Events sent after the machine has reached a final state (or an error) are ignored.
 */
export class LifecycleRunner<TMachine extends AnyStateMachine, TOwner = unknown> {
  private current!: AnyMachineSnapshot;
  /** Pending delayed events; made when the first one is scheduled, dropped when none is left. */
  private timers: ScheduledEvents | undefined;
  private readonly options: LifecycleRunnerOptions<TMachine, TOwner>;
  /** Undefined unless someone inspects: every inspection step is behind one check of it. */
  private readonly inspection: Inspection | undefined;
  /**
   * Undefined unless a step is being taken; then the events received meanwhile, in order (as an
   * actor's mailbox holds them), or NOTHING_QUEUED.
   */
  private stepping: Array<{ readonly type: string }> | undefined;
  /** The runner as an actor, for inspection and for custom actions' `self`; made when first needed. */
  private ref: AnyActorRef | undefined;

  constructor(
    private readonly machine: TMachine,
    input: InputFrom<TMachine>,
    private readonly scheduler: SchedulerLike,
    options: LifecycleRunnerOptions<TMachine, TOwner> | ((snapshot: SnapshotFrom<TMachine>) => void) = {},
    /** Passed to `onTransition` and `onError` as their second argument: lets one options object serve many runners. */
    private readonly owner?: TOwner,
  ) {
    this.options = typeof options === 'function' ? { onTransition: options } : options;
    prepare(machine);
    this.inspection = inspectionOf(this.options.inspect, () => this.self);
    // Custom actions are given the runner as `self`; other actions never read it.
    const self = usesCustomActions(machine) ? this.self : undefined;
    if (this.inspection) inspectActor(this.inspection);
    const persisted = this.options.snapshot;
    let initial: Step | undefined;
    let failed: { readonly error: unknown } | undefined;
    try {
      if (persisted !== undefined) {
        this.current = restoredSnapshot(machine, persisted);
        if (this.options.sharesSteps) shareRestored(machine, this.current);
      } else {
        // An inspected runner takes its own steps, with their microsteps: shared ones have none.
        initial =
          this.options.sharesSteps && !this.inspection
            ? sharedInitialStep(machine, input, () => initialStep(machine, input, false, self))
            : initialStep(machine, input, this.inspection !== undefined, self);
        this.current = initial.snapshot;
      }
    } catch (thrown) {
      // As an actor: no snapshot of the machine at all, and no action executed.
      failed = { error: thrown instanceof StepFailure ? thrown.error : thrown };
      this.current = { status: 'error', output: undefined, error: failed.error } as unknown as AnyMachineSnapshot;
    }
    const init = { type: 'xstate.init', input };
    // An actor reports the microsteps of its initial state when it is made, before it starts.
    if (this.inspection && initial) for (const action of initial.actions) this.reportMicrostep(action);
    if (this.inspection) inspectEvent(this.inspection, init, false);
    if (failed === undefined && this.current.status === 'error') failed = { error: this.current.error };
    if (failed !== undefined) {
      this.report(failed.error);
      return;
    }
    if (initial === undefined) this.restoreTimers(persisted);
    this.stepping = NOTHING_QUEUED;
    try {
      this.start(initial?.actions, init);
      this.drain();
    } finally {
      this.stepping = undefined;
    }
  }

  /** The runner as an actor reference: what its inspection events name, and custom actions' `self`. */
  private get self(): AnyActorRef {
    return (this.ref ??= standInActorRef(this.machine, this));
  }

  get snapshot(): SnapshotFrom<TMachine> {
    return this.current as SnapshotFrom<TMachine>;
  }

  /**
   * The snapshot in a form that survives JSON, for `snapshot` in the options of a later runner: the
   * machine's persisted snapshot, with `scheduledEvents`, the delayed events pending (each with
   * when it was scheduled, by this runner's scheduler's clock, and for how long).
   */
  getPersistedSnapshot(): unknown {
    const persisted = this.machine.getPersistedSnapshot(this.current) as Record<string, unknown>;
    persisted.scheduledEvents = this.timers?.persist() ?? [];
    return persisted;
  }

  send(event: EventFromLogic<TMachine>): void {
    this.receive(event, false);
  }

  /** Cancels the pending delayed events; the snapshot stays readable. */
  stop(): void {
    this.timers?.cancelAll();
    if (this.timers?.empty) this.timers = undefined;
  }

  /** Executes the initial step's actions (none for a restored snapshot), as an actor's `start` does. */
  private start(actions: readonly StepAction[] | undefined, init: object): void {
    const snapshot = this.current;
    const failure = actions === undefined ? undefined : this.executeWhileStepping(actions, false);
    if (failure === undefined && actions !== undefined) this.executeAfterStep(actions);
    if (failure !== undefined) this.current = { ...snapshot, status: 'error', error: failure.error };
    if (this.current.status !== 'active') this.stop();
    if (failure !== undefined && this.options.onError) this.options.onError(failure.error, this.owner);
    // An actor reports its first snapshot as it was before an action failed.
    if (this.inspection) inspectSnapshot(this.inspection, snapshot, init);
    if (failure !== undefined && !this.options.onError) throw failure.error;
  }

  /** An event from outside or from a delayed event of the runner's own: inspected, then stepped on unless ended. */
  private receive(event: { readonly type: string }, fromSelf: boolean): void {
    if (this.inspection) inspectEvent(this.inspection, event, fromSelf);
    if (this.current.status !== 'active') return;
    if (this.stepping !== undefined) {
      if (this.stepping === NOTHING_QUEUED) this.stepping = [];
      this.stepping.push(event);
      return;
    }
    this.stepping = NOTHING_QUEUED;
    try {
      this.process(event);
      this.drain();
    } finally {
      this.stepping = undefined;
    }
  }

  /** Steps on the events received while stepping, in order, while the machine runs. */
  private drain(): void {
    for (let queued = this.stepping; queued !== undefined && queued.length > 0; queued = this.stepping) {
      const event = queued.shift()!;
      if (this.current.status === 'active') this.process(event);
    }
  }

  /** One step on `event`: computed by the machine (or shared), its actions executed, its snapshot taken. */
  private process(event: { readonly type: string }): void {
    const previous = this.current;
    let step: Step;
    try {
      step =
        this.options.sharesSteps && !this.inspection
          ? sharedStep(this.machine, previous, event, () => nextStep(this.machine, previous, event, false, this.ref))
          : nextStep(this.machine, previous, event, this.inspection !== undefined, this.ref);
    } catch (thrown) {
      if (!(thrown instanceof StepFailure)) throw thrown;
      // The actions before the throw ran in an actor; one of them may have thrown first.
      const failure = this.executeWhileStepping(thrown.actions);
      return this.fail(previous, failure === undefined ? thrown.error : failure.error);
    }
    const failure = this.executeWhileStepping(step.actions);
    if (failure !== undefined) return this.fail(previous, failure.error);
    this.current = step.snapshot;
    this.executeAfterStep(step.actions);
    this.options.onTransition?.(this.current as SnapshotFrom<TMachine>, this.owner);
    if (this.current.status !== 'active') this.stop();
    if (this.inspection) inspectSnapshot(this.inspection, this.current, event);
  }

  /** The machine threw: the snapshot before the step, with status `'error'`, and the error reported. */
  private fail(previous: AnyMachineSnapshot, error: unknown): void {
    this.current = { ...previous, status: 'error', error };
    this.report(error);
  }

  private report(error: unknown): void {
    this.stop();
    if (this.stepping !== undefined) this.stepping = NOTHING_QUEUED;
    if (!this.options.onError) throw error;
    this.options.onError(error, this.owner);
  }

  /**
   * The actions an actor executes while it takes the step: each is inspected, custom actions and
   * `log` run; the first that throws ends the step, its error returned.
   */
  private executeWhileStepping(
    actions: readonly StepAction[],
    microsteps = true,
  ): { readonly error: unknown } | undefined {
    for (const action of actions) {
      if (action.type === MICROSTEP) {
        if (microsteps) this.reportMicrostep(action);
        continue;
      }
      if (this.inspection) inspectAction(this.inspection, action.type, action.params);
      switch (action.type) {
        case 'xstate.raise':
        case 'xstate.cancel':
        case 'xstate.emit':
          break; // once the step is taken
        case 'xstate.log': {
          const { label, value } = action.params as { label?: string; value: unknown };
          this.options.log?.(label, value);
          break;
        }
        default:
          // A custom action runs its implementation; assertRunnable refused every other built-in.
          try {
            // A shared step's actions were given the runner that took it first.
            const info = action.info as { self?: unknown };
            action.exec?.(info.self === this.self ? info : { ...info, self: this.self }, action.params);
          } catch (error) {
            return { error };
          }
      }
    }
    return undefined;
  }

  /** What an actor defers until its snapshot is the step's: delayed raises, cancels and emits, in order. */
  private executeAfterStep(actions: readonly StepAction[]): void {
    for (const action of actions) {
      switch (action.type) {
        case 'xstate.raise': {
          // A raise without a delay was taken within the step, by the machine itself.
          const { event, id, delay } = action.params as ResolvedRaise;
          if (typeof delay === 'number') this.timersOf().schedule(event, delay, id);
          break;
        }
        case 'xstate.cancel':
          this.timers?.cancel((action.params as { sendId: string }).sendId);
          if (this.timers?.empty) this.timers = undefined;
          break;
        case 'xstate.emit':
          this.options.onEmit?.((action.params as { event: { type: string } }).event);
          break;
      }
    }
  }

  private reportMicrostep(action: StepAction): void {
    if (this.inspection && action.type === MICROSTEP) inspectMicrostep(this.inspection, action.params as object);
  }

  private timersOf(): ScheduledEvents {
    return (this.timers ??= new ScheduledEvents(this.scheduler, (event) => this.fired(event)));
  }

  private fired(event: { readonly type: string }): void {
    if (this.timers?.empty) this.timers = undefined;
    this.receive(event, true);
  }

  /** Schedules the delayed events of a restored snapshot again. */
  private restoreTimers(persisted: unknown): void {
    if (this.current.status !== 'active') return;
    const scheduled = (persisted as { scheduledEvents?: unknown }).scheduledEvents;
    if (scheduled === undefined) this.rearm();
    else if (!Array.isArray(scheduled))
      throw new TypeError(`lifecycle snapshot: scheduledEvents must be an array, not ${typeof scheduled}`);
    else if (scheduled.length > 0) this.timersOf().restore(scheduled);
  }

  /**
   * Arms again the `after` events of the states a snapshot persisted without its scheduled events is
   * in, with their full delays: when they were scheduled is not known.
   */
  private rearm(): void {
    const delays = this.machine.implementations.delays as Record<string, unknown>;
    for (const node of this.current._nodes) {
      for (const transition of node.after) {
        const configured: unknown = transition.delay;
        const named = typeof configured === 'string' ? delays[configured] : configured;
        const delay =
          typeof named === 'function'
            ? (named as (args: unknown) => number)({ context: this.current.context, event: { type: 'xstate.init' } })
            : named;
        if (typeof delay === 'number')
          this.timersOf().schedule({ type: transition.eventType }, delay, transition.eventType);
      }
    }
  }
}
