/**
 * The registry of MCP methods: who sends each one, since when and until when, which capability
 * the receiver must have declared, and the schemas of its params and result in each revision.
 */
import { z } from 'zod';
import { methodSchema } from './definitions';
import { featuresOf, revisionWithin, SUPPORTED_REVISIONS, type Revision } from './revisions';
import { isPlainObject, paramsPassUnchanged, resultPassesUnchanged } from './fast-paths';
import type { ParamsOf } from './method-map';

/** Whether a method is a request (answered) or a notification (not answered). */
export type MethodKind = 'request' | 'notification';

/** Which side sends a method. */
export type MethodDirection = 'client-to-server' | 'server-to-client' | 'both';

/** One method as it exists in one revision. */
export interface MethodDefinition {
  readonly method: string;
  readonly kind: MethodKind;
  readonly direction: MethodDirection;
  /** The first revision with the method. */
  readonly since: Revision;
  /** The last revision with the method; absent while it is current. */
  readonly until?: Revision;
  /** Dotted capability path the receiver must have declared in this revision, e.g. `resources.subscribe`. */
  readonly capability?: string;
  /** Dotted capability path the sender must have declared, e.g. `tools.listChanged` for its notification. */
  readonly senderCapability?: string;
  /** The receiver may answer with a `CreateTaskResult` when the request carries `task` (2025-11-25 only). */
  readonly taskAugmentable?: boolean;
  /**
   * The receiver may answer with an `InputRequiredResult` that asks for input before a retry
   * (2026-07-28: `tools/call`, `prompts/get`, `resources/read`).
   */
  readonly inputRequired?: boolean;
  /** The result is a `CacheableResult` with `ttlMs` and `cacheScope` (2026-07-28: discovery, lists, reads). */
  readonly cacheable?: boolean;
  /** The official definition name of the request or notification, e.g. `CallToolRequest`. */
  readonly definition: string;
  /** For requests, the official definition name of the result, e.g. `CallToolResult`. */
  readonly result?: string;
}

/**
 * A registry row: a method's definition plus the revision from which `capability` applies and the
 * revision from which it goes another way. `taskAugmentable`, `inputRequired` and `cacheable`
 * hold only where the revision has tasks, multi round-trip requests and cacheable results.
 */
interface MethodEntry extends MethodDefinition {
  readonly capabilitySince?: Revision;
  readonly later?: { readonly since: Revision; readonly direction: MethodDirection };
}

const C2S = 'client-to-server';
const S2C = 'server-to-client';
/** The last revision of the handshake family, where what 2026-07-28 dropped ends. */
const HANDSHAKE_END: Revision = '2025-11-25';
const FIRST_MODERN: Revision = '2026-07-28';

function request(
  method: string,
  direction: MethodDirection,
  definition: string,
  result: string,
  extra: Partial<MethodEntry> = {},
): MethodEntry {
  return { method, kind: 'request', direction, since: '2024-11-05', definition, result, ...extra };
}

function notification(
  method: string,
  direction: MethodDirection,
  definition: string,
  extra: Partial<MethodEntry> = {},
): MethodEntry {
  return { method, kind: 'notification', direction, since: '2024-11-05', definition, ...extra };
}

