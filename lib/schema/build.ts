/**
 * Helpers for building one family of schemas per revision. A builder is written once, in the
 * shape of the latest revision, and marks what other revisions lack or change with `since`,
 * `until`, `member`, `choose` and their kin. The static types of a builder's result are the latest
 * shapes, widened where a revision differs so that one value type serves every revision: what only
 * 2026-07-28 requires (`resultType`, request `_meta`) is typed optional, and where it narrows an
 * older shape the older type stays (`chooseAsOlder`). Revisions differ in what they accept at run time.
 *
 * Each feature module also exports its schemas as constants (`ToolSchema`...): built for the newest
 * handshake revision (2025-11-25) when it has the definition, whose shapes the runtime's own values
 * follow, and for 2026-07-28 for the definitions only it has (`DiscoverResultSchema`...). They are
 * `z.lazy` wrappers, so that loading the package builds no revision's schemas (`.unwrap()` gives
 * the built schema). Checks of a given revision go through `schemasFor(revision)` or the method
 * registry instead, which build a revision's schemas when its first message needs them.
 */
import { z } from 'zod';
import { revisionAtLeast, revisionWithin, type Revision } from './revisions';

/** Revision names used as `since` markers in builders. */
export const V2025_03_26: Revision = '2025-03-26';
export const V2025_06_18: Revision = '2025-06-18';
export const V2025_11_25: Revision = '2025-11-25';
export const V2026_07_28: Revision = '2026-07-28';

/** Wraps a builder so that it runs at most once per revision. */
export function perRevision<T>(build: (revision: Revision) => T): (revision: Revision) => T {
  const cache = new Map<Revision, T>();
  return (revision) => {
    let built = cache.get(revision);
    if (built === undefined) {
      built = build(revision);
      cache.set(revision, built);
    }
    return built;
  };
}

/**
 * A property that exists from `from` on. Older revisions did not define it, so (objects being
 * open) any value, or none, is accepted there.
 */
export function since<T extends z.ZodType>(revision: Revision, from: Revision, schema: T): T {
  return revisionAtLeast(revision, from) ? schema : (z.unknown().optional() as unknown as T);
}

/**
 * A property that exists through `last` (inclusive) and was dropped after it. Later revisions do
 * not define it, so (objects being open) any value, or none, is accepted there.
 */
export function until<T extends z.ZodType>(revision: Revision, last: Revision, schema: T): T {
  return revisionAtLeast(last, revision) ? schema : (z.unknown().optional() as unknown as T);
}

/**
 * A property that exists from `from` on and is required there. Older revisions did not define it
 * (any value, or none); typed optional, as values of every revision share the type.
 */
export function sinceRequired<T extends z.ZodType>(revision: Revision, from: Revision, schema: T): z.ZodOptional<T> {
  return (revisionAtLeast(revision, from) ? schema : z.unknown().optional()) as unknown as z.ZodOptional<T>;
}

/**
 * A property that is required through `last` (inclusive) and was dropped after it (any value, or
 * none, is accepted there); typed optional, as values of every revision share the type.
 */
export function requiredUntil<T extends z.ZodType>(revision: Revision, last: Revision, schema: T): z.ZodOptional<T> {
  return until(revision, last, schema) as unknown as z.ZodOptional<T>;
}

/** An optional property that becomes required from `from` on; typed optional. */
export function requiredFrom<T extends z.ZodType>(
  revision: Revision,
  from: Revision,
  schema: z.ZodOptional<T>,
): z.ZodOptional<T> {
  return revisionAtLeast(revision, from) ? (schema.unwrap() as unknown as z.ZodOptional<T>) : schema;
}

/**
 * `newer` from `from` on, `older` before; typed as `older`. For a revision that narrows or reshapes
 * what the runtime's own values look like (a stricter `_meta`, a loosened JSON Schema) while the
 * older type still describes what the runtime builds.
 */
export function chooseAsOlder<T extends z.ZodType>(revision: Revision, from: Revision, newer: z.ZodType, older: T): T {
  return revisionAtLeast(revision, from) ? (newer as unknown as T) : older;
}

/** `newer` from `from` on, `older` before; typed as `newer`, the latest shape. */
export function choose<T extends z.ZodType>(revision: Revision, from: Revision, newer: T, older: z.ZodType): T {
  return revisionAtLeast(revision, from) ? newer : (older as unknown as T);
}

/** A union member that exists from `from` (through `until`, inclusive); `anyOf` drops it elsewhere. */
export function member<T extends z.ZodType>(revision: Revision, from: Revision, schema: T, until?: Revision): T {
  return revisionWithin(revision, from, until) ? schema : (z.never() as unknown as T);
}

/** A union of the members the revision has (those not replaced by `member` with `z.never()`). */
export function anyOf<const T extends readonly [z.ZodType, ...z.ZodType[]]>(...members: T): z.ZodUnion<T> {
  const present = members.filter((m) => !(m instanceof z.ZodNever));
  return z.union(present as unknown as T);
}

/**
 * A union of objects told apart by a literal property (`type` for content blocks, `method` for
 * messages), without the members the revision lacks. A failure names the fields of the member the
 * tag selects instead of listing every alternative.
 */
export function anyOfTagged<const K extends string, const T extends readonly [z.ZodObject, ...z.ZodObject[]]>(
  tag: K,
  ...members: T
): z.ZodDiscriminatedUnion<T, K> {
  const present = members.filter((m) => !(m instanceof z.ZodNever));
  return z.discriminatedUnion(tag, present as unknown as T);
}

/** `_meta` on results, notifications and most objects: a map of namespaced keys. */
export const MetaSchema = z.record(z.string(), z.unknown());
export type Meta = z.infer<typeof MetaSchema>;

/** A progress token: a string or an integer chosen by the requester. */
export const ProgressTokenSchema = z.union([z.string(), z.number().int()]);
export type ProgressToken = z.infer<typeof ProgressTokenSchema>;

/** `_meta` on request params: may carry the progress token the requester wants progress for. */
export const RequestMetaSchema = z.looseObject({ progressToken: ProgressTokenSchema.optional() });
export type RequestMeta = z.infer<typeof RequestMetaSchema>;

/** The JSON-RPC version literal. */
export const JsonRpcVersionSchema = z.literal('2.0');

/** An object that is open to any keys: capability flags such as `sampling: {}`. */
export const OpenObjectSchema = z.looseObject({});
export type OpenObject = z.infer<typeof OpenObjectSchema>;
