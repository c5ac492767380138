/**
 * Standard Schema (v1) and Standard JSON Schema (v1): the interfaces schema libraries (zod,
 * valibot, arktype, ...) implement under `~standard`, so that a schema from any of them can check
 * values and, when the library offers it, describe itself as JSON Schema.
 */
import type { ValidationIssue } from '../jsonrpc/errors';
import { formatPath } from './issues';

/** A schema that checks values: `~standard.validate`, with its input and output types. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

/** The `~standard` property of a Standard Schema: its vendor, version, `validate` and types. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  /** Checks a value; asynchronous for schemas with asynchronous checks. */
  readonly validate: (
    value: unknown,
    options?: { readonly libraryOptions?: Record<string, unknown> | undefined },
  ) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: StandardTypes<Input, Output> | undefined;
}

/** What a Standard Schema's `validate` gives: the value, or the issues found. */
export type StandardResult<Output> =
  { readonly value: Output; readonly issues?: undefined } | { readonly issues: readonly StandardIssue[] };

/** One problem a Standard Schema found: its message, and where in the value (Standard Schema v1). */
export interface StandardIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** The input and output types a Standard Schema carries, for type inference only. */
export interface StandardTypes<Input = unknown, Output = Input> {
  readonly input: Input;
  readonly output: Output;
}

/** The type a Standard Schema accepts. */
export type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input'];
/** The type a Standard Schema checks values into. */
export type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];

/** A schema that describes itself as JSON Schema: `~standard.jsonSchema` (Standard JSON Schema v1). */
export interface StandardJsonSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: StandardTypes<Input, Output> | undefined;
    readonly jsonSchema: StandardJsonSchemaConverter;
  };
}

/**
 * Describes the accepted (`input`) or produced (`output`) values. Targets: `draft-2020-12` and
 * `draft-07` are the ones libraries are asked to support; a library throws for one it does not.
 */
export interface StandardJsonSchemaConverter {
  /** The JSON Schema of the values the schema accepts. */
  readonly input: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
  /** The JSON Schema of the values the schema produces. */
  readonly output: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
}

/** What a Standard JSON Schema converter is asked for: the JSON Schema dialect to target. */
export interface StandardJsonSchemaOptions {
  readonly target: string;
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** Whether `value` carries a Standard Schema v1 `~standard.validate`. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: Partial<StandardSchemaProps> } | null)?.['~standard'];
  return typeof props === 'object' && props !== null && props.version === 1 && typeof props.validate === 'function';
}

/** The `~standard.jsonSchema` converter of `schema`, when its library implements Standard JSON Schema. */
export function standardJsonSchemaOf(schema: StandardSchemaV1): StandardJsonSchemaConverter | undefined {
  const converter = (schema as unknown as Partial<StandardJsonSchemaV1>)['~standard']?.jsonSchema;
  return typeof converter?.input === 'function' && typeof converter.output === 'function' ? converter : undefined;
}

/** A Standard Schema issue as a `{ path, message }` pair, its path written as `items[0].name`. */
export function fromStandardIssues(issues: readonly StandardIssue[]): ValidationIssue[] {
  return issues.map((issue) => {
    const keys = (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment));
    return { path: formatPath(keys), message: issue.message };
  });
}