/** Every method of every supported revision; a new revision adds rows (and `until` to dropped ones). */
const METHODS: readonly MethodEntry[] = [
  request('initialize', C2S, 'InitializeRequest', 'InitializeResult', { until: HANDSHAKE_END }),
  request('server/discover', C2S, 'DiscoverRequest', 'DiscoverResult', { since: FIRST_MODERN, cacheable: true }),
  request('ping', 'both', 'PingRequest', 'EmptyResult', { until: HANDSHAKE_END }),
  request('resources/list', C2S, 'ListResourcesRequest', 'ListResourcesResult', {
    capability: 'resources',
    cacheable: true,
  }),
  request('resources/templates/list', C2S, 'ListResourceTemplatesRequest', 'ListResourceTemplatesResult', {
    capability: 'resources',
    cacheable: true,
  }),
  request('resources/read', C2S, 'ReadResourceRequest', 'ReadResourceResult', {
    capability: 'resources',
    inputRequired: true,
    cacheable: true,
  }),
  request('resources/subscribe', C2S, 'SubscribeRequest', 'EmptyResult', {
    capability: 'resources.subscribe',
    until: HANDSHAKE_END,
  }),
  request('resources/unsubscribe', C2S, 'UnsubscribeRequest', 'EmptyResult', {
    capability: 'resources.subscribe',
    until: HANDSHAKE_END,
  }),
  // What a subscription carries is negotiated by its filter and acknowledgement, not a capability.
  request('subscriptions/listen', C2S, 'SubscriptionsListenRequest', 'SubscriptionsListenResult', {
    since: FIRST_MODERN,
  }),
  request('prompts/list', C2S, 'ListPromptsRequest', 'ListPromptsResult', { capability: 'prompts', cacheable: true }),
  request('prompts/get', C2S, 'GetPromptRequest', 'GetPromptResult', { capability: 'prompts', inputRequired: true }),
  request('tools/list', C2S, 'ListToolsRequest', 'ListToolsResult', { capability: 'tools', cacheable: true }),
  request('tools/call', C2S, 'CallToolRequest', 'CallToolResult', {
    capability: 'tools',
    taskAugmentable: true,
    inputRequired: true,
  }),
  request('logging/setLevel', C2S, 'SetLevelRequest', 'EmptyResult', { capability: 'logging', until: HANDSHAKE_END }),
  // 2024-11-05 had no completions capability; servers answered completion/complete regardless.
  request('completion/complete', C2S, 'CompleteRequest', 'CompleteResult', {
    capability: 'completions',
    capabilitySince: '2025-03-26',
  }),
  // From 2026-07-28 these travel as input requests inside an InputRequiredResult (see
  // input-requests.ts), no longer as JSON-RPC requests.
  request('sampling/createMessage', S2C, 'CreateMessageRequest', 'CreateMessageResult', {
    capability: 'sampling',
    taskAugmentable: true,
    until: HANDSHAKE_END,
  }),
  request('roots/list', S2C, 'ListRootsRequest', 'ListRootsResult', { capability: 'roots', until: HANDSHAKE_END }),
  request('elicitation/create', S2C, 'ElicitRequest', 'ElicitResult', {
    since: '2025-06-18',
    capability: 'elicitation',
    taskAugmentable: true,
    until: HANDSHAKE_END,
  }),
  // Tasks were core in 2025-11-25 only; 2026-07-28 moved them to an extension.
  request('tasks/get', 'both', 'GetTaskRequest', 'GetTaskResult', {
    since: '2025-11-25',
    until: HANDSHAKE_END,
    capability: 'tasks',
  }),
  request('tasks/result', 'both', 'GetTaskPayloadRequest', 'GetTaskPayloadResult', {
    since: '2025-11-25',
    until: HANDSHAKE_END,
    capability: 'tasks',
  }),
  request('tasks/list', 'both', 'ListTasksRequest', 'ListTasksResult', {
    since: '2025-11-25',
    until: HANDSHAKE_END,
    capability: 'tasks.list',
  }),
  request('tasks/cancel', 'both', 'CancelTaskRequest', 'CancelTaskResult', {
    since: '2025-11-25',
    until: HANDSHAKE_END,
    capability: 'tasks.cancel',
  }),
  notification('notifications/initialized', C2S, 'InitializedNotification', { until: HANDSHAKE_END }),
  notification('notifications/cancelled', 'both', 'CancelledNotification'),
  // A 2026-07-28 client answers no requests, so only servers report progress.
  notification('notifications/progress', 'both', 'ProgressNotification', {
    later: { since: FIRST_MODERN, direction: S2C },
  }),
  notification('notifications/roots/list_changed', C2S, 'RootsListChangedNotification', {
    senderCapability: 'roots.listChanged',
    until: HANDSHAKE_END,
  }),
  notification('notifications/subscriptions/acknowledged', S2C, 'SubscriptionsAcknowledgedNotification', {
    since: FIRST_MODERN,
  }),
  notification('notifications/resources/list_changed', S2C, 'ResourceListChangedNotification', {
    senderCapability: 'resources.listChanged',
  }),
  notification('notifications/resources/updated', S2C, 'ResourceUpdatedNotification', {
    senderCapability: 'resources.subscribe',
  }),
  notification('notifications/prompts/list_changed', S2C, 'PromptListChangedNotification', {
    senderCapability: 'prompts.listChanged',
  }),
  notification('notifications/tools/list_changed', S2C, 'ToolListChangedNotification', {
    senderCapability: 'tools.listChanged',
  }),
  notification('notifications/message', S2C, 'LoggingMessageNotification', { senderCapability: 'logging' }),
  notification('notifications/elicitation/complete', S2C, 'ElicitationCompleteNotification', {
    since: '2025-11-25',
    until: HANDSHAKE_END,
    capability: 'elicitation.url',
  }),
  notification('notifications/tasks/status', 'both', 'TaskStatusNotification', {
    since: '2025-11-25',
    until: HANDSHAKE_END,
  }),
];

