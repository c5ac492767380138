/**
 * Lifecycle steps computed once and shared by every runner that takes them. A pure machine (its
 * guards, assigns and delays read only its context and the event) reaches equal snapshots from
 * equal snapshots on equal events, and snapshots are immutable: so runners started from equal
 * input share their initial snapshot, and every runner on a shared snapshot that receives an event
 * equal to one seen before shares the snapshot it reaches. Connections that open alike (the same
 * client, the same capabilities) then hold one snapshot between them and take no transition of
 * their own. Equal means equal as plain data (see {@link dataKey}); anything else is not shared.
 */
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { isPlainObject } from '../schema/fast-paths';

/** What `LifecycleRunner` needs to know of an action to execute it: built-ins are told apart by type. */
export interface StepAction {
  readonly type: string;
  readonly info?: unknown;
  readonly params?: unknown;
  readonly exec?: (info: unknown, params: unknown) => void;
}

/** A step: the snapshot it reaches and the actions it executes. */
export interface Step {
  readonly snapshot: AnyMachineSnapshot;
  readonly actions: readonly StepAction[];
}

/** The longest key kept: an event or input with more data than this is stepped on its own. */
const KEY_LENGTH_LIMIT = 1024;
/** How many inputs of one machine share an initial snapshot at most. */
const INITIAL_LIMIT = 16;
/**
 * How many steps are shared below one initial or restored snapshot at most, so that a peer sending
 * ever different data (or one event over and over) cannot grow the table: past it, steps are
 * computed for each runner as if nothing were shared.
 */
const TREE_LIMIT = 128;

/**
 * Whether `value` is plain data that JSON writes out unambiguously, within `budget` characters:
 * strings, booleans, null, finite numbers other than -0, arrays of those, and objects with no
 * prototype but `Object.prototype` (a property set to undefined counts as missing, as in JSON).
 * Returns what is left of the budget, or -1.
 */
function plain(value: unknown, budget: number): number {
  switch (typeof value) {
    case 'string':
      return budget - value.length - 2;
    case 'boolean':
      return budget - 5;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? budget - 24 : -1;
    case 'object':
      if (value === null) return budget - 4;
      if (Array.isArray(value)) return plainArray(value, budget - 2);
      return isPlainObject(value) ? plainObject(value, budget - 2) : -1;
    default:
      return -1;
  }
}

function plainArray(value: readonly unknown[], budget: number): number {
  for (let i = 0; i < value.length && budget >= 0; i++) {
    // JSON writes a hole or undefined in an array as null.
    budget = value[i] === undefined ? -1 : plain(value[i], budget - 1);
  }
  return budget;
}

function plainObject(value: Record<string, unknown>, budget: number): number {
  for (const key in value) {
    if (budget < 0) break;
    if (!Object.hasOwn(value, key)) continue;
    const item = value[key];
    if (item !== undefined) budget = plain(item, budget - key.length - 4);
  }
  return budget;
}

/**
 * A string that two values share exactly when they are equal as plain data (see {@link plain}),
 * their keys in the same order; undefined for anything else, and for values with more than about a
 * kilobyte of it. It is their JSON: native, and a single string.
 */
export function dataKey(value: unknown): string | undefined {
  // No JSON text reads `undefined`: a machine without input has a key of its own.
  if (value === undefined) return 'undefined';
  return plain(value, KEY_LENGTH_LIMIT) < 0 ? undefined : JSON.stringify(value);
}

/** The steps shared from one snapshot, by the key of their event, and the count of its tree. */
interface Table {
  readonly steps: Map<string, Step>;
  readonly tree: { size: number };
}

/** The steps one machine shares. */
interface MachineSteps {
  /** Initial steps, by the key of their input. */
  readonly initial: Map<string, Step>;
  /** The steps from each shared snapshot. */
  readonly from: WeakMap<AnyMachineSnapshot, Table>;
}

const machines = new WeakMap<AnyStateMachine, MachineSteps>();

function stepsOf(machine: AnyStateMachine): MachineSteps {
  let steps = machines.get(machine);
  if (steps === undefined) machines.set(machine, (steps = { initial: new Map(), from: new WeakMap() }));
  return steps;
}

/** Makes `snapshot` the root of a tree of shared steps, unless it is shared already. */
function share(steps: MachineSteps, snapshot: AnyMachineSnapshot, tree = { size: 0 }): void {
  if (!steps.from.has(snapshot)) steps.from.set(snapshot, { steps: new Map(), tree });
}

/** The initial step of `machine` from `input`: shared with every runner of equal input. */
export function sharedInitialStep(machine: AnyStateMachine, input: unknown, compute: () => Step): Step {
  const steps = stepsOf(machine);
  const key = dataKey(input);
  let step = key === undefined ? undefined : steps.initial.get(key);
  if (step === undefined) {
    step = compute();
    if (key !== undefined && steps.initial.size < INITIAL_LIMIT) {
      steps.initial.set(key, step);
      share(steps, step.snapshot);
    }
  }
  return step;
}

/**
 * Shares the steps from a snapshot restored from a persisted one (which the runner restores once
 * per persisted object): they live as long as it does.
 */
export function shareRestored(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): void {
  share(stepsOf(machine), snapshot);
}

/** The step from `snapshot` on `event`: shared when `snapshot` is shared and `event` is plain data. */
export function sharedStep(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  event: object,
  compute: () => Step,
): Step {
  const steps = machines.get(machine);
  const table = steps?.from.get(snapshot);
  if (table === undefined) return compute();
  const key = dataKey(event);
  let step = key === undefined ? undefined : table.steps.get(key);
  if (step === undefined) {
    step = compute();
    if (key !== undefined && table.tree.size < TREE_LIMIT) {
      table.tree.size++;
      table.steps.set(key, step);
      share(steps!, step.snapshot, table.tree);
    }
  }
  return step;
}
