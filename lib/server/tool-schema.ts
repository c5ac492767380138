/**
 * A tool's input or output schema, compiled once at registration into the check that calls go
 * through and the JSON Schema that `tools/list` sends (for a plain zod object, made when first
 * listed: see `isPlainZod4Object`). Takes zod 4 (and zod 3.25's `zod/v4`), zod 3, any Standard
 * Schema whose JSON Schema is at hand, or a JSON Schema object.
 */
import { z } from 'zod';
import type { ValidationIssue } from '../jsonrpc/errors';
import { toValidationIssues } from '../validation/issues';
import type { JsonSchemaValidatorFactory } from '../validation/json-schema-validator';
import { fromStandardIssues, isStandardSchema, standardJsonSchemaOf } from '../validation/standard-schema';
import type { StandardIssue, StandardResult, StandardSchemaV1 } from '../validation/standard-schema';
import { isZod3Schema, zod3ToJsonSchema } from '../validation/zod3-json-schema';
import { isPlainZod4Object } from '../validation/zod4-plain';
import type { Zod3Schema } from '../validation/zod3-json-schema';

/** A JSON Schema object, kept verbatim when a tool is registered with one (`$schema`, `$defs` and all). */
export type JsonSchemaObject = { readonly type: 'object' } & Readonly<Record<string, unknown>>;

/**
 * What describes a tool's arguments or result, `T` being the value it checks into: a zod 4 schema,
 * a zod 3 schema, any Standard Schema (valibot, arktype, ...), or a JSON Schema object.
 */
export type ToolSchema<T = unknown> =
  StandardSchemaV1<unknown, T> | z.ZodType<T> | Zod3Schema<T, unknown> | JsonSchemaObject;

/**
 * Describes a Standard Schema as JSON Schema, for libraries that do not implement Standard JSON
 * Schema themselves (valibot's `toJsonSchema`, for example).
 */
export type ToJsonSchema = (schema: never, io: 'input' | 'output') => object;

/** The outcome of checking a value: the value as the schema parsed it, or what is wrong with it. */
export type Checked = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };

/** A schema compiled: the JSON Schema to list, and the check (asynchronous for some schemas). */
export interface CompiledSchema {
  readonly json: JsonSchemaObject;
  readonly check: (value: unknown) => Checked | Promise<Checked>;
  /**
   * True when `json` is made on first read (see `isPlainZod4Object`): it is sure to be an object
   * schema, and carries no annotation but descriptions and titles.
   */
  readonly deferred?: boolean;
}

export interface CompileSchemaOptions {
  /** Which of the tool's schemas this is, and the tool's name, for error messages. */
  readonly what: 'inputSchema' | 'outputSchema';
  readonly tool: string;
  readonly validator: JsonSchemaValidatorFactory;
  readonly toJsonSchema?: ToJsonSchema;
}

type Zod4Schema = z.core.$ZodType & {
  safeParse?: (value: unknown) => z.ZodSafeParseResult<unknown>;
  safeParseAsync?: (value: unknown) => Promise<z.ZodSafeParseResult<unknown>>;
};

const isZod4Schema = (value: unknown): value is Zod4Schema =>
  typeof value === 'object' && value !== null && '_zod' in value;

function fromZodResult(parsed: z.ZodSafeParseResult<unknown>): Checked {
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: toValidationIssues(parsed.error) };
}

/** zod's own check (its issues read best), falling back to the asynchronous parse for async refinements. */
function zod4Check(schema: Zod4Schema): CompiledSchema['check'] {
  const { safeParse, safeParseAsync } = schema;
  if (typeof safeParse !== 'function' || typeof safeParseAsync !== 'function') return standardCheck(schema);
  return (value) => {
    try {
      return fromZodResult(safeParse.call(schema, value));
    } catch (error) {
      if ((error as Error | undefined)?.constructor?.name !== '$ZodAsyncError') throw error;
      return safeParseAsync.call(schema, value).then(fromZodResult);
    }
  };
}