const byMethod = new Map(METHODS.map((entry) => [entry.method, entry]));

function resolve(entry: MethodEntry, revision: Revision): MethodDefinition {
  const { capabilitySince, later, capability, taskAugmentable, inputRequired, cacheable, ...rest } = entry;
  const features = featuresOf(revision);
  const definition: { -readonly [K in keyof MethodDefinition]: MethodDefinition[K] } = { ...rest };
  if (later !== undefined && revisionWithin(revision, later.since)) definition.direction = later.direction;
  if (capability !== undefined && revisionWithin(revision, capabilitySince ?? entry.since)) {
    definition.capability = capability;
  }
  if (taskAugmentable && features.tasks) definition.taskAugmentable = true;
  if (inputRequired && features.multiRoundTrip) definition.inputRequired = true;
  if (cacheable && features.cacheableResults) definition.cacheable = true;
  return Object.freeze(definition);
}

const definitionCache = new Map<Revision, ReadonlyMap<string, MethodDefinition>>();

function registryOf(revision: Revision): ReadonlyMap<string, MethodDefinition> {
  let registry = definitionCache.get(revision);
  if (!registry) {
    registry = new Map(
      METHODS.filter((entry) => revisionWithin(revision, entry.since, entry.until)).map((entry) => [
        entry.method,
        resolve(entry, revision),
      ]),
    );
    definitionCache.set(revision, registry);
  }
  return registry;
}

/** The method as it exists in `revision`, or undefined when that revision does not have it. */
export function methodDefinition(method: string, revision: Revision): MethodDefinition | undefined {
  return registryOf(revision).get(method);
}

/** Every method of `revision`, requests first, in registry order. */
export function methodsOf(revision: Revision): readonly MethodDefinition[] {
  return [...registryOf(revision).values()];
}

/** Whether any supported revision has the method (to tell "unknown method" from "not in this revision"). */
export function isKnownMethod(method: string): boolean {
  const entry = byMethod.get(method);
  return entry !== undefined && SUPPORTED_REVISIONS.some((r) => revisionWithin(r, entry.since, entry.until));
}

/**
 * Whether a request of `method` in `revision` may be answered with an `InputRequiredResult`
 * (2026-07-28: `tools/call`, `prompts/get`, `resources/read`), to be retried with the input asked for.
 */
export function mayRequireInput(method: string, revision: Revision): boolean {
  return methodDefinition(method, revision)?.inputRequired === true;
}

/**
 * Whether the result of `method` in `revision` is a `CacheableResult` carrying `ttlMs` and
 * `cacheScope` (2026-07-28: `server/discover`, the four lists and `resources/read`).
 */
export function hasCacheableResult(method: string, revision: Revision): boolean {
  return methodDefinition(method, revision)?.cacheable === true;
}

/** A definition's `params` schema: the shape of `params` itself (optional params are unwrapped). */
function paramsOf(method: string, definitionName: string, revision: Revision): z.ZodType {
  const schema = methodSchema(method, definitionName, revision) as z.ZodObject | undefined;
  const params = schema?.shape.params as z.ZodType | undefined;
  if (!params) throw new TypeError(`${definitionName} of ${revision} has no params schema`);
  return params instanceof z.ZodOptional ? (params.unwrap() as z.ZodType) : params;
}

/**
 * A cache by revision, then by method: these lookups run for every message, so no key string is
 * built per call. Only schemas are stored, never misses, so names a peer makes up cannot grow it.
 */
function revisionCache(build: (method: string, revision: Revision) => z.ZodType | undefined) {
  const byRevision = new Map<Revision, Map<string, z.ZodType>>();
  return (method: string, revision: Revision): z.ZodType | undefined => {
    let byMethod = byRevision.get(revision);
    if (!byMethod) byRevision.set(revision, (byMethod = new Map()));
    let schema = byMethod.get(method);
    if (schema === undefined) {
      schema = build(method, revision);
      if (schema !== undefined) byMethod.set(method, schema);
    }
    return schema;
  };
}

const cachedParams = revisionCache((method, revision) => {
  const definition = methodDefinition(method, revision);
  return definition && paramsOf(method, definition.definition, revision);
});

const cachedResult = revisionCache((method, revision) => {
  const result = methodDefinition(method, revision)?.result;
  return result === undefined ? undefined : methodSchema(method, result, revision);
});

