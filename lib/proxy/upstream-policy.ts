import { compileFilter } from './name-filter';
import type { EntryFilter, NamePredicate } from './name-filter';

/**
 * What the aggregate does with one argument of a tool. `hidden`: the argument leaves the tool's
 * `inputSchema` (and its `required`) downstream, and every call is sent with this value, whatever
 * the caller sent. `default`: the argument stays, no longer required, with this `default` in its
 * schema, and a call that leaves it out is sent with this value.
 */
export type ArgumentPolicy = { readonly hidden: unknown } | { readonly default: unknown };

/** What the aggregate shows of an upstream's prompts (or, with more, its tools). */
export interface PromptPolicy extends EntryFilter {
  /**
   * Names shown downstream instead of the upstream's own, by upstream name: `{ read_file: 'read' }`.
   * The namespace prefix still applies (`files_read`); requests reach the upstream under its own
   * name. Two entries renamed alike are refused at construction.
   */
  readonly rename?: Readonly<Record<string, string>>;
}

/** What the aggregate shows of an upstream's tools, and how it fills in their arguments. */
export interface ToolPolicy extends PromptPolicy {
  /**
   * Argument policies by tool (its upstream name), then by argument name. The tool `'*'` applies
   * to every tool whose schema declares the argument; a policy for the tool itself wins.
   */
  readonly arguments?: Readonly<Record<string, Readonly<Record<string, ArgumentPolicy>>>>;
}

/** A compiled {@link PromptPolicy} or {@link ToolPolicy} name part: which entries, under which names. */
export class NamePolicy {
  readonly keeps: NamePredicate;
  private readonly renames: ReadonlyMap<string, string>;

  constructor(upstream: string, kind: string, policy: PromptPolicy | undefined) {
    this.keeps = compileFilter(policy);
    const renames = new Map<string, string>();
    const targets = new Map<string, string>();
    for (const [from, to] of Object.entries(policy?.rename ?? {})) {
      if (typeof to !== 'string' || to.length === 0)
        throw new TypeError(`Upstream "${upstream}": the ${kind} "${from}" cannot be renamed to an empty name`);
      const taken = targets.get(to);
      if (taken !== undefined)
        throw new TypeError(`Upstream "${upstream}": the ${kind}s "${taken}" and "${from}" are both renamed "${to}"`);
      targets.set(to, from);
      renames.set(from, to);
    }
    this.renames = renames;
  }

  /** The name shown downstream (before any namespace) for the upstream's `name`. */
  exposed(name: string): string {
    return this.renames.get(name) ?? name;
  }
}

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Tool argument policies, compiled: a tool's schema as shown, and its arguments as sent. */
export class ArgumentPolicies {
  constructor(private readonly byTool: Readonly<Record<string, Readonly<Record<string, ArgumentPolicy>>>> = {}) {}

  /** The policies that apply to the tool `name` whose schema is `schema`. */
  private of(name: string, schema: unknown): ReadonlyArray<readonly [string, ArgumentPolicy]> {
    const own = Object.hasOwn(this.byTool, name) ? this.byTool[name]! : {};
    const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
    const shared = Object.entries(this.byTool['*'] ?? {}).filter(
      ([argument]) => Object.hasOwn(properties, argument) && !Object.hasOwn(own, argument),
    );
    return [...shared, ...Object.entries(own)];
  }

  /** The upstream's tool `local` as listed downstream: hidden arguments gone from its schema, defaulted ones with their default. */
  listed(local: string, tool: JsonObject): JsonObject {
    const policies = this.of(local, tool.inputSchema);
    if (policies.length === 0 || !isObject(tool.inputSchema)) return tool;
    const schema = tool.inputSchema;
    const properties: JsonObject = { ...(isObject(schema.properties) ? schema.properties : {}) };
    const dropped = new Set<string>();
    for (const [argument, policy] of policies) {
      dropped.add(argument);
      if ('hidden' in policy) delete properties[argument];
      else
        properties[argument] = {
          ...(isObject(properties[argument]) ? properties[argument] : {}),
          default: policy.default,
        };
    }
    const shown: JsonObject = { ...schema, properties };
    if (Array.isArray(schema.required)) shown.required = schema.required.filter((name) => !dropped.has(String(name)));
    return { ...tool, inputSchema: shown };
  }

  /** The arguments a call of the tool `name` is sent upstream with. */
  sent(name: string, args: unknown, schema?: unknown): unknown {
    const policies = this.of(name, schema);
    if (policies.length === 0) return args;
    const filled: JsonObject = { ...(isObject(args) ? args : {}) };
    for (const [argument, policy] of policies) {
      if ('hidden' in policy) filled[argument] = policy.hidden;
      else if (filled[argument] === undefined) filled[argument] = policy.default;
    }
    return filled;
  }
}