function fromStandardResult(result: StandardResult<unknown>): Checked {
  return result.issues ? { ok: false, issues: fromStandardIssues(result.issues) } : { ok: true, value: result.value };
}

function standardCheck(schema: StandardSchemaV1): CompiledSchema['check'] {
  const validate = schema['~standard'].validate;
  return (value) => {
    const result = validate(value);
    return result instanceof Promise ? result.then(fromStandardResult) : fromStandardResult(result);
  };
}

/** zod 3 before 3.24 has no `~standard`; its `safeParseAsync` covers sync and async refinements alike. */
function zod3Check(schema: Zod3Schema): CompiledSchema['check'] {
  if (isStandardSchema(schema)) return standardCheck(schema);
  const parse = (schema as unknown as { safeParseAsync(value: unknown): Promise<ZodLikeResult> }).safeParseAsync;
  return (value) =>
    parse
      .call(schema, value)
      .then((parsed) =>
        parsed.success
          ? { ok: true, value: parsed.data }
          : { ok: false, issues: fromStandardIssues(parsed.error.issues) },
      );
}
type ZodLikeResult = { success: true; data: unknown } | { success: false; error: { issues: StandardIssue[] } };

/** The JSON Schema of a zod 4 schema; descriptions of schemas from another copy of zod are read off the schema. */
function zod4Json(schema: Zod4Schema, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    io,
    override: ({ zodSchema, jsonSchema }) => {
      const description = (zodSchema as { description?: unknown }).description;
      if (typeof description === 'string' && jsonSchema.description === undefined) jsonSchema.description = description;
    },
  }) as Record<string, unknown>;
}

/** Asks for draft 2020-12 (what MCP assumes), then draft-07 from a library that knows only that. */
function fromConverter(convert: (target: string) => Record<string, unknown>): Record<string, unknown> {
  try {
    return convert('draft-2020-12');
  } catch (error) {
    try {
      return convert('draft-07');
    } catch {
      throw error;
    }
  }
}

function standardJson(schema: StandardSchemaV1, io: 'input' | 'output', options: CompileSchemaOptions): unknown {
  if (options.toJsonSchema) return (options.toJsonSchema as (s: unknown, io: string) => object)(schema, io);
  const converter = standardJsonSchemaOf(schema);
  if (converter) return fromConverter((target) => converter[io]({ target }));
  if (isZod3Schema(schema)) return zod3ToJsonSchema(schema, io);
  throw new TypeError(
    `the ${options.what} of tool ${options.tool} is a ${schema['~standard'].vendor} schema with no JSON Schema: ` +
      `its library does not implement Standard JSON Schema, so pass a converter as the tool's toJsonSchema`,
  );
}

/** The JSON Schema to list, and the check, of whatever kind of schema this is. */
function compileKind(schema: unknown, io: 'input' | 'output', options: CompileSchemaOptions) {
  if (isZod4Schema(schema)) {
    const json = options.toJsonSchema ? standardJson(schema, io, options) : zod4Json(schema, io);
    return { json, check: zod4Check(schema) };
  }
  if (isStandardSchema(schema)) {
    return {
      json: standardJson(schema, io, options),
      check: isZod3Schema(schema) ? zod3Check(schema) : standardCheck(schema),
    };
  }
  if (isZod3Schema(schema)) return { json: zod3ToJsonSchema(schema, io), check: zod3Check(schema) };
  return undefined;
}

/** A schema compiled before, with what its compilation depended on. */
interface Compilation {
  readonly io: 'input' | 'output';
  readonly toJsonSchema: ToJsonSchema | undefined;
  readonly compiled: CompiledSchema;
}

/**
 * Compilations by schema object, for schemas of a schema library. A schema defined once and
 * registered with many server definitions (a definition built per session or per request) is
 * converted to JSON Schema once: zod's conversion alone costs about 20 µs for a one-field object.
 * Such schemas are not changed once made (zod's are immutable), and a compilation holds nothing
 * the tool's name decides. A JSON Schema object is compiled at each registration: it is the
 * caller's own object, which may have changed since.
 */
