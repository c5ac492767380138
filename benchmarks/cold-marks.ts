/**
 * What a cold process (cold-client.ts) and its parent (cold.ts) agree on. It imports nothing: the
 * cold client loads it before anything is timed, and whatever it pulled in (the settings load every
 * implementation) would count as the load time of the implementation measured.
 */

/** The call counts whose rates are reported, counted after the first call. */
export const COLD_MARKS = [1_000, 5_000] as const;

/** The longest a cold process makes calls for, whatever marks it has reached (see cold-client.ts). */
export const COLD_MAX_MS = 8_000;

/** What cold-client.js writes as its last line (JSON). */
export interface ColdReport {
  /** Calls per second over the first 1,000 and the first 5,000 calls after the first, by count. */
  readonly perSecond: Record<string, number>;
  /** The median call of the first 1,000, in milliseconds. */
  readonly p50Ms: number;
}
