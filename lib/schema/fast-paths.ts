/**
 * Exact-shape checks for the messages of the hottest call, `tools/call` (its params and a result of
 * text content), and for those every handshake exchanges once (`initialize`, its result and
 * `notifications/initialized`), in their common shapes. Each says yes only for values its zod
 * schema accepts unchanged (every key known, no defaults or transforms involved), so a yes lets the
 * value through without building zod's copy of it; anything else, valid or not, goes to the zod
 * schema, which decides and explains. `spec/schema/fast-paths.spec.ts` and
 * `spec/schema/fast-paths-handshake.spec.ts` hold each check to that promise.
 *
 * From 2026-07-28 params carry a required `_meta` (the revision and client capabilities), which
 * is checked by its own schema, and results carry `resultType`.
 */
import { LOGGING_LEVELS } from './base';
import { metaSchemas } from './meta';
import { META } from './request-meta';
import { featuresOf, type Revision } from './revisions';

type Check = (value: unknown, revision: Revision) => boolean;

/** An object whose prototype is `Object.prototype` or none: what `JSON.parse` makes, not an array or a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** `_meta` of request params carrying at most a progress token (a string or an integer). */
function isPlainRequestMeta(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  for (const key in meta) {
    if (key !== 'progressToken') return false;
    if (!isProgressToken(meta[key])) return false;
  }
  return true;
}

const LEVELS: ReadonlySet<unknown> = new Set(LOGGING_LEVELS);

/** A token a requester chose: a string or a safe integer. */
function isProgressToken(token: unknown): boolean {
  return typeof token === 'string' || Number.isSafeInteger(token);
}

/** An `Implementation` with only the fields every peer sends: `name`, `version` and a `title` (strings). */
function isPlainImplementation(value: unknown): boolean {
  if (!isPlainObject(value) || typeof value.name !== 'string' || typeof value.version !== 'string') return false;
  for (const key in value) {
    if ((key !== 'name' && key !== 'version' && key !== 'title') || typeof value[key] !== 'string') return false;
  }
  return true;
}

/** Capabilities each declared as `{}` ("supported, no options"), which every revision accepts for every key. */
function isBareCapabilities(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    const entry = value[key];
    if (!isPlainObject(entry)) return false;
    for (const _ in entry) return false;
  }
  return true;
}

/** One entry of a modern request's `_meta` in its common shape; keys the schema does not name are open. */
function isCommonMetaEntry(key: string, value: unknown): boolean {
  switch (key) {
    case META.clientInfo:
      return isPlainImplementation(value);
    case META.logLevel:
      return LEVELS.has(value);
    case 'progressToken':
      return isProgressToken(value);
    default:
      return true;
  }
}

/**
 * The common shape of a modern request's `_meta`: the revision, bare capabilities, a plain
 * client identity, a known log level, a progress token. Checked by hand: it comes with every request.
 */
function isCommonModernRequestMeta(meta: Record<string, unknown>): boolean {
  if (typeof meta[META.protocolVersion] !== 'string' || !isBareCapabilities(meta[META.clientCapabilities])) {
    return false;
  }
  for (const key in meta) if (!isCommonMetaEntry(key, meta[key])) return false;
  return true;
}

/** `_meta` of a modern request: whatever its schema accepts unchanged (it has no defaults). */
function isModernRequestMeta(meta: unknown, revision: Revision): boolean {
  return (
    isPlainObject(meta) &&
    (isCommonModernRequestMeta(meta) || metaSchemas(revision).RequestMetaObject.safeParse(meta).success)
  );
}

/**
 * `_meta` of a result: any plain object in the handshake revisions; from 2026-07-28 the server's
 * identity in it, if there, a plain `Implementation`.
 */
function isPlainResultMeta(meta: unknown, modern: boolean): boolean {
  if (!isPlainObject(meta)) return false;
  return !modern || !(META.serverInfo in meta) || isPlainImplementation(meta[META.serverInfo]);
}

/**
 * `tools/call` params: a name, arguments as a plain object, and `_meta`: an optional progress
 * token in the handshake revisions, the required request metadata in the modern ones.
 */
function isPlainCallToolParams(value: unknown, revision: Revision): boolean {
  if (!isPlainObject(value) || typeof value.name !== 'string') return false;
  const modern = featuresOf(revision).modern;
  if (modern && value._meta === undefined) return false;
  for (const key in value) {
    if (key === 'name') continue;
    if (key === 'arguments') {
      if (!isPlainObject(value.arguments)) return false;
    } else if (key !== '_meta') {
      return false;
    } else if (!(modern ? isModernRequestMeta(value._meta, revision) : isPlainRequestMeta(value._meta))) {
      return false;
    }
  }
  return true;
}

