/**
 * Generates instances from an official MCP JSON Schema: a minimal and a full valid instance of each
 * definition (one per top-level alternative), and mutations of them (a required property removed,
 * a property replaced by a wrongly typed value) at every object node.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: unknown };

/** One generated instance and how it came about, for failure messages. */
export interface CorpusInstance {
  readonly label: string;
  readonly value: Json;
}

/** Values that stand in for "the wrong type" whatever the expected type is. */
const WRONG_VALUES: readonly Json[] = [null, 'wrong', 12.5, 7, true, [], {}];

const MAX_DEPTH = 10;

export class JsonSchemaCorpus {
  private readonly defs: Record<string, Schema>;
  /** The (resolved, branch-chosen) schema each generated object or array was made from. */
  private readonly origin = new WeakMap<object, Schema>();

  constructor(root: Schema) {
    this.defs = (root.definitions ?? root.$defs) as Record<string, Schema>;
  }

  get definitionNames(): string[] {
    return Object.keys(this.defs).sort();
  }

  definition(name: string): Schema {
    const schema = this.defs[name];
    if (!schema) throw new Error(`no definition ${name}`);
    return schema;
  }

  /** Follows `$ref`s to the schema they name. */
  resolve(schema: Schema): Schema {
    let current = schema;
    for (let i = 0; typeof current.$ref === 'string'; i++) {
      if (i > 20) throw new Error('ref loop');
      current = this.definition(current.$ref.replace(/^#\/(definitions|\$defs)\//, ''));
    }
    return current;
  }

  /** The alternatives of a union schema, or the schema itself. */
  alternatives(schema: Schema): Schema[] {
    const resolved = this.resolve(schema);
    const options = (resolved.anyOf ?? resolved.oneOf) as Schema[] | undefined;
    return options ? options.flatMap((option) => this.alternatives(option)) : [resolved];
  }

  /** A valid instance: only required properties (`full: false`) or every property (`full: true`). */
  generate(schema: Schema, full: boolean, depth = 0): Json {
    const s = this.resolve(schema);
    if ('const' in s) return s.const as Json;
    if (Array.isArray(s.enum)) return s.enum[0] as Json;
    if (Array.isArray(s.allOf)) {
      const merged: { [key: string]: Json } = {};
      for (const part of s.allOf as Schema[]) Object.assign(merged, this.generate(part, full, depth));
      this.origin.set(merged, this.mergeAllOf(s));
      return merged;
    }
    const options = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
    if (options) return this.generate(options[0]!, full, depth);
    const type = Array.isArray(s.type) ? (s.type[0] as string) : (s.type as string | undefined);
    switch (type) {
      case 'object':
        return this.generateObject(s, full, depth);
      case 'array': {
        const items: Json[] =
          full && depth < MAX_DEPTH && s.items ? [this.generate(s.items as Schema, full, depth + 1)] : [];
        this.origin.set(items, s);
        return items;
      }
      case 'string':
        return s.format === 'uri'
          ? 'https://example.com/a'
          : s.format === 'uri-template'
            ? 'file:///{path}'
            : s.format === 'byte'
              ? 'aGVsbG8='
              : 'text';
      case 'integer':
        return 1;
      case 'number':
        return 0.5;
      case 'boolean':
        return true;
      case 'null':
        return null;
      default:
        return 'anything';
    }
  }

  private generateObject(s: Schema, full: boolean, depth: number): Json {
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    const required = new Set((s.required ?? []) as string[]);
    const out: { [key: string]: Json } = {};
    for (const [key, prop] of Object.entries(properties)) {
      if (required.has(key) || (full && depth < MAX_DEPTH)) out[key] = this.generate(prop, full, depth + 1);
    }
    const extra = s.additionalProperties;
    if (full && Object.keys(properties).length === 0 && extra && typeof extra === 'object' && depth < MAX_DEPTH) {
      out.extraKey = this.generate(extra as Schema, full, depth + 1);
    }
    this.origin.set(out, s);
    return out;
  }

  private mergeAllOf(s: Schema): Schema {
    const parts = (s.allOf as Schema[]).map((part) => this.resolve(part));
    return {
      type: 'object',
      properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
      required: parts.flatMap((p) => (p.required ?? []) as string[]),
    };
  }

  /** Valid instances of a definition: minimal and full, for each top-level alternative. */
  validInstances(name: string): CorpusInstance[] {
    const out: CorpusInstance[] = [];
    this.alternatives(this.definition(name)).forEach((alternative, i) => {
      out.push({ label: `minimal #${i}`, value: this.generate(alternative, false) });
      out.push({ label: `full #${i}`, value: this.generate(alternative, true) });
    });
    return out;
  }

  /** Every mutation of `root`: each required property removed, each property set to each wrong value. */
  mutations(root: Json): CorpusInstance[] {
    const out: CorpusInstance[] = [];
    const walk = (node: Json, path: (string | number)[]): void => {
      if (Array.isArray(node)) {
        node.forEach((item, i) => walk(item, [...path, i]));
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const schema = this.origin.get(node);
      if (schema) {
        for (const key of (schema.required ?? []) as string[]) {
          out.push({ label: `without ${[...path, key].join('.')}`, value: edit(root, [...path, key], undefined) });
        }
        for (const key of Object.keys((schema.properties ?? {}) as object)) {
          for (const wrong of WRONG_VALUES) {
            out.push({
              label: `${[...path, key].join('.')} = ${JSON.stringify(wrong)}`,
              value: edit(root, [...path, key], wrong),
            });
          }
        }
      }
      for (const [key, value] of Object.entries(node)) walk(value, [...path, key]);
    };
    walk(root, []);
    return out;
  }
}

/** A deep copy of `root` with the value at `path` replaced (or removed when `value` is undefined). */
function edit(root: Json, path: readonly (string | number)[], value: Json | undefined): Json {
  if (path.length === 0) return value as Json;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[head as number] = edit(copy[head as number]!, rest, value);
    return copy;
  }
  const copy = { ...(root as { [key: string]: Json }) };
  if (rest.length === 0 && value === undefined) delete copy[head as string];
  else copy[head as string] = edit(copy[head as string] ?? null, rest, value);
  return copy;
}
