/**
 * The W3C Trace Context codec (https://www.w3.org/TR/trace-context/): the `traceparent` and
 * `tracestate` values the tracing middlewares carry in a request's `_meta` when no OpenTelemetry
 * propagator is registered. Pure string work, without `@opentelemetry/api`; a value that breaks
 * the format is refused whole (`undefined`), never repaired.
 */

/** What a `traceparent` names: the trace, the parent span and the trace flags. */
export interface TraceParent {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  readonly spanId: string;
  /** The trace flags byte (bit 0: sampled). */
  readonly traceFlags: number;
}

/** The `_meta` keys of the trace context (spec 2026-07-28: Basic → `_meta`). */
export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ALL_ZERO = /^0+$/;
// version-traceid-parentid-flags: the fields of version 00, which later versions start with.
const TRACEPARENT_FIELDS = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
// A list member's key (simple, or tenant@system) and value, as the tracestate grammar has them.
const TRACESTATE_KEY = /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$/;
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
const TRACESTATE_MAX_MEMBERS = 32;

/**
 * Parses a `traceparent`: version 00 exactly (`00-{trace id}-{span id}-{flags}`, 55 characters);
 * a later version by its first four fields, followed by nothing or by `-` (the forward
 * compatibility the recommendation asks for). Upper-case hex, an all-zero id, version `ff`, or
 * anything but a string gives `undefined`.
 */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string') return undefined;
  const fields = TRACEPARENT_FIELDS.exec(value);
  if (fields === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = fields as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff') return undefined;
  if (version === '00' && rest !== undefined) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

/** Writes a version 00 `traceparent`; `undefined` when an id is not a valid one. */
export function formatTraceparent(parent: TraceParent): string | undefined {
  const { traceId, spanId, traceFlags } = parent;
  if (!TRACE_ID.test(traceId) || ALL_ZERO.test(traceId) || !SPAN_ID.test(spanId) || ALL_ZERO.test(spanId)) {
    return undefined;
  }
  const flags = (traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${traceId}-${spanId}-${flags}`;
}

/**
 * Checks a `tracestate`: at most 32 comma-separated `key=value` members (empty ones and the
 * spaces around them allowed), each key and value per the grammar, no key twice. Gives the value
 * as it was, or `undefined` when any member is invalid (the recommendation drops the whole header).
 */
export function validTracestate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const keys = new Set<string>();
  for (const part of value.split(',')) {
    const member = part.trim();
    if (member === '') continue;
    const equals = member.indexOf('=');
    if (equals <= 0) return undefined;
    const key = member.slice(0, equals);
    if (!TRACESTATE_KEY.test(key) || !TRACESTATE_VALUE.test(member.slice(equals + 1)) || keys.has(key)) {
      return undefined;
    }
    keys.add(key);
  }
  if (keys.size === 0 || keys.size > TRACESTATE_MAX_MEMBERS) return undefined;
  return value;
}
