/**
 * A small JSON Schema validator for the schemas MCP carries: tool output schemas and elicitation
 * forms. It covers the structural and value keywords those schemas use (draft-07 and 2020-12
 * spellings) and treats everything else as an annotation, as JSON Schema itself does for unknown
 * keywords. `format` is an annotation too (2020-12 default behaviour), and a `$ref` it cannot
 * resolve inside the document is accepted rather than guessed at.
 */

/** Any JSON Schema: an object or a boolean (`true` accepts everything, `false` nothing). */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** One reason a value does not match a schema. */
export interface JsonSchemaIssue {
  /** JSON Pointer of the offending value (`''` for the root, `/items/0/name` inside). */
  readonly path: string;
  readonly message: string;
}

type SchemaObject = { readonly [keyword: string]: unknown };

const MAX_DEPTH = 64;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/** Deep equality of JSON values, for `enum`, `const` and `uniqueItems`. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => jsonEqual(item, other[i]));
  }
  const keysA = Object.keys(a);
  const recordB = b as Record<string, unknown>;
  return (
    keysA.length === Object.keys(recordB).length &&
    keysA.every((key) => Object.prototype.hasOwnProperty.call(recordB, key) && jsonEqual((a as Record<string, unknown>)[key], recordB[key]))
  );
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'boolean' || (typeof node === 'object' && node !== null) ? (node as JsonSchema) : undefined;
}

class Checker {
  readonly issues: JsonSchemaIssue[] = [];

  constructor(private readonly root: JsonSchema) {}

  private fail(path: string, message: string): void {
    this.issues.push({ path, message });
  }

  /** Whether `value` matches `schema`, without recording issues (for anyOf, oneOf, not, if). */
  matches(schema: JsonSchema, value: unknown, depth: number): boolean {
    const probe = new Checker(this.root);
    probe.check(schema, value, '', depth);
    return probe.issues.length === 0;
  }

  check(schema: JsonSchema, value: unknown, path: string, depth: number): void {
    if (schema === true) return;
    if (schema === false) return this.fail(path, 'no value is allowed here');
    if (depth > MAX_DEPTH) return this.fail(path, 'the schema nests too deeply (or refers to itself without end)');
    const s = schema;
    if (typeof s.$ref === 'string') {
      const target = resolveRef(this.root, s.$ref);
      if (target !== undefined) this.check(target, value, path, depth + 1);
    }
    if (s.type !== undefined) {
      const types = (Array.isArray(s.type) ? s.type : [s.type]) as string[];
      if (!types.some((type) => matchesType(value, type))) {
        return this.fail(path, `expected ${types.join(' or ')}, got ${typeOf(value)}`);
      }
    }
    if (Array.isArray(s.enum) && !s.enum.some((option) => jsonEqual(option, value))) {
      this.fail(path, `expected one of ${JSON.stringify(s.enum)}, got ${JSON.stringify(value)}`);
    }
    if ('const' in s && !jsonEqual(s.const, value)) {
      this.fail(path, `expected ${JSON.stringify(s.const)}, got ${JSON.stringify(value)}`);
    }
    if (typeof value === 'number') this.checkNumber(s, value, path);
    else if (typeof value === 'string') this.checkString(s, value, path);
    else if (Array.isArray(value)) this.checkArray(s, value, path, depth);
    else if (typeof value === 'object' && value !== null) this.checkObject(s, value as Record<string, unknown>, path, depth);
    this.checkCombinators(s, value, path, depth);
  }

  private checkNumber(s: SchemaObject, value: number, path: string): void {
    const num = (key: string) => (typeof s[key] === 'number' ? (s[key] as number) : undefined);
    const minimum = num('minimum');
    const maximum = num('maximum');
    // Draft-04 spelled exclusivity as a boolean beside minimum/maximum; later drafts as a number.
    const exclusiveMin = s.exclusiveMinimum === true ? minimum : num('exclusiveMinimum');
    const exclusiveMax = s.exclusiveMaximum === true ? maximum : num('exclusiveMaximum');
    if (minimum !== undefined && s.exclusiveMinimum !== true && value < minimum) this.fail(path, `must be >= ${minimum}, got ${value}`);
    if (maximum !== undefined && s.exclusiveMaximum !== true && value > maximum) this.fail(path, `must be <= ${maximum}, got ${value}`);
    if (exclusiveMin !== undefined && value <= exclusiveMin) this.fail(path, `must be > ${exclusiveMin}, got ${value}`);
    if (exclusiveMax !== undefined && value >= exclusiveMax) this.fail(path, `must be < ${exclusiveMax}, got ${value}`);
    const multipleOf = num('multipleOf');
    if (multipleOf !== undefined && multipleOf > 0) {
      const quotient = value / multipleOf;
      if (Math.abs(quotient - Math.round(quotient)) > 1e-9) this.fail(path, `must be a multiple of ${multipleOf}, got ${value}`);
    }
  }

  private checkString(s: SchemaObject, value: string, path: string): void {
    const length = [...value].length; // code points, as JSON Schema counts them
    if (typeof s.minLength === 'number' && length < s.minLength) this.fail(path, `must be at least ${s.minLength} characters long`);
    if (typeof s.maxLength === 'number' && length > s.maxLength) this.fail(path, `must be at most ${s.maxLength} characters long`);
    if (typeof s.pattern === 'string') {
      let pattern: RegExp | undefined;
      try {
        pattern = new RegExp(s.pattern, 'u');
      } catch {
        pattern = undefined; // a pattern JavaScript cannot compile is not held against the value
      }
      if (pattern && !pattern.test(value)) this.fail(path, `must match the pattern ${s.pattern}`);
    }
  }

  private checkArray(s: SchemaObject, value: readonly unknown[], path: string, depth: number): void {
    if (typeof s.minItems === 'number' && value.length < s.minItems) this.fail(path, `must have at least ${s.minItems} items, got ${value.length}`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) this.fail(path, `must have at most ${s.maxItems} items, got ${value.length}`);
    // 2020-12 `prefixItems` + `items`; draft-07 `items` as an array + `additionalItems`.
    const prefix = (Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []) as JsonSchema[];
    const rest = (Array.isArray(s.items) ? s.additionalItems : s.items) as JsonSchema | undefined;
    value.forEach((item, i) => {
      const itemSchema = i < prefix.length ? prefix[i] : rest;
      if (itemSchema !== undefined) this.check(itemSchema, item, pointer(path, i), depth + 1);
    });
    if (s.uniqueItems === true) {
      for (let i = 1; i < value.length; i++) {
        if (value.slice(0, i).some((earlier) => jsonEqual(earlier, value[i]))) {
          this.fail(pointer(path, i), 'duplicates an earlier item (uniqueItems)');
          break;
        }
      }
    }
    if (s.contains !== undefined && !value.some((item) => this.matches(s.contains as JsonSchema, item, depth + 1))) {
      this.fail(path, 'no item matches the "contains" schema');
    }
  }

  private checkObject(s: SchemaObject, value: Record<string, unknown>, path: string, depth: number): void {
    const keys = Object.keys(value);
    if (Array.isArray(s.required)) {
      for (const key of s.required as string[]) {
        if (!Object.prototype.hasOwnProperty.call(value, key)) this.fail(pointer(path, key), 'is required but missing');
      }
    }
    if (typeof s.minProperties === 'number' && keys.length < s.minProperties) this.fail(path, `must have at least ${s.minProperties} properties`);
    if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties) this.fail(path, `must have at most ${s.maxProperties} properties`);
    const properties = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Record<string, JsonSchema>;
    const patterns = Object.entries((s.patternProperties ?? {}) as Record<string, JsonSchema>).flatMap(([source, schema]) => {
      try {
        return [{ pattern: new RegExp(source, 'u'), schema }];
      } catch {
        return [];
      }
    });
    for (const key of keys) {
      const at = pointer(path, key);
      let known = false;
      if (Object.prototype.hasOwnProperty.call(properties, key)) {
        known = true;
        this.check(properties[key]!, value[key], at, depth + 1);
      }
      for (const { pattern, schema } of patterns) {
        if (pattern.test(key)) {
          known = true;
          this.check(schema, value[key], at, depth + 1);
        }
      }
      if (!known && s.additionalProperties !== undefined) {
        if (s.additionalProperties === false) this.fail(at, 'is not allowed (additionalProperties is false)');
        else this.check(s.additionalProperties as JsonSchema, value[key], at, depth + 1);
      }
    }
    if (s.propertyNames !== undefined) {
      for (const key of keys) {
        if (!this.matches(s.propertyNames as JsonSchema, key, depth + 1)) this.fail(pointer(path, key), 'is not an allowed property name');
      }
    }
  }

  private checkCombinators(s: SchemaObject, value: unknown, path: string, depth: number): void {
    if (Array.isArray(s.allOf)) for (const sub of s.allOf as JsonSchema[]) this.check(sub, value, path, depth + 1);
    if (Array.isArray(s.anyOf) && !(s.anyOf as JsonSchema[]).some((sub) => this.matches(sub, value, depth + 1))) {
      this.fail(path, 'matches none of the schemas in anyOf');
    }
    if (Array.isArray(s.oneOf)) {
      const count = (s.oneOf as JsonSchema[]).filter((sub) => this.matches(sub, value, depth + 1)).length;
      if (count !== 1) this.fail(path, count === 0 ? 'matches none of the schemas in oneOf' : `matches ${count} schemas in oneOf, expected exactly one`);
    }
    if (s.not !== undefined && this.matches(s.not as JsonSchema, value, depth + 1)) this.fail(path, 'matches the schema in "not"');
    if (s.if !== undefined) {
      const branch = this.matches(s.if as JsonSchema, value, depth + 1) ? s.then : s.else;
      if (branch !== undefined) this.check(branch as JsonSchema, value, path, depth + 1);
    }
  }
}

/**
 * Checks `value` against a JSON Schema and returns every problem found (an empty array when the
 * value matches). Pure and synchronous; never throws for a well-formed schema.
 *
 * @example
 * validateJsonSchema({ type: 'object', required: ['a'] }, {}); // [{ path: '/a', message: 'is required but missing' }]
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown): JsonSchemaIssue[] {
  const checker = new Checker(schema);
  checker.check(schema, value, '', 0);
  return checker.issues;
}

/** Renders issues as one line: `at /a: is required but missing; at /b: expected number, got string`. */
export function describeJsonSchemaIssues(issues: readonly JsonSchemaIssue[], limit = 5): string {
  const shown = issues.slice(0, limit).map((issue) => `at ${issue.path === '' ? '(root)' : issue.path}: ${issue.message}`);
  if (issues.length > limit) shown.push(`and ${issues.length - limit} more`);
  return shown.join('; ');
}
