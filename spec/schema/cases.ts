/**
 * Hand-written instances of the important messages, each run against zod and the official JSON
 * Schema of every revision that has the definition. `valid` is the expected verdict; with `from`,
 * that verdict holds from that revision on and the opposite one before (the field did not exist);
 * with `until`, it holds through that revision and the opposite one after (a later revision
 * requires what the instance lacks, such as 2026-07-28's `resultType` or request `_meta`).
 */
import type { Revision } from '../../lib/schema/revisions';
import { OTHER_CASES } from './cases-other';
import { SERVER_FEATURE_CASES } from './cases-server';
import { STATELESS_CASES } from './cases-modern';

export interface HandWrittenCase {
  readonly definition: string;
  readonly label: string;
  readonly value: unknown;
  readonly valid: boolean;
  readonly from?: Revision;
  readonly until?: Revision;
  /** When set, the instance is valid exactly in these revisions (overrides `valid` and `from`). */
  readonly validIn?: readonly Revision[];
}

/** The verdict a case expects in `revision`. */
export function expectedVerdict(c: HandWrittenCase, revision: Revision): boolean {
  if (c.validIn) return c.validIn.includes(revision);
  if (c.from && revision < c.from) return !c.valid;
  if (c.until && revision > c.until) return !c.valid;
  return c.valid;
}

/** Every hand-written case. */
export const HAND_WRITTEN_CASES: readonly HandWrittenCase[] = [
  ...SERVER_FEATURE_CASES,
  ...OTHER_CASES,
  ...STATELESS_CASES,
];
