import { compileJsonSchema, isBacktrackSafe } from '../../lib/validation/json-schema-validator';

const paths = (schema: Record<string, unknown>, value: unknown) =>
  compileJsonSchema(schema)(value).map((i) => `${i.path}: ${i.message}`);

describe('compileJsonSchema', () => {
  it('accepts valid values and names each problem of invalid ones with its path', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
        age: { type: 'integer', minimum: 0, exclusiveMaximum: 150 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2, uniqueItems: true },
        mode: { enum: ['a', 'b'] },
        fixed: { const: 1 },
        ratio: { type: 'number', multipleOf: 0.5 },
      },
      required: ['name'],
      additionalProperties: false,
    };
    expect(paths(schema, { name: 'abc', age: 3, tags: ['x'], mode: 'a', fixed: 1, ratio: 1.5 })).toEqual([]);
    expect(paths(schema, { age: 1.5, tags: ['x', 'x', 3], mode: 'c', fixed: 2, ratio: 0.3, other: true })).toEqual([
      'name: required, expected string',
      'age: expected integer, received number',
      'tags: expected at most 2 items',
      'tags: expected unique items',
      'tags[2]: expected string, received integer',
      'mode: expected one of "a", "b"',
      'fixed: expected 1',
      'ratio: expected a multiple of 0.5',
      'other: unexpected property',
    ]);
    expect(paths(schema, { name: 'A' })).toEqual([
      'name: expected at least 2 characters',
      'name: expected to match ^[a-z]+$',
    ]);
    expect(paths(schema, { name: 'abc', age: 150 })).toEqual(['age: expected < 150']);
  });

  it('follows local $refs into $defs and definitions', () => {
    const schema = {
      type: 'object',
      $defs: { address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      definitions: { id: { type: 'string' } },
      properties: { home: { $ref: '#/$defs/address' }, id: { $ref: '#/definitions/id' } },
    };
    expect(paths(schema, { home: { city: 'X' }, id: 'a' })).toEqual([]);
    expect(paths(schema, { home: {}, id: 1 })).toEqual([
      'home.city: required, expected string',
      'id: expected string, received integer',
    ]);
    expect(paths({ $ref: '#/$defs/missing' }, {})).toEqual([': unresolvable $ref #/$defs/missing']);
  });

  it('handles combinators, boolean schemas and additionalProperties schemas', () => {
    expect(paths({ anyOf: [{ type: 'string' }, { type: 'number' }] }, true)).toEqual([
      ': matches none of the allowed shapes',
    ]);
    expect(paths({ oneOf: [{ type: 'number' }, { type: 'integer' }] }, 1)).toEqual([
      ': matches more than one of the exclusive shapes',
    ]);
    expect(paths({ allOf: [{ minimum: 1 }, { maximum: 3 }] }, 5)).toEqual([': expected <= 3']);
    expect(paths({ not: { type: 'null' } }, null)).toEqual([': matches a shape that is not allowed']);
    expect(paths({ type: 'object', properties: { a: false } }, { a: 1 })).toEqual(['a: no value is allowed here']);
    expect(paths({ type: 'object', additionalProperties: { type: 'number' } }, { x: 'y' })).toEqual([
      'x: expected number, received string',
    ]);
    expect(paths({ type: ['string', 'null'] }, null)).toEqual([]);
  });

  it('survives a $ref cycle', () => {
    const schema = { $defs: { loop: { $ref: '#/$defs/loop' } }, $ref: '#/$defs/loop' };
    expect(paths(schema, 1)[0]).toMatch(/nests too deeply/);
  });
});

describe('the validator against hostile input (#13)', () => {
  it('checks uniqueItems in one pass, telling equal values apart from their key order', () => {
    const validate = compileJsonSchema({ type: 'array', uniqueItems: true });
    const many = Array.from({ length: 40_000 }, (_, i) => ({ id: i, tags: ['a', 'b'] }));
    expect(validate(many)).toEqual([]);
    expect(validate([...many, { tags: ['a', 'b'], id: 7 }])).toEqual([{ path: '', message: 'expected unique items' }]);
  });

  it('requires own properties: toString and constructor are missing when the object lacks them', () => {
    const validate = compileJsonSchema({ type: 'object', required: ['toString', 'constructor'] });
    expect(validate({}).map((issue) => issue.path)).toEqual(['toString', 'constructor']);
    expect(validate({ toString: 'x', constructor: 1 })).toEqual([]);
  });

  it.each(['^(a+)+$', '(a|aa)*b', '(x*)*y', '(?:a+)+', '(a)\\1'])(
    'does not run the backtracking pattern %s',
    (pattern) => {
      expect(isBacktrackSafe(pattern)).toBe(false);
      const validate = compileJsonSchema({ type: 'string', pattern });
      expect(validate(`${'a'.repeat(40)}!`)).toEqual([]);
    },
  );

  it.each(['^[a-z]+$', '^\\d{3}-\\d{4}$', '^(foo|bar)$', '^(?:ab)+$', '[(+*]+', '^(?<year>\\d{4})$'])(
    'runs the safe pattern %s',
    (pattern) => {
      expect(isBacktrackSafe(pattern)).toBe(true);
    },
  );
});
