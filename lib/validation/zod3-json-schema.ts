/**
 * zod 3 (the classic API of zod 3.x) recognised by shape, and its schemas described as JSON Schema
 * (draft 2020-12): zod 3 has no converter of its own. Covers the kinds a tool's arguments and
 * results use; any other kind is refused by name.
 */
import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
import type { StandardSchemaProps } from './standard-schema';

/** A zod 3 classic schema, as far as it is read here: its `_def` and its types. */
export interface Zod3Schema<Output = unknown, Input = Output> {
  readonly _def: { readonly typeName: string };
  readonly _output: Output;
  readonly _input: Input;
  readonly '~standard'?: StandardSchemaProps<Input, Output>;
}

/** A zod 3 schema of a kind the converter does not describe, and where it sits. */
export class Zod3ConversionError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.SchemaConversion;
  override readonly name = 'Zod3ConversionError';

  constructor(
    readonly kind: string,
    readonly path: string,
  ) {
    super(`zod 3 schemas of kind ${kind} cannot be described as JSON Schema (at ${path || 'the root'})`);
  }
}

/** Whether `value` is a zod 3 classic schema (zod 4 schemas carry `_zod` instead). */
export function isZod3Schema(value: unknown): value is Zod3Schema {
  const def = (value as { _def?: { typeName?: unknown } } | null)?._def;
  return (
    typeof def === 'object' &&
    def !== null &&
    typeof def.typeName === 'string' &&
    def.typeName.startsWith('Zod') &&
    !('_zod' in (value as object))
  );
}

type Json = Record<string, unknown>;
type Io = 'input' | 'output';

/** The parts of zod 3's `_def`s read below, all optional: which are present depends on `typeName`. */
interface Def {
  readonly typeName: string;
  readonly description?: string;
  readonly checks?: readonly { kind: string; value?: unknown; inclusive?: boolean; regex?: RegExp }[];
  readonly shape?: () => Record<string, Zod3Schema>;
  readonly unknownKeys?: string;
  readonly catchall?: Zod3Schema;
  readonly type?: Zod3Schema;
  readonly minLength?: { value: number } | null;
  readonly maxLength?: { value: number } | null;
  readonly exactLength?: { value: number } | null;
  readonly innerType?: Zod3Schema;
  readonly defaultValue?: () => unknown;
  readonly values?: readonly unknown[] | Record<string, unknown>;
  readonly value?: unknown;
  readonly options?: readonly Zod3Schema[];
  readonly keyType?: Zod3Schema;
  readonly valueType?: Zod3Schema;
  readonly schema?: Zod3Schema;
  readonly in?: Zod3Schema;
  readonly out?: Zod3Schema;
}

const STRING_FORMATS: Record<string, string> = {
  email: 'email',
  url: 'uri',
  uuid: 'uuid',
  datetime: 'date-time',
  date: 'date',
  time: 'time',
  duration: 'duration',
  ip: 'ip',
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function stringSchema(def: Def): Json {
  const json: Json = { type: 'string' };
  const patterns: string[] = [];
  for (const check of def.checks ?? []) {
    if (check.kind === 'min') json.minLength = check.value;
    else if (check.kind === 'max') json.maxLength = check.value;
    else if (check.kind === 'length') json.minLength = json.maxLength = check.value;
    else if (check.kind === 'regex' && check.regex) patterns.push(check.regex.source);
    else if (check.kind === 'startsWith') patterns.push(`^${escapeRegExp(String(check.value))}`);
    else if (check.kind === 'endsWith') patterns.push(`${escapeRegExp(String(check.value))}$`);
    else if (check.kind === 'includes') patterns.push(escapeRegExp(String(check.value)));
    else if (STRING_FORMATS[check.kind]) json.format = STRING_FORMATS[check.kind];
  }
  if (patterns.length === 1) json.pattern = patterns[0];
  else if (patterns.length > 1) json.allOf = patterns.map((pattern) => ({ pattern }));
  return json;
}

function numberSchema(def: Def): Json {
  const json: Json = { type: 'number' };
  for (const check of def.checks ?? []) {
    if (check.kind === 'int') json.type = 'integer';
    else if (check.kind === 'min') json[check.inclusive ? 'minimum' : 'exclusiveMinimum'] = check.value;
    else if (check.kind === 'max') json[check.inclusive ? 'maximum' : 'exclusiveMaximum'] = check.value;
    else if (check.kind === 'multipleOf') json.multipleOf = check.value;
  }
  return json;
}

function jsonType(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

function enumSchema(values: readonly unknown[]): Json {
  const types = [...new Set(values.map(jsonType))];
  return types.length === 1 ? { type: types[0], enum: values } : { enum: values };
}

/** Whether a property may be left out: optional, or (for input) defaulted. */
function mayBeAbsent(schema: Zod3Schema, io: Io): boolean {
  const def = schema._def as Def;
  if (def.typeName === 'ZodOptional') return true;
  if (def.typeName === 'ZodDefault') return io === 'input';
  if (def.typeName === 'ZodNullable' || def.typeName === 'ZodReadonly' || def.typeName === 'ZodBranded') {
    return mayBeAbsent(def.innerType ?? def.type!, io);
  }
  return false;
}

function objectSchema(def: Def, io: Io, path: string): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const [key, property] of Object.entries(def.shape!())) {
    properties[key] = convert(property, io, path ? `${path}.${key}` : key);
    if (!mayBeAbsent(property, io)) required.push(key);
  }
  const json: Json = { type: 'object', properties };
  if (required.length > 0) json.required = required;
  const catchall = def.catchall && (def.catchall._def as Def).typeName !== 'ZodNever' ? def.catchall : undefined;
  if (catchall) json.additionalProperties = convert(catchall, io, `${path}[*]`);
  else if (def.unknownKeys === 'strict') json.additionalProperties = false;
  return json;
}