const compilations = new WeakMap<object, Compilation | Compilation[]>();

function sameCompilation(compilation: Compilation, io: Compilation['io'], toJsonSchema?: ToJsonSchema): boolean {
  return compilation.io === io && compilation.toJsonSchema === toJsonSchema;
}

/** Compiles one of a tool's schemas, once per schema of a library and the options it depends on. */
export function compileToolSchema(schema: ToolSchema, options: CompileSchemaOptions): CompiledSchema {
  const fromLibrary = isZod4Schema(schema) || isStandardSchema(schema) || isZod3Schema(schema);
  if (!fromLibrary) return compileAnew(schema, options);
  const io: Compilation['io'] = options.what === 'inputSchema' ? 'input' : 'output';
  const { toJsonSchema } = options;
  const known = compilations.get(schema);
  const same = Array.isArray(known)
    ? known.find((compilation) => sameCompilation(compilation, io, toJsonSchema))
    : known && sameCompilation(known, io, toJsonSchema) && known;
  if (same) return same.compiled;
  const compiled = compileAnew(schema, options);
  const compilation: Compilation = { io, toJsonSchema, compiled };
  // Most schemas are compiled one way (no array for them); a handful of ways at most for the rest.
  if (known === undefined) compilations.set(schema, compilation);
  else if (!Array.isArray(known)) compilations.set(schema, [known, compilation]);
  else if (known.length < 8) known.push(compilation);
  return compiled;
}

/** A plain zod 4 object schema, checked now and described as JSON Schema when first listed. */
class DeferredZod4 implements CompiledSchema {
  readonly deferred = true;
  readonly check: CompiledSchema['check'];
  private described: JsonSchemaObject | undefined;

  constructor(
    private readonly schema: Zod4Schema,
    private readonly io: 'input' | 'output',
    private readonly what: string,
  ) {
    this.check = zod4Check(schema);
  }

  get json(): JsonSchemaObject {
    if (this.described === undefined) {
      try {
        this.described = withoutDialect(zod4Json(this.schema, this.io)) as JsonSchemaObject;
      } catch (error) {
        // Not expected of a plain schema; said as registration would have said it.
        throw new TypeError(`${this.what} cannot be described as JSON Schema: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
    return this.described;
  }
}

/** The schema without `$schema`, so that no dialect is claimed to clients whose validators know only draft-07. */
function withoutDialect(json: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = json;
  void _dialect;
  return rest;
}

/** Compiles one of a tool's schemas; every failure names the tool and which schema it is. */
function compileAnew(schema: ToolSchema, options: CompileSchemaOptions): CompiledSchema {
  const what = `the ${options.what} of tool ${options.tool}`;
  const io = options.what === 'inputSchema' ? 'input' : 'output';
  if (options.toJsonSchema === undefined && isZod4Schema(schema) && isPlainZod4Object(schema)) {
    return new DeferredZod4(schema, io, what);
  }
  let compiled: { json: unknown; check: CompiledSchema['check'] } | undefined;
  try {
    compiled = compileKind(schema, io, options);
  } catch (error) {
    const message = (error as Error).message;
    if (message.startsWith(what)) throw error;
    throw new TypeError(`${what} cannot be described as JSON Schema: ${message}`, { cause: error });
  }
  if (compiled === undefined) {
    // A JSON Schema object, sent as given and checked with the server's validator.
    const raw = schema as JsonSchemaObject;
    if (raw.type !== 'object') throw new TypeError(`${what} must have type "object"`);
    const validate = options.validator(raw);
    return {
      json: raw,
      check: (value) => {
        const issues = validate(value);
        return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
      },
    };
  }
  const json = withoutDialect(compiled.json as Record<string, unknown>);
  if (json.type !== 'object') throw new TypeError(`${what} must describe an object, got ${String(json.type)}`);
  return { json: json as JsonSchemaObject, check: compiled.check };
}
