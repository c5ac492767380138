/**
 * A small JSON Schema validator for the arguments of tools registered with a raw JSON Schema. It
 * checks the keywords tool schemas use in practice and ignores the rest (`format`, `if`/`then`,
 * `dependentSchemas`, `unevaluatedProperties`, remote `$ref`s, ...): an argument the schema would
 * reject through an ignored keyword gets through. Plug a full validator in through the server's
 * `jsonSchemaValidator` option when that matters.
 *
 * Checked: boolean schemas, `type` (one or a list; `integer` too), `enum`, `const`, `properties`,
 * `required`, `additionalProperties`, `patternProperties`, `minProperties`, `maxProperties`,
 * `items` (a schema, or a list of them in draft-07), `prefixItems`, `minItems`, `maxItems`,
 * `uniqueItems`, `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`, `exclusiveMinimum`,
 * `exclusiveMaximum` (number or draft-04 boolean form), `multipleOf`, `allOf`, `anyOf`, `oneOf`,
 * `not`, and `$ref` to a JSON pointer inside the same document (`#/$defs/x`, `#/definitions/x`, `#`).
 */
import type { ValidationIssue } from '../jsonrpc/errors';
import { formatPath } from './issues';

/** Checks a value; returns its problems (none when it is valid). */
export type JsonSchemaValidate = (value: unknown) => ValidationIssue[];

/** Turns a JSON Schema into a check, once, at registration. */
export type JsonSchemaValidatorFactory = (schema: Readonly<Record<string, unknown>>) => JsonSchemaValidate;

type Schema = boolean | Record<string, unknown>;
type Path = readonly PropertyKey[];

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return (
    keysA.length === keysB.length &&
    keysA.every(
      (key) =>
        Object.hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}

function resolvePointer(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'boolean' || (typeof node === 'object' && node !== null) ? (node as Schema) : undefined;
}

const show = (value: unknown) => JSON.stringify(value);

/** JSON with object keys sorted: equal values (in `deepEqual`'s sense) give equal strings. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether every item differs from every other: one pass over canonical forms, not a pairwise comparison (#13). */
function allUnique(items: readonly unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key = canonical(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/**
 * Whether a regular expression from a schema can be run by a backtracking engine without a peer
 * driving it into exponential time (#13: `^(a+)+$` on 28 characters took 5 s). Refused: a
 * quantified group that holds a quantifier or an alternation (`(a+)+`, `(a|aa)*`), and back
 * references. Character classes and escapes are read as single atoms.
 */
export function isBacktrackSafe(pattern: string): boolean {
  // Per open group: whether it holds a quantifier or an alternation so far.
  const groups: Array<{ risky: boolean }> = [];
  let closedRisky = false; // the group that just closed, when the next token may quantify it
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    const quantifier =
      char === '*' || char === '+' || char === '?' || (char === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i)));
    if (quantifier) {
      if (closedRisky) return false;
      if (groups.length > 0) groups[groups.length - 1]!.risky = true;
      if (char === '{') i = pattern.indexOf('}', i);
      closedRisky = false;
      continue;
    }
    closedRisky = false;
    if (char === '\\') {
      if (/[1-9k]/.test(pattern[i + 1] ?? '')) return false;
      i++;
    } else if (char === '[') {
      i++;
      if (pattern[i] === '^') i++;
      if (pattern[i] === ']') i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
    } else if (char === '(') {
      groups.push({ risky: false });
      if (pattern[i + 1] === '?')
        i += pattern[i + 2] === '<' && !'=!'.includes(pattern[i + 3] ?? '') ? pattern.indexOf('>', i) - i : 2;
    } else if (char === ')') {
      const group = groups.pop();
      closedRisky = group?.risky ?? false;
      if (closedRisky && groups.length > 0) groups[groups.length - 1]!.risky = true;
    } else if (char === '|' && groups.length > 0) {
      groups[groups.length - 1]!.risky = true;
    }
  }
  return true;
}

/** What the checks of one compiled schema share: the document `$ref`s resolve in, and its patterns. */
interface Compilation {
  readonly root: Schema;
  /** The pattern's regular expression, compiled once per schema. */
  readonly regex: (source: string) => RegExp;
}

/** Adds one problem, found at `at`. */
function report(out: ValidationIssue[], at: Path, message: string): void {
  out.push({ path: formatPath(at), message });
}