function arraySchema(def: Def, io: Io, path: string): Json {
  const json: Json = { type: 'array', items: convert(def.type!, io, `${path}[]`) };
  if (def.minLength) json.minItems = def.minLength.value;
  if (def.maxLength) json.maxItems = def.maxLength.value;
  if (def.exactLength) json.minItems = json.maxItems = def.exactLength.value;
  return json;
}

function recordSchema(def: Def, io: Io, path: string): Json {
  const json: Json = { type: 'object', additionalProperties: convert(def.valueType!, io, `${path}[*]`) };
  const keys = convert(def.keyType!, io, `${path}(key)`);
  if (Object.keys(keys).some((key) => key !== 'type')) json.propertyNames = keys;
  return json;
}

/** One schema, by kind; `path` names where it sits, for the error on an unsupported kind. */
function describe(def: Def, io: Io, path: string): Json {
  switch (def.typeName) {
    case 'ZodString':
      return stringSchema(def);
    case 'ZodNumber':
      return numberSchema(def);
    case 'ZodBoolean':
      return { type: 'boolean' };
    case 'ZodNull':
      return { type: 'null' };
    case 'ZodAny':
    case 'ZodUnknown':
      return {};
    case 'ZodEnum':
      return enumSchema(def.values as readonly unknown[]);
    case 'ZodNativeEnum': {
      const values = def.values as Record<string, unknown>;
      // A numeric TypeScript enum maps its values back to its names: keep only the values.
      return enumSchema(
        Object.keys(values)
          .filter((key) => typeof values[values[key] as string] !== 'number')
          .map((key) => values[key]),
      );
    }
    case 'ZodLiteral':
      return { type: jsonType(def.value), const: def.value };
    case 'ZodObject':
      return objectSchema(def, io, path);
    case 'ZodArray':
      return arraySchema(def, io, path);
    case 'ZodRecord':
      return recordSchema(def, io, path);
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      return { anyOf: def.options!.map((option) => convert(option, io, path)) };
    case 'ZodOptional':
    case 'ZodReadonly':
      return convert(def.innerType!, io, path);
    case 'ZodBranded':
      return convert(def.type!, io, path);
    case 'ZodNullable':
      return { anyOf: [convert(def.innerType!, io, path), { type: 'null' }] };
    case 'ZodDefault':
      return { ...convert(def.innerType!, io, path), default: def.defaultValue!() };
    case 'ZodEffects':
      // A refinement or transform: the JSON it accepts is that of the schema it wraps.
      return convert(def.schema!, io, path);
    case 'ZodPipeline':
      return convert(io === 'input' ? def.in! : def.out!, io, path);
    default:
      throw new Zod3ConversionError(def.typeName, path);
  }
}

function convert(schema: Zod3Schema, io: Io, path: string): Json {
  const def = schema._def as Def;
  const json = describe(def, io, path);
  return def.description === undefined ? json : { description: def.description, ...json };
}

/**
 * A zod 3 schema as JSON Schema: the values it accepts (`input`) or produces (`output`). Throws a
 * `Zod3ConversionError` naming the kind and where it sits for a kind JSON Schema cannot express
 * (dates, maps, functions, ...).
 */
export function zod3ToJsonSchema(schema: Zod3Schema, io: Io = 'input'): Record<string, unknown> {
  return convert(schema, io, '');
}
