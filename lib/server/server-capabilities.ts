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

/** What `sharedCapabilities` keeps between calls. */
export interface DerivedCapabilities {
  /** The capabilities last derived; `undefined` derives them again (an extension was added). */
  derived: ServerCapabilities | undefined;
  /** Which of the kinds they depend on were non-empty then, as `presenceOf` gives it. */
  derivedFrom: number;
}

/** Which of the kinds the derived capabilities depend on are non-empty, one bit each. */
function presenceOf(sources: CapabilitySources): number {
  return (
    (sources.tools.size > 0 ? 1 : 0) |
    (sources.resources.size > 0 ? 2 : 0) |
    (sources.prompts.size > 0 ? 4 : 0) |
    (sources.completers > 0 ? 8 : 0)
  );
}

/**
 * The capabilities a session started now declares, as one object that every session and modern
 * request shares until what they are derived from changes: derived again only when a kind
 * becomes empty or non-empty, or `derived` was cleared. Never written to; a caller outside the
 * server gets `deriveCapabilities`' fresh object instead.
 */
export function sharedCapabilities(sources: CapabilitySources & DerivedCapabilities): ServerCapabilities {
  const presence = presenceOf(sources);
  if (sources.derived === undefined || sources.derivedFrom !== presence) {
    sources.derived = deriveCapabilities(sources);
    sources.derivedFrom = presence;
  }
  return sources.derived;
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