/** Checks `value` against `schema`, adding its problems to `out`; `depth` stops `$ref` cycles. */
function check(
  c: Compilation,
  schema: Schema,
  value: unknown,
  path: Path,
  out: ValidationIssue[],
  depth: number,
): void {
  if (schema === true) return;
  if (schema === false) return report(out, path, 'no value is allowed here');
  if (depth > 64) return report(out, path, 'schema nests too deeply (a $ref cycle?)');
  const s = schema;

  if (typeof s.$ref === 'string') {
    const target = resolvePointer(c.root, s.$ref);
    if (target === undefined) report(out, path, `unresolvable $ref ${s.$ref}`);
    else check(c, target, value, path, out, depth + 1);
  }
  if (!checkTypeAndValue(s, value, path, out)) return;
  if (typeof value === 'string') checkString(c, s, value, path, out);
  if (typeof value === 'number') checkNumber(s, value, path, out);
  if (Array.isArray(value)) checkArray(c, s, value, path, out, depth);
  if (typeOf(value) === 'object') checkObject(c, s, value as Record<string, unknown>, path, out, depth);
  checkComposition(c, s, value, path, out, depth);
}

/** Whether `value` passes `schema` (for `anyOf`, `oneOf` and `not`). */
function passes(c: Compilation, schema: Schema, value: unknown, path: Path, depth: number): boolean {
  const out: ValidationIssue[] = [];
  check(c, schema, value, path, out, depth + 1);
  return out.length === 0;
}

/** `type`, `enum` and `const`; false when the type is wrong, which no other keyword is checked after. */
function checkTypeAndValue(s: Record<string, unknown>, value: unknown, path: Path, out: ValidationIssue[]): boolean {
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((type) => hasType(value, type))) {
      report(
        out,
        path,
        value === undefined
          ? `required, expected ${types.join(' or ')}`
          : `expected ${types.join(' or ')}, received ${typeOf(value)}`,
      );
      return false;
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((option) => deepEqual(option, value))) {
    report(out, path, `expected one of ${s.enum.map(show).join(', ')}`);
  }
  if ('const' in s && !deepEqual(s.const, value)) report(out, path, `expected ${show(s.const)}`);
  return true;
}

/** `minLength` and `maxLength` (in code points) and `pattern`. */
function checkString(
  c: Compilation,
  s: Record<string, unknown>,
  value: string,
  path: Path,
  out: ValidationIssue[],
): void {
  const length = [...value].length;
  if (typeof s.minLength === 'number' && length < s.minLength)
    report(out, path, `expected at least ${s.minLength} characters`);
  if (typeof s.maxLength === 'number' && length > s.maxLength)
    report(out, path, `expected at most ${s.maxLength} characters`);
  if (typeof s.pattern === 'string' && !c.regex(s.pattern).test(value))
    report(out, path, `expected to match ${s.pattern}`);
}

/** `minimum`, `maximum`, their exclusive forms and `multipleOf`. */
function checkNumber(s: Record<string, unknown>, value: number, path: Path, out: ValidationIssue[]): void {
  if (typeof s.minimum === 'number') {
    if (s.exclusiveMinimum === true ? value <= s.minimum : value < s.minimum)
      report(out, path, `expected ${s.exclusiveMinimum === true ? '>' : '>='} ${s.minimum}`);
  }
  if (typeof s.maximum === 'number') {
    if (s.exclusiveMaximum === true ? value >= s.maximum : value > s.maximum)
      report(out, path, `expected ${s.exclusiveMaximum === true ? '<' : '<='} ${s.maximum}`);
  }
  if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
    report(out, path, `expected > ${s.exclusiveMinimum}`);
  if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
    report(out, path, `expected < ${s.exclusiveMaximum}`);
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
    const quotient = value / s.multipleOf;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9) report(out, path, `expected a multiple of ${s.multipleOf}`);
  }
}

