/**
 * What a change of the event types a server serves means for their subscriptions (design sketch:
 * List changes and type removal). A type removed ends its subscriptions with -32011; a type whose
 * schemas changed other than by additions ends them with -32014 naming the schema; a purely
 * additive change (a new optional field, a wider enum, a new description) keeps them.
 */
import { canonical, isRecord } from '../../base/objects';
import { EventErrorCode } from '../../schema/events';
import type { EventType } from '../../schema/events';
import { EventsTerminated } from './event-feed';

/** Keys of a schema that describe it without constraining what it accepts. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', '$comment']);

/** Which schema a field of `required` may not grow in (arguments) or shrink in (payloads). */
type Side = 'input' | 'payload';

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

const within = (some: readonly unknown[], all: readonly unknown[]): boolean => {
  const texts = new Set(all.map(canonical));
  return some.every((item) => texts.has(canonical(item)));
};

/**
 * Whether schema `after` only adds to `before`: every property kept and itself only added to,
 * enums not narrowed, arguments not newly required (or payload fields no longer required), and
 * every other constraint as it was.
 */
export function onlyAdds(before: unknown, after: unknown, side: Side): boolean {
  if (!isRecord(before) || !isRecord(after)) return canonical(before) === canonical(after);
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    if (ANNOTATIONS.has(key)) continue;
    const was = before[key];
    const is = after[key];
    if (key === 'properties') {
      const now = isRecord(is) ? is : {};
      if (!isRecord(was)) continue;
      if (!Object.keys(was).every((name) => name in now && onlyAdds(was[name], now[name], side))) return false;
    } else if (key === 'required') {
      const [fewer, more] = side === 'input' ? [strings(is), strings(was)] : [strings(was), strings(is)];
      if (!within(fewer, more)) return false;
    } else if (key === 'enum') {
      if (!Array.isArray(was) || !Array.isArray(is) || !within(was, is)) return canonical(was) === canonical(is);
    } else if (canonical(was) !== canonical(is)) return false;
  }
  return true;
}

/**
 * How the subscriptions of each type served `before` end when `after` is served instead: by
 * name, the error their subscriptions end with; a type kept, or only added to, is not named.
 */
export function endedTypes(before: readonly EventType[], after: readonly EventType[]): Map<string, EventsTerminated> {
  const now = new Map(after.map((type) => [type.name, type]));
  const ended = new Map<string, EventsTerminated>();
  for (const type of before) {
    const next = now.get(type.name);
    const named = JSON.stringify(type.name);
    if (next === undefined) {
      ended.set(
        type.name,
        new EventsTerminated(EventErrorCode.NotFound, `Event type ${named} is no longer served`, { kind: 'event' }),
      );
      continue;
    }
    const schema = !onlyAdds(type.inputSchema, next.inputSchema, 'input')
      ? 'inputSchema'
      : !onlyAdds(type.payloadSchema ?? {}, next.payloadSchema ?? {}, 'payload')
        ? 'payloadSchema'
        : undefined;
    if (schema !== undefined)
      ended.set(
        type.name,
        new EventsTerminated(EventErrorCode.Unsupported, `Event type ${named} changed its ${schema}`, {
          feature: schema,
          reason: 'schema_changed',
        }),
      );
  }
  return ended;
}
