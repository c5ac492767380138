import { withProperty } from '../../lib/base/objects';

describe('withProperty', () => {
  it('has the own properties and values of the spread it replaces, the new key first', () => {
    const source = { name: 'echo', arguments: { text: 'hi' } };
    const copy = withProperty(source, '_meta', { progressToken: 1 });
    expect(copy).toStrictEqual({ ...source, _meta: { progressToken: 1 } });
    expect(Object.keys(copy)).toEqual(['_meta', 'name', 'arguments']);
    expect(copy).not.toBe(source);
    expect(source).toStrictEqual({ name: 'echo', arguments: { text: 'hi' } });
  });

  it('gives the new value where the source had the key', () => {
    const copy = withProperty({ a: 1, _meta: { old: true } }, '_meta', { fresh: true });
    expect(copy).toStrictEqual({ a: 1, _meta: { fresh: true } });
  });

  it('copies no source at all when there is none', () => {
    expect(withProperty(undefined, 'k', 2)).toStrictEqual({ k: 2 });
  });

  it('keeps an own __proto__ key of parsed data as a plain property, as the spread does', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = withProperty(parsed, 'b', 2) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
