import { describeJsonSchemaIssues, jsonEqual, validateJsonSchema } from '../../lib/client/json-schema';

describe('validateJsonSchema', () => {
  const weather = {
    type: 'object',
    properties: {
      temperature: { type: 'number', minimum: -100, maximum: 100 },
      conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rainy'] },
      humidity: { type: 'integer', exclusiveMinimum: 0 },
    },
    required: ['temperature', 'conditions'],
    additionalProperties: false,
  };

  it('accepts a matching value', () => {
    expect(validateJsonSchema(weather, { temperature: 21.5, conditions: 'sunny', humidity: 40 })).toEqual([]);
  });

  it('names each mismatch by JSON pointer', () => {
    const issues = validateJsonSchema(weather, { temperature: '21', humidity: 0, wind: 3 });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: '/conditions', message: 'is required but missing' },
        { path: '/temperature', message: 'expected number, got string' },
        { path: '/humidity', message: 'must be > 0, got 0' },
        { path: '/wind', message: 'is not allowed (additionalProperties is false)' },
      ]),
    );
    expect(issues).toHaveLength(4);
  });

  it('tells integers from numbers and accepts integers as numbers', () => {
    expect(validateJsonSchema({ type: 'integer' }, 1.5)).toEqual([{ path: '', message: 'expected integer, got number' }]);
    expect(validateJsonSchema({ type: 'number' }, 2)).toEqual([]);
    expect(validateJsonSchema({ type: ['string', 'null'] }, null)).toEqual([]);
  });

  it('checks string length in code points, patterns, and ignores format', () => {
    expect(validateJsonSchema({ type: 'string', maxLength: 2 }, '😀😀')).toEqual([]);
    expect(validateJsonSchema({ type: 'string', minLength: 3 }, 'ab')[0]!.message).toMatch(/at least 3/);
    expect(validateJsonSchema({ type: 'string', pattern: '^a+$' }, 'ab')[0]!.message).toMatch(/pattern/);
    expect(validateJsonSchema({ type: 'string', format: 'email' }, 'not an email')).toEqual([]);
  });

  it('checks arrays: items, prefixItems, draft-07 tuples, bounds, uniqueness and contains', () => {
    expect(validateJsonSchema({ type: 'array', items: { type: 'string' } }, ['a', 1])).toEqual([
      { path: '/1', message: 'expected string, got integer' },
    ]);
    expect(validateJsonSchema({ prefixItems: [{ type: 'string' }], items: false }, ['a', 'b'])).toEqual([
      { path: '/1', message: 'no value is allowed here' },
    ]);
    expect(validateJsonSchema({ items: [{ type: 'string' }], additionalItems: { type: 'number' } }, ['a', 'b'])).toHaveLength(1);
    expect(validateJsonSchema({ minItems: 2, maxItems: 3 }, [1])[0]!.message).toMatch(/at least 2/);
    expect(validateJsonSchema({ uniqueItems: true }, [{ a: 1 }, { a: 1 }])).toEqual([
      { path: '/1', message: 'duplicates an earlier item (uniqueItems)' },
    ]);
    expect(validateJsonSchema({ contains: { const: 3 } }, [1, 2])[0]!.message).toMatch(/contains/);
  });

  it('resolves local $ref into $defs and definitions, and stops on endless self-reference', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      definitions: { name: { type: 'string' } },
      properties: { address: { $ref: '#/$defs/address' }, name: { $ref: '#/definitions/name' } },
    };
    expect(validateJsonSchema(schema, { address: { city: 'Oslo' }, name: 'x' })).toEqual([]);
    expect(validateJsonSchema(schema, { address: {}, name: 1 })).toEqual([
      { path: '/address/city', message: 'is required but missing' },
      { path: '/name', message: 'expected string, got integer' },
    ]);
    expect(validateJsonSchema({ $ref: '#' }, 1)[0]!.message).toMatch(/nests too deeply/);
    expect(validateJsonSchema({ $ref: 'https://example.com/schema.json' }, 1)).toEqual([]);
  });

  it('applies anyOf, oneOf, allOf, not and if/then/else', () => {
    expect(validateJsonSchema({ anyOf: [{ type: 'string' }, { type: 'number' }] }, true)[0]!.message).toMatch(/anyOf/);
    expect(validateJsonSchema({ oneOf: [{ type: 'number' }, { type: 'integer' }] }, 1)[0]!.message).toMatch(/matches 2 schemas/);
    expect(validateJsonSchema({ allOf: [{ minimum: 2 }, { maximum: 3 }] }, 4)[0]!.message).toMatch(/<= 3/);
    expect(validateJsonSchema({ not: { type: 'null' } }, null)[0]!.message).toMatch(/not/);
    const conditional = { if: { properties: { kind: { const: 'a' } } }, then: { required: ['a'] }, else: { required: ['b'] } };
    expect(validateJsonSchema(conditional, { kind: 'a' })[0]!.path).toBe('/a');
    expect(validateJsonSchema(conditional, { kind: 'z' })[0]!.path).toBe('/b');
  });

  it('checks enum and const by deep equality, multipleOf, and boolean schemas', () => {
    expect(validateJsonSchema({ enum: [{ a: [1] }] }, { a: [1] })).toEqual([]);
    expect(validateJsonSchema({ const: { a: 1 } }, { a: 2 })).toHaveLength(1);
    expect(validateJsonSchema({ multipleOf: 0.1 }, 0.3)).toEqual([]);
    expect(validateJsonSchema({ multipleOf: 2 }, 3)).toHaveLength(1);
    expect(validateJsonSchema(true, 'anything')).toEqual([]);
    expect(validateJsonSchema(false, 'anything')).toHaveLength(1);
  });

  it('checks patternProperties, propertyNames and property counts', () => {
    const schema = { patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false, maxProperties: 2 };
    expect(validateJsonSchema(schema, { 'x-a': 'ok' })).toEqual([]);
    expect(validateJsonSchema(schema, { 'x-a': 1, b: 'no', 'x-c': 'z' })).toHaveLength(3);
    expect(validateJsonSchema({ propertyNames: { maxLength: 2 } }, { abc: 1 })[0]!.path).toBe('/abc');
  });

  it('escapes pointer segments and describes issues on one line', () => {
    const issues = validateJsonSchema({ required: ['a/b', 'c~d'] }, {});
    expect(issues.map((i) => i.path)).toEqual(['/a~1b', '/c~0d']);
    expect(describeJsonSchemaIssues(issues)).toBe('at /a~1b: is required but missing; at /c~0d: is required but missing');
    expect(describeJsonSchemaIssues([{ path: '', message: 'x' }, { path: '', message: 'y' }], 1)).toBe('at (root): x; and 1 more');
  });

  it('jsonEqual compares JSON values structurally', () => {
    expect(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });
});
