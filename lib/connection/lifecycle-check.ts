import type { AnyStateMachine } from 'xstate';

/**
 * The built-in actions `LifecycleRunner` executes. Everything else XState offers (`sendTo`,
 * `sendParent`, `forwardTo`, `spawnChild`, `stopChild`, `enqueueActions`) needs a real actor
 * system, so a machine that uses it is refused by `assertRunnable` rather than run with the action
 * silently dropped.
 */
export const RUNNABLE_BUILT_INS: ReadonlySet<string> = new Set([
  'xstate.assign',
  'xstate.raise',
  'xstate.cancel',
  'xstate.log',
  'xstate.emit',
]);

/** The parts of an XState state node the check reads. */
interface NodeLike {
  readonly id: string;
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
  readonly states: Readonly<Record<string, NodeLike>>;
  readonly transitions: ReadonlyMap<string, ReadonlyArray<{ readonly actions: readonly unknown[] }>>;
  readonly always?: ReadonlyArray<{ readonly actions: readonly unknown[] }>;
  readonly after: ReadonlyArray<{ readonly actions: readonly unknown[] }>;
  readonly invoke: readonly unknown[];
}

/** Checked machines, and whether each has custom actions. */
const checked = new WeakMap<AnyStateMachine, boolean>();

function actionType(reference: unknown, implementations: Record<string, unknown>, where: string): string | undefined {
  let resolved = reference;
  if (typeof reference === 'string' || (typeof reference === 'object' && reference !== null)) {
    const name = typeof reference === 'string' ? reference : (reference as { type?: unknown }).type;
    if (typeof name !== 'string') throw new TypeError(`lifecycle machine: an action in ${where} has no type`);
    if (name.startsWith('xstate.')) return name;
    resolved = implementations[name];
    if (resolved === undefined)
      throw new TypeError(`lifecycle machine: action "${name}" in ${where} has no implementation`);
  }
  return typeof resolved === 'function' ? ((resolved as { type?: string }).type ?? undefined) : undefined;
}

/**
 * Throws a `TypeError` naming the state and the action when `machine` uses an action the runner
 * cannot execute, invokes an actor or declares actors to spawn; checks each machine once.
 */
export function assertRunnable(machine: AnyStateMachine): void {
  if (checked.has(machine)) return;
  const implementations = machine.implementations.actions as Record<string, unknown>;
  const actors = Object.keys(machine.implementations.actors);
  if (actors.length > 0)
    throw new TypeError(
      `lifecycle machine: ${machine.id} declares actors (${actors.join(', ')}), which the lifecycle runner cannot spawn`,
    );
  let custom = false;
  const visit = (node: NodeLike): void => {
    if (node.invoke.length > 0)
      throw new TypeError(`lifecycle machine: ${node.id} invokes an actor, which the lifecycle runner cannot run`);
    const lists: Array<readonly unknown[]> = [node.entry, node.exit];
    for (const transitions of node.transitions.values())
      for (const transition of transitions) lists.push(transition.actions);
    for (const transition of node.always ?? []) lists.push(transition.actions);
    for (const transition of node.after) lists.push(transition.actions);
    for (const list of lists) {
      for (const reference of list) {
        const type = actionType(reference, implementations, node.id);
        if (type === undefined) custom = true;
        else if (type.startsWith('xstate.') && !RUNNABLE_BUILT_INS.has(type)) {
          throw new TypeError(`lifecycle machine: ${node.id} uses ${type}, which the lifecycle runner cannot execute`);
        }
      }
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root as unknown as NodeLike);
  checked.set(machine, custom);
}

/** Whether `machine` (checked by {@link assertRunnable}) has custom actions, which are given the runner as `self`. */
export function usesCustomActions(machine: AnyStateMachine): boolean {
  assertRunnable(machine);
  return checked.get(machine)!;
}
