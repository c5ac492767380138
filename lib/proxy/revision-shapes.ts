/**
 * What crosses the proxy, put in the shapes of the revision of the side it goes to: a result the
 * upstream gave (in its revision) for a downstream caller of another, and a request the upstream
 * makes (sampling, elicitation, roots) for the caller it is asked of. The revision table
 * (`featuresOf`) says which fields each revision has; everything else passes as it is.
 */
import { JsonRpcError } from '../jsonrpc/errors';
import { featuresOf, isSupportedRevision } from '../schema/revisions';
import type { RevisionFeatures } from '../schema/revisions';

type Flag = {
  [K in keyof RevisionFeatures]: RevisionFeatures[K] extends boolean ? K : never;
}[keyof RevisionFeatures];

/** Top-level result fields that not every revision has, each with the feature that has it. */
const RESULT_FIELDS: ReadonlyArray<readonly [field: string, feature: Flag]> = [
  ['resultType', 'resultType'],
  ['ttlMs', 'cacheableResults'],
  ['cacheScope', 'cacheableResults'],
  ['structuredContent', 'structuredContent'],
];

const NOTHING: readonly string[] = Object.freeze([]);

/** The result fields a caller of each revision lacks, computed once per revision. */
const lacking = new Map<string, readonly string[]>();

function lackedFields(revision: string): readonly string[] {
  let fields = lacking.get(revision);
  if (fields === undefined) {
    // A revision rxmcp does not speak never reaches a handler; nothing is cached for one.
    if (!isSupportedRevision(revision)) return NOTHING;
    const features = featuresOf(revision);
    fields = RESULT_FIELDS.filter(([, feature]) => !features[feature]).map(([field]) => field);
    lacking.set(revision, fields.length === 0 ? NOTHING : fields);
  }
  return fields;
}

/**
 * Whether a result an upstream of `upstreamRevision` gave may hold fields that a caller of
 * `callerRevision` lacks: only when the caller's revision is the older one (revisions are dates).
 */
export function callerIsOlder(callerRevision: string, upstreamRevision: string | undefined): boolean {
  return upstreamRevision !== undefined && callerRevision < upstreamRevision;
}

/**
 * `result` without the top-level fields that `callerRevision` does not have (`resultType`, the
 * caching hints `ttlMs` and `cacheScope` before 2026-07-28, `structuredContent` before 2025-06-18).
 * Returns `result` itself when it has none of them; never changes it.
 */
export function resultForCaller(result: Record<string, unknown>, callerRevision: string): Record<string, unknown> {
  const lacked = lackedFields(callerRevision);
  if (lacked === NOTHING || !lacked.some((field) => field in result)) return result;
  const kept: Record<string, unknown> = {};
  for (const key in result) if (!lacked.includes(key)) kept[key] = result[key];
  return kept;
}

/**
 * The params of a request the upstream makes (`method`), as a caller of `callerRevision` takes
 * them: an elicitation's `mode` only from 2025-11-25, its `elicitationId` only in 2025-11-25 (made
 * up when an upstream of 2026-07-28, which has none, asks for a URL); sampling without tools
 * before 2025-11-25. A request the caller's revision cannot carry (a URL elicitation before
 * 2025-11-25, sampling with tools before it) throws a `JsonRpcError` that says so, for the upstream.
 */
export function requestForCaller(
  method: string,
  params: Record<string, unknown>,
  callerRevision: string,
): Record<string, unknown> {
  if (!isSupportedRevision(callerRevision)) return params;
  const features = featuresOf(callerRevision);
  if (method === 'elicitation/create') return elicitationForCaller(params, features);
  if (method === 'sampling/createMessage' && !features.samplingTools && (params.tools ?? params.toolChoice)) {
    throw JsonRpcError.invalidParams(
      `The downstream client speaks ${callerRevision}, which has no tools in sampling/createMessage`,
    );
  }
  return params;
}

function elicitationForCaller(params: Record<string, unknown>, features: RevisionFeatures): Record<string, unknown> {
  const url = params.mode === 'url';
  if (!features.urlElicitation) {
    if (url) {
      throw JsonRpcError.invalidParams(
        `The downstream client speaks ${features.revision}, which has no URL-mode elicitation`,
      );
    }
    if (!('mode' in params)) return params;
    const { mode: _mode, ...form } = params;
    return form;
  }
  if (!url) return params;
  if (features.elicitationCompletion && params.elicitationId === undefined)
    return { ...params, elicitationId: globalThis.crypto.randomUUID() };
  if (!features.elicitationCompletion && 'elicitationId' in params) {
    const { elicitationId: _id, ...rest } = params;
    return rest;
  }
  return params;
}
