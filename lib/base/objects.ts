/**
 * Copies of objects with a property added, for code that runs per message. V8 (Node 20) adds a
 * property to the copy `{ ...source }` makes on a slow path: `{ ...source, key: value }` took 1.2 to
 * 2.7 µs where `source` lacked `key`, and 0.05 to 0.1 µs built with the new property first, as
 * here. The result has the same own properties and values as the spread; new keys come first.
 */

/** `{ ...source, [key]: value }`, built fast. */
export function withProperty<T extends object, K extends string, V>(
  source: T | undefined,
  key: K,
  value: V,
): Omit<T, K> & { [P in K]: V } {
  const copy: Record<string, unknown> = { [key]: value, ...source };
  copy[key] = value;
  return copy as Omit<T, K> & { [P in K]: V };
}

/**
 * Whether `value` is an object that is not an array: what a JSON object field may be read as. Any
 * prototype passes (an object made in another realm too); use `isPlainObject` where it matters.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A stable text for a JSON value: object keys sorted, so that equal values (a feed's arguments, two schemas) read alike. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