/**
 * A `tools/call` result whose content is text blocks only, with an optional `isError`, and (from
 * 2026-07-28, where it is required) a string `resultType`.
 */
function isPlainTextToolResult(value: unknown, revision: Revision): boolean {
  if (!isPlainObject(value) || !Array.isArray(value.content)) return false;
  const { resultType: typed, modern } = featuresOf(revision);
  if (typed && typeof value.resultType !== 'string') return false;
  for (const key in value) {
    if (key === 'content' || (typed && key === 'resultType')) continue;
    if (
      key === '_meta'
        ? !isPlainResultMeta(value._meta, modern)
        : key !== 'isError' || typeof value.isError !== 'boolean'
    )
      return false;
  }
  for (const block of value.content as unknown[]) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
  }
  return true;
}

/** The flags a capability may carry as booleans in the common shape; a capability not named here carries none. */
const CAPABILITY_FLAGS: ReadonlyMap<string, readonly string[]> = new Map([
  ['tools', ['listChanged']],
  ['prompts', ['listChanged']],
  ['resources', ['subscribe', 'listChanged']],
  ['roots', ['listChanged']],
]);

/**
 * Capabilities as peers declare them in a handshake: each an object that is empty or holds its
 * boolean flags (`listChanged`, `subscribe`). Every handshake revision accepts these unchanged,
 * for the client's and the server's capabilities alike (a key one side does not define is open).
 */
function isFlagCapabilities(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    const entry = value[key];
    if (!isPlainObject(entry)) return false;
    for (const flag in entry) {
      if (typeof entry[flag] !== 'boolean' || !CAPABILITY_FLAGS.get(key)?.includes(flag)) return false;
    }
  }
  return true;
}

/** The keys of `initialize` params besides `_meta`. */
const INITIALIZE_PARAMS_KEYS: ReadonlySet<string> = new Set(['protocolVersion', 'capabilities', 'clientInfo']);

/** `initialize` params: the revision asked for, capabilities with flags only, a plain identity. */
function isPlainInitializeParams(value: unknown, revision: Revision): boolean {
  if (featuresOf(revision).modern || !isPlainObject(value) || typeof value.protocolVersion !== 'string') return false;
  if (!isFlagCapabilities(value.capabilities) || !isPlainImplementation(value.clientInfo)) return false;
  for (const key in value) {
    if (key === '_meta' ? !isPlainRequestMeta(value._meta) : !INITIALIZE_PARAMS_KEYS.has(key)) return false;
  }
  return true;
}

/** An `initialize` result: the revision, capabilities with flags only, a plain identity, instructions. */
function isPlainInitializeResult(value: unknown, revision: Revision): boolean {
  if (featuresOf(revision).modern || !isPlainObject(value) || typeof value.protocolVersion !== 'string') return false;
  if (!isFlagCapabilities(value.capabilities) || !isPlainImplementation(value.serverInfo)) return false;
  for (const key in value) {
    switch (key) {
      case 'protocolVersion':
      case 'capabilities':
      case 'serverInfo':
        continue;
      case 'instructions':
        if (typeof value.instructions !== 'string') return false;
        continue;
      case '_meta':
        if (!isPlainResultMeta(value._meta, false)) return false;
        continue;
      default:
        return false;
    }
  }
  return true;
}

/** Params of a handshake notification such as `notifications/initialized`: none, or `_meta` alone. */
function isPlainNotificationParams(value: unknown, revision: Revision): boolean {
  if (featuresOf(revision).modern || !isPlainObject(value)) return false;
  for (const key in value) if (key !== '_meta' || !isPlainObject(value._meta)) return false;
  return true;
}

const PARAMS: ReadonlyMap<string, Check> = new Map([
  ['tools/call', isPlainCallToolParams],
  ['initialize', isPlainInitializeParams],
  ['notifications/initialized', isPlainNotificationParams],
]);
const RESULTS: ReadonlyMap<string, Check> = new Map([
  ['tools/call', isPlainTextToolResult],
  ['initialize', isPlainInitializeResult],
]);

/** True when `params` of `method` is certainly valid as it is; false means: ask the schema. */
export function paramsPassUnchanged(method: string, revision: Revision, params: unknown): boolean {
  return PARAMS.get(method)?.(params, revision) ?? false;
}

/** True when `result` of `method` is certainly valid as it is; false means: ask the schema. */
export function resultPassesUnchanged(method: string, revision: Revision, result: unknown): boolean {
  return RESULTS.get(method)?.(result, revision) ?? false;
}
