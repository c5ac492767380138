import type { Logger } from 'pino';
import type { ValidationIssue } from '../jsonrpc/errors';
import { compileJsonSchema } from '../validation/json-schema-validator';
import type { JsonSchemaValidate, JsonSchemaValidatorFactory } from '../validation/json-schema-validator';

/** Checks a value against a JSON Schema the server sent; returns its problems (none when it is valid). */
export type SchemaCheck = (schema: Readonly<Record<string, unknown>>, value: unknown) => ValidationIssue[];

/**
 * A `SchemaCheck` that compiles each schema object once (schemas are compared by identity, so a
 * refreshed tool list compiles afresh). The factory defaults to rxmcp's own subset validator; pass
 * a full one (an adapter over ajv, say) through the client's `jsonSchemaValidator` option. A
 * schema the factory cannot compile is logged and not enforced: a server's broken schema should
 * not make its tool uncallable.
 */
export function createSchemaCheck(
  factory: JsonSchemaValidatorFactory = compileJsonSchema,
  logger?: Logger,
): SchemaCheck {
  // Made at the first check: most clients never check a structured result.
  let compiled: WeakMap<object, JsonSchemaValidate> | undefined;
  return (schema, value) => {
    compiled ??= new WeakMap();
    let validate = compiled.get(schema);
    if (!validate) {
      try {
        validate = factory(schema);
      } catch (error) {
        logger?.warn({ err: error }, 'JSON Schema from the server could not be compiled; not enforced');
        validate = () => [];
      }
      compiled.set(schema, validate);
    }
    return validate(value);
  };
}

/** See `defaultSchemaCheck`. */
let defaultCheck: SchemaCheck | undefined;

/**
 * The check of every client that names neither a validator nor a logger, made with the first: one
 * for them all, since its compiled schemas are keyed by the schema objects themselves.
 */
export function defaultSchemaCheck(): SchemaCheck {
  return (defaultCheck ??= createSchemaCheck());
}
