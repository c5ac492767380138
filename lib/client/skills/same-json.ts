/** Deep equality of JSON values: objects compare key by key whatever the order; a missing key equals null. */
export function sameJson(a: unknown, b: unknown): boolean {
  const left = a === undefined ? null : a;
  const right = b === undefined ? null : b;
  if (left === right) return true;
  if (typeof left === 'number' && typeof right === 'number') return Number.isNaN(left) && Number.isNaN(right);
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left)) {
    const other = right as unknown[];
    return left.length === other.length && left.every((item, index) => sameJson(item, other[index]));
  }
  const [l, r] = [left as Record<string, unknown>, right as Record<string, unknown>];
  const keys = new Set([...Object.keys(l), ...Object.keys(r)]);
  return [...keys].every((key) => sameJson(l[key], r[key]));
}