/** `minItems`, `maxItems`, `uniqueItems`, and the items' schemas (`prefixItems`, `items`, `additionalItems`). */
function checkArray(
  c: Compilation,
  s: Record<string, unknown>,
  value: unknown[],
  path: Path,
  out: ValidationIssue[],
  depth: number,
): void {
  if (typeof s.minItems === 'number' && value.length < s.minItems)
    report(out, path, `expected at least ${s.minItems} items`);
  if (typeof s.maxItems === 'number' && value.length > s.maxItems)
    report(out, path, `expected at most ${s.maxItems} items`);
  if (s.uniqueItems === true && !allUnique(value)) {
    report(out, path, 'expected unique items');
  }
  const prefix = (Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []) as Schema[];
  const rest = Array.isArray(s.items) ? (s.additionalItems as Schema | undefined) : (s.items as Schema | undefined);
  value.forEach((item, index) => {
    const sub = index < prefix.length ? prefix[index] : rest;
    if (sub !== undefined) check(c, sub, item, [...path, index], out, depth + 1);
  });
}

/**
 * `minProperties`, `maxProperties`, `required`, and the properties' schemas (`properties`,
 * `patternProperties`, `additionalProperties`).
 */
function checkObject(
  c: Compilation,
  s: Record<string, unknown>,
  value: Record<string, unknown>,
  path: Path,
  out: ValidationIssue[],
  depth: number,
): void {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const patternProperties = (s.patternProperties ?? {}) as Record<string, Schema>;
  const keys = Object.keys(value);
  if (typeof s.minProperties === 'number' && keys.length < s.minProperties)
    report(out, path, `expected at least ${s.minProperties} properties`);
  if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties)
    report(out, path, `expected at most ${s.maxProperties} properties`);
  if (Array.isArray(s.required)) {
    for (const name of s.required as string[]) {
      // Own properties only: `toString` or `constructor` are not present because Object has them (#13).
      if (!Object.hasOwn(value, name)) {
        const type = (properties[name] as Record<string, unknown> | undefined)?.type;
        report(out, [...path, name], typeof type === 'string' ? `required, expected ${type}` : 'required');
      }
    }
  }
  for (const key of keys) {
    let known = false;
    if (Object.hasOwn(properties, key)) {
      known = true;
      check(c, properties[key]!, value[key], [...path, key], out, depth + 1);
    }
    for (const [pattern, sub] of Object.entries(patternProperties)) {
      if (c.regex(pattern).test(key)) {
        known = true;
        check(c, sub, value[key], [...path, key], out, depth + 1);
      }
    }
    if (!known && s.additionalProperties !== undefined) {
      if (s.additionalProperties === false) report(out, [...path, key], 'unexpected property');
      else check(c, s.additionalProperties as Schema, value[key], [...path, key], out, depth + 1);
    }
  }
}

/** `allOf`, `anyOf`, `oneOf` and `not`. */
function checkComposition(
  c: Compilation,
  s: Record<string, unknown>,
  value: unknown,
  path: Path,
  out: ValidationIssue[],
  depth: number,
): void {
  if (Array.isArray(s.allOf)) for (const sub of s.allOf as Schema[]) check(c, sub, value, path, out, depth + 1);
  if (Array.isArray(s.anyOf) && !(s.anyOf as Schema[]).some((sub) => passes(c, sub, value, path, depth))) {
    report(out, path, 'matches none of the allowed shapes');
  }
  if (Array.isArray(s.oneOf)) {
    const matching = (s.oneOf as Schema[]).filter((sub) => passes(c, sub, value, path, depth)).length;
    if (matching !== 1)
      report(
        out,
        path,
        matching === 0 ? 'matches none of the allowed shapes' : 'matches more than one of the exclusive shapes',
      );
  }
  if (s.not !== undefined && passes(c, s.not as Schema, value, path, depth))
    report(out, path, 'matches a shape that is not allowed');
}

/** Compiles a JSON Schema (the subset described above) into a check. */
export const compileJsonSchema: JsonSchemaValidatorFactory = (rootSchema) => {
  let patterns: Map<string, RegExp> | undefined;
  const compilation: Compilation = {
    root: rootSchema as Schema,
    // A pattern that could backtrack without bound is not enforced (as an unchecked keyword is not).
    regex: (source) => {
      patterns ??= new Map();
      let compiled = patterns.get(source);
      if (!compiled) patterns.set(source, (compiled = isBacktrackSafe(source) ? new RegExp(source, 'u') : /(?:)/u));
      return compiled;
    },
  };
  return (value) => {
    const out: ValidationIssue[] = [];
    check(compilation, compilation.root, value, [], out, 0);
    return out;
  };
};
