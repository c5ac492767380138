/**
 * The inspection events of a `LifecycleRunner`, shaped as an XState actor's inspector receives them.
 * Nothing here runs unless someone inspects.
 */
import type { AnyActorRef, AnyMachineSnapshot, AnyStateMachine, InspectionEvent, Observer } from 'xstate';

/** What `inspect` may be: a function, or an observer whose `next` is called, as `createActor` takes it. */
export type InspectOption = ((event: InspectionEvent) => void) | Observer<InspectionEvent>;

/** Where a runner's inspection events go, and the actor they name. Made only when someone inspects. */
export interface Inspection {
  readonly next: (event: InspectionEvent) => void;
  readonly actorRef: AnyActorRef;
}

let runners = 0;

/**
 * `inspect` as one function, as XState's `toObserver` makes it: an observer's `next` called on the
 * observer. Undefined when nothing would receive the events (no `inspect`, or an observer without
 * `next`), so that the runner then does no inspection work at all.
 */
function inspectorOf(inspect: InspectOption | undefined): ((event: InspectionEvent) => void) | undefined {
  if (inspect === undefined || inspect === null) return undefined;
  if (typeof inspect === 'function') return inspect;
  if (typeof inspect !== 'object')
    throw new TypeError(`inspect must be a function or an observer with next, not ${typeof inspect}`);
  const next = inspect.next;
  if (next === undefined) return undefined;
  if (typeof next !== 'function') throw new TypeError(`inspect.next must be a function, not ${typeof next}`);
  return (event) => next.call(inspect, event);
}

/** What a runner shows of itself as an actor. */
export interface RunnerLike {
  readonly snapshot: unknown;
  send(event: never): void;
}

/**
 * A stand-in actor reference for a runner: what inspectors read of one (its id, session id and
 * snapshot, and its logic, the machine, whose `config` `@statelyai/inspect` sends so that the
 * inspector draws the machine), and what custom actions use of their `self`: `send` (the event waits
 * for the step being taken, as in an actor's mailbox) and `getSnapshot`.
 */
export function standInActorRef(machine: AnyStateMachine, runner: RunnerLike): AnyActorRef {
  return {
    id: machine.id,
    sessionId: `lifecycle:${++runners}`,
    logic: machine,
    getSnapshot: () => runner.snapshot,
    send: (event: never) => runner.send(event),
  } as unknown as AnyActorRef;
}

/** The inspection of a runner, whose stand-in is `actorRef`, or undefined when `inspect` would receive nothing. */
export function inspectionOf(inspect: InspectOption | undefined, actorRef: () => AnyActorRef): Inspection | undefined {
  const next = inspectorOf(inspect);
  return next === undefined ? undefined : { next, actorRef: actorRef() };
}

/** `@xstate.actor`: the runner exists. */
export function inspectActor({ next, actorRef }: Inspection): void {
  next({ type: '@xstate.actor', actorRef, rootId: actorRef.sessionId } as InspectionEvent);
}

/** `@xstate.event`: the runner received `event`, from itself (a delayed event) or from outside. */
export function inspectEvent({ next, actorRef }: Inspection, event: unknown, fromSelf: boolean): void {
  next({
    type: '@xstate.event',
    event,
    sourceRef: fromSelf ? actorRef : undefined,
    actorRef,
    rootId: actorRef.sessionId,
  } as InspectionEvent);
}

/** `@xstate.action`: the runner executes an action. */
export function inspectAction({ next, actorRef }: Inspection, type: string, params: unknown): void {
  next({ type: '@xstate.action', action: { type, params }, actorRef, rootId: actorRef.sessionId } as InspectionEvent);
}

/** `@xstate.snapshot`: the runner took a step on `event` (or started, on `xstate.init`). */
export function inspectSnapshot({ next, actorRef }: Inspection, snapshot: AnyMachineSnapshot, event: unknown): void {
  next({ type: '@xstate.snapshot', snapshot, event, actorRef, rootId: actorRef.sessionId } as InspectionEvent);
}

/** `@xstate.microstep`: one microstep of a step, as XState reported it while the runner stepped. */
export function inspectMicrostep({ next, actorRef }: Inspection, reported: object): void {
  next({ ...reported, actorRef, rootId: actorRef.sessionId } as unknown as InspectionEvent);
}
