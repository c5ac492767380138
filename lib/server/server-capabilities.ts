import type { ServerCapabilities } from '../schema/lifecycle';

/** What the capabilities a server declares are derived from. */
export interface CapabilitySources {
  readonly tools: { readonly size: number };
  readonly resources: { readonly size: number };
  readonly prompts: { readonly size: number };
  /** How many templates and prompts have completers. */
  readonly completers: number;
  /** Declare `logging` (the server's `logging` option, default true). */
  readonly logging: boolean;
  /** The capabilities given in the server's options, merged over the derived ones. */
  readonly given: ServerCapabilities | undefined;
  /** The extensions the server serves, by identifier, with their settings (`extensions`, 2026-07-28). */
  readonly extensions?: Readonly<Record<string, Record<string, unknown>>>;
}

/** The capabilities a session started now declares: derived from what is registered, then what was given. */
export function deriveCapabilities(sources: CapabilitySources): ServerCapabilities {
  const derived: Record<string, unknown> = {};
  if (sources.tools.size > 0) derived.tools = { listChanged: true };
  if (sources.resources.size > 0) derived.resources = { subscribe: true, listChanged: true };
  if (sources.prompts.size > 0) derived.prompts = { listChanged: true };
  if (sources.completers > 0) derived.completions = {};
  if (sources.logging) derived.logging = {};
  if (sources.extensions !== undefined && Object.keys(sources.extensions).length > 0)
    derived.extensions = { ...sources.extensions };
  return mergeCapabilities(derived, sources.given as Record<string, unknown> | undefined);
}

/** `given` over `derived`, one level deep: an object given for a derived capability is merged into it. */
export function mergeCapabilities(
  derived: Record<string, unknown>,
  given: Record<string, unknown> | undefined,
): ServerCapabilities {
  const merged: Record<string, unknown> = { ...derived };
  for (const [key, value] of Object.entries(given ?? {})) {
    const base = merged[key];
    merged[key] =
      typeof base === 'object' && base !== null && typeof value === 'object' && value !== null
        ? { ...base, ...value }
        : value;
  }
  return merged as ServerCapabilities;
}