/**
 * The schema of the method's `params` in `revision` (memoised), or undefined when the revision
 * lacks the method. Methods whose params are optional get the schema of the object; validate
 * `params ?? {}` against it.
 */
export function paramsSchemaFor(method: string, revision: Revision): z.ZodType | undefined {
  return cachedParams(method, revision);
}

/** Options of `resultSchemaFor`. */
export interface ResultSchemaOptions {
  /** The request carried `task` (2025-11-25 task augmentation), so the answer is a `CreateTaskResult`. */
  readonly taskAugmented?: boolean;
  /** The answer is an interim `InputRequiredResult` (2026-07-28 multi round-trip requests). */
  readonly inputRequired?: boolean;
}

/**
 * The schema of the method's result in `revision` (memoised); undefined for notifications and
 * for methods the revision lacks. For a task-augmented request of a method that allows it, pass
 * `taskAugmented: true` to get `CreateTaskResult` instead; for the interim answer of a method that
 * may require input, `inputRequired: true` to get `InputRequiredResult`.
 */
export function resultSchemaFor(
  method: string,
  revision: Revision,
  options: ResultSchemaOptions = {},
): z.ZodType | undefined {
  if (options.taskAugmented && methodDefinition(method, revision)?.taskAugmentable) {
    return methodSchema(method, 'CreateTaskResult', revision);
  }
  if (options.inputRequired)
    return mayRequireInput(method, revision) ? methodSchema(method, 'InputRequiredResult', revision) : undefined;
  return cachedResult(method, revision);
}

/** Whether a result says it is an interim answer asking for input (2026-07-28 `resultType`). */
function isInputRequired(result: unknown): boolean {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { resultType?: unknown }).resultType === 'input_required'
  );
}

/** The outcome of a check: zod's, or the value itself when it passed unchanged; `data` is a `T`. */
export type CheckOutcome<T = unknown> =
  { readonly success: true; readonly data: T } | { readonly success: false; readonly error: z.ZodError };

/**
 * Validates the `params` of `method` in `revision` (pass `params ?? {}`); undefined when the
 * revision lacks the method. The common shapes of the hottest methods pass by an exact-shape
 * check (see fast-paths.ts) before the schema is built, which a process whose messages all pass
 * so never builds. Everything else is parsed by the schema. What passes is the method's params as
 * the method map types them (`ParamsOf<M>`; an object for a method named at run time).
 */
export function checkParams<M extends string>(
  method: M,
  revision: Revision,
  params: unknown,
): CheckOutcome<ParamsOf<M>> | undefined {
  // A method the revision has always has a params schema (`paramsOf` throws otherwise); the method
  // map is generated from this registry's schemas, so what passes is a `ParamsOf<M>`.
  if (paramsPassUnchanged(method, revision, params) && methodDefinition(method, revision) !== undefined)
    return { success: true, data: params as ParamsOf<M> };
  const schema = cachedParams(method, revision);
  return schema && (schema.safeParse(params) as CheckOutcome<ParamsOf<M>>);
}

/**
 * Validates params against the schema (if any) of a method no registry names (an extension's, an
 * input request's), as `checkParams` does: what passes is an object, or the check fails.
 */
export function checkObjectParams(
  schema: z.ZodType | undefined,
  params: unknown,
): CheckOutcome<Record<string, unknown>> | undefined {
  if (schema === undefined) return undefined;
  const outcome = schema.safeParse(params);
  if (!outcome.success) return outcome;
  const { data } = outcome;
  return isPlainObject(data) ? { success: true, data } : z.record(z.string(), z.unknown()).safeParse(data);
}

/**
 * Validates a result of `method` in `revision` as `checkParams` does params; undefined when there
 * is no result schema. For a method that may require input (2026-07-28), a result whose
 * `resultType` is `input_required` is checked as an `InputRequiredResult`, any other as the
 * method's complete result.
 */
export function checkResult(
  method: string,
  revision: Revision,
  result: unknown,
  options: ResultSchemaOptions = {},
): CheckOutcome | undefined {
  const interim = options.inputRequired === true || (isInputRequired(result) && mayRequireInput(method, revision));
  // As for params: the common shapes pass before the schema is built (the methods with a check all have results).
  const plain = !options.taskAugmented && !interim && resultPassesUnchanged(method, revision, result);
  if (plain && methodDefinition(method, revision)?.result !== undefined) return { success: true, data: result };
  const schema = resultSchemaFor(method, revision, interim ? { ...options, inputRequired: true } : options);
  if (!schema) return undefined;
  return schema.safeParse(result);
}
