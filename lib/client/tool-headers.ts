/**
 * `x-mcp-header` (spec 2026-07-28: Transports → Streamable HTTP → Custom Headers from Tool
 * Parameters): which tool arguments a client mirrors into `Mcp-Param-{Name}` headers, the rules a
 * tool's annotations must follow (a tool that breaks them is left out of the tool list), and the
 * headers of one call.
 */
import { encodeHeaderValue } from '../transport/http-client/streamable-http/request-headers';

const ANNOTATION = 'x-mcp-header';

/** One annotated property: the chain of `properties` keys that reaches it, and its header name. */
export interface MirroredParam {
  readonly path: readonly string[];
  readonly name: string;
  readonly type: 'string' | 'integer' | 'boolean';
}

/** A tool's annotations, read once: the parameters to mirror, or why the tool is invalid. */
export type ToolHeaderPlan = { readonly params: readonly MirroredParam[] } | { readonly invalid: string };

/** RFC 9110 `tchar`: the characters of a header field name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is data, not a schema. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The primitive type of a property, when it is one a header may carry. */
function primitiveType(schema: Record<string, unknown>): MirroredParam['type'] | undefined {
  const declared = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  const [only] = declared;
  if (declared.length !== 1) return undefined;
  return only === 'string' || only === 'integer' || only === 'boolean' ? only : undefined;
}

/** Every schema object holding an annotation, wherever it sits. */
function annotatedSchemas(schema: unknown, found: Set<Record<string, unknown>>): void {
  if (Array.isArray(schema)) {
    for (const item of schema) annotatedSchemas(item, found);
    return;
  }
  if (!isObject(schema)) return;
  if (Object.hasOwn(schema, ANNOTATION)) found.add(schema);
  for (const [keyword, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(keyword)) continue;
    if (SCHEMA_MAPS.has(keyword) && isObject(value)) {
      for (const sub of Object.values(value)) annotatedSchemas(sub, found);
    } else annotatedSchemas(value, found);
  }
}

/** The annotated properties reachable from the root through `properties` keys only. */
function reachable(schema: Record<string, unknown>, path: string[], out: Map<Record<string, unknown>, string[]>): void {
  const properties = schema.properties;
  if (!isObject(properties)) return;
  for (const [key, sub] of Object.entries(properties)) {
    if (!isObject(sub)) continue;
    const at = [...path, key];
    if (Object.hasOwn(sub, ANNOTATION)) out.set(sub, at);
    reachable(sub, at, out);
  }
}

function checkName(value: unknown, where: string): string | undefined {
  if (typeof value !== 'string' || value === '') return `x-mcp-header of ${where} must be a non-empty string`;
  if (!TOKEN.test(value)) return `x-mcp-header ${JSON.stringify(value)} of ${where} is not a valid header name token`;
  return undefined;
}

/**
 * Reads a tool's `inputSchema` annotations. Invalid when an annotation is empty or not a header
 * name token (RFC 9110 `tchar`: no spaces, colons, control or non-ASCII characters), names a
 * header another annotation names too (case-insensitively), sits on a property that is not a
 * string, integer or boolean, or sits anywhere not reachable from the root through `properties`
 * alone (under `items`, a composition or conditional keyword, `$defs`, ...).
 */
export function planToolHeaders(inputSchema: unknown): ToolHeaderPlan {
  if (!isObject(inputSchema)) return { params: [] };
  const annotated = new Set<Record<string, unknown>>();
  annotatedSchemas(inputSchema, annotated);
  if (annotated.size === 0) return { params: [] };
  const paths = new Map<Record<string, unknown>, string[]>();
  reachable(inputSchema, [], paths);
  const params: MirroredParam[] = [];
  const seen = new Set<string>();
  for (const schema of annotated) {
    const path = paths.get(schema);
    if (!path)
      return {
        invalid: `x-mcp-header ${JSON.stringify(schema[ANNOTATION])} is not on a property reachable through properties alone`,
      };
    const where = `property ${path.join('.')}`;
    const problem = checkName(schema[ANNOTATION], where);
    if (problem) return { invalid: problem };
    const name = schema[ANNOTATION] as string;
    if (seen.has(name.toLowerCase())) return { invalid: `x-mcp-header ${JSON.stringify(name)} is used more than once` };
    seen.add(name.toLowerCase());
    const type = primitiveType(schema);
    if (!type)
      return {
        invalid: `x-mcp-header ${JSON.stringify(name)} is on ${where}, which is not a string, integer or boolean`,
      };
    params.push({ path, name, type });
  }
  return { params };
}

/** The value at a chain of keys, or undefined where the chain breaks. */
function valueAt(args: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const key of path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** A value as a header carries it, or undefined when it has none (null, missing, an object). */
function headerText(value: unknown, param: MirroredParam): string | undefined {
  if (typeof value === 'string') return encodeHeaderValue(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new RangeError(
        `Argument ${param.path.join('.')} (Mcp-Param-${param.name}) must be an integer within the safe range, got ${value}`,
      );
    }
    return String(value);
  }
  return undefined;
}

/**
 * The `Mcp-Param-{Name}` headers of one call: for each annotated parameter with a value in
 * `args`, the value as text (strings encoded when they are not plain visible ASCII, integers in
 * decimal, booleans as `true`/`false`); a missing or null value sends no header. Throws
 * `RangeError` for an integer outside the safe range.
 */
export function toolCallHeaders(
  plan: ToolHeaderPlan,
  args: Record<string, unknown> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if ('invalid' in plan || !args) return headers;
  for (const param of plan.params) {
    const text = headerText(valueAt(args, param.path), param);
    if (text !== undefined) headers[`Mcp-Param-${param.name}`] = text;
  }
  return headers;
}
