/**
 * Whether zod's JSON Schema conversion of a zod 4 schema is sure to succeed, without running it.
 *
 * A tool's schema is converted to JSON Schema for `tools/list`. Converting is the costly part of
 * registering a tool (about 20 µs for a one-field object, against a fraction of a microsecond to
 * walk it), and a server definition built per session or per request registers its tools each
 * time, most of them never listed. A schema made only of kinds that zod describes whatever their
 * options (objects, strings, numbers, booleans, enums, literals, arrays, unions, optional and
 * nullable values), carrying no annotation but descriptions and titles, can be converted when it is
 * first listed: its conversion cannot fail, so nothing that registration would refuse is let
 * through. Anything else (a default, a transform, a recursive schema, metadata with an `id`, a
 * number with `multipleOf`, ...) is converted at registration as before, where it is refused if it
 * cannot be described.
 */
import { z } from 'zod';

/** A zod 4 schema as far as this walk reads it. */
interface Zod4Node {
  readonly _zod: {
    readonly def: Zod4Def;
    readonly bag?: { readonly multipleOf?: unknown };
    readonly parent?: unknown;
    readonly toJSONSchema?: unknown;
  };
}

interface Zod4Def {
  readonly type: string;
  readonly shape?: Record<string, unknown>;
  readonly catchall?: unknown;
  readonly element?: unknown;
  readonly innerType?: unknown;
  readonly options?: readonly unknown[];
  readonly values?: readonly unknown[];
  readonly checks?: readonly { readonly _zod?: { readonly def?: { readonly check?: string } } }[];
}

/** Kinds whose conversion never fails, with no further condition on the node itself. */
const LEAVES = new Set(['string', 'boolean', 'null', 'any', 'unknown', 'never', 'enum']);

/** Metadata keys that conversion copies as they are; a string value cannot fail it. */
const PLAIN_META = new Set(['description', 'title']);

/** More nodes than this are not walked: the schema is converted at registration instead. */
const MAX_NODES = 256;

const isNode = (value: unknown): value is Zod4Node =>
  typeof value === 'object' && value !== null && '_zod' in value && typeof (value as Zod4Node)._zod?.def === 'object';

function plainMeta(node: object): boolean {
  const meta = z.globalRegistry.get(node as z.core.$ZodType) as Record<string, unknown> | undefined;
  if (meta === undefined) return true;
  for (const key in meta) {
    if (!PLAIN_META.has(key) || typeof meta[key] !== 'string') return false;
  }
  return true;
}

function plainNumber(node: Zod4Node): boolean {
  if (node._zod.bag?.multipleOf !== undefined) return false;
  return (node._zod.def.checks ?? []).every((check) => check._zod?.def?.check !== 'multiple_of');
}

const plainLiteral = (values: readonly unknown[] | undefined) =>
  (values ?? []).every((value) => value === null || ['string', 'number', 'boolean'].includes(typeof value));

/** The walk: `path` holds the nodes above this one (a repeat is recursion), `seen` those already passed. */
class Walk {
  private nodes = 0;
  private readonly path = new Set<unknown>();
  private readonly seen = new Set<unknown>();

  plain(value: unknown): boolean {
    if (this.seen.has(value)) return !this.path.has(value);
    if (!isNode(value) || ++this.nodes > MAX_NODES) return false;
    const { _zod: zod } = value;
    if (zod.toJSONSchema !== undefined || !plainMeta(value)) return false;
    this.seen.add(value);
    this.path.add(value);
    const plain = (zod.parent === undefined || this.plain(zod.parent)) && this.plainKind(value);
    this.path.delete(value);
    return plain;
  }

  private plainKind(node: Zod4Node): boolean {
    const def = node._zod.def;
    if (LEAVES.has(def.type)) return true;
    switch (def.type) {
      case 'number':
        return plainNumber(node);
      case 'literal':
        return plainLiteral(def.values);
      case 'array':
        return this.plain(def.element);
      case 'optional':
      case 'nullable':
        return this.plain(def.innerType);
      case 'union':
        return Array.isArray(def.options) && def.options.every((option) => this.plain(option));
      case 'object':
        return this.plainObject(def);
      default:
        return false;
    }
  }

  private plainObject(def: Zod4Def): boolean {
    const shape = def.shape;
    if (typeof shape !== 'object' || shape === null || Object.getOwnPropertySymbols(shape).length > 0) return false;
    if (def.catchall !== undefined && !this.plain(def.catchall)) return false;
    for (const key in shape) {
      if (!this.plain(shape[key])) return false;
    }
    return true;
  }
}

/**
 * True when `schema` is a zod 4 object schema whose JSON Schema conversion cannot fail and carries
 * no annotation but descriptions and titles (so no `x-mcp-header`); false when in doubt.
 */
export function isPlainZod4Object(schema: unknown): boolean {
  return isNode(schema) && schema._zod.def.type === 'object' && new Walk().plain(schema);
}
