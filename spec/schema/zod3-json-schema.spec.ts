import { z } from 'zod3';
import { compileJsonSchema } from '../../lib/validation/json-schema-validator';
import { isZod3Schema, Zod3ConversionError, zod3ToJsonSchema } from '../../lib/validation/zod3-json-schema';
import type { Zod3Schema } from '../../lib/validation/zod3-json-schema';
import { z as z4 } from 'zod';

enum Colour {
  Red,
  Green,
}
enum Size {
  S = 'small',
  L = 'large',
}

const json = (schema: unknown, io?: 'input' | 'output') => zod3ToJsonSchema(schema as Zod3Schema, io);

describe('zod3ToJsonSchema', () => {
  it('recognises zod 3 schemas, not zod 4 ones or JSON Schema', () => {
    expect(isZod3Schema(z.object({}))).toBe(true);
    expect(isZod3Schema(z4.object({}))).toBe(false);
    expect(isZod3Schema({ type: 'object', _def: 1 })).toBe(false);
  });

  it('describes strings with their checks and formats', () => {
    expect(json(z.string().min(2).max(5).describe('name'))).toEqual({
      type: 'string',
      minLength: 2,
      maxLength: 5,
      description: 'name',
    });
    expect(json(z.string().length(3))).toEqual({ type: 'string', minLength: 3, maxLength: 3 });
    expect(json(z.string().email())).toEqual({ type: 'string', format: 'email' });
    expect(json(z.string().url())).toEqual({ type: 'string', format: 'uri' });
    expect(json(z.string().datetime())).toEqual({ type: 'string', format: 'date-time' });
    expect(json(z.string().regex(/^a+$/))).toEqual({ type: 'string', pattern: '^a+$' });
    expect(json(z.string().startsWith('x.').endsWith('!'))).toEqual({
      type: 'string',
      allOf: [{ pattern: '^x\\.' }, { pattern: '!$' }],
    });
  });

  it('describes numbers, integers and their bounds', () => {
    expect(json(z.number())).toEqual({ type: 'number' });
    expect(json(z.number().int().min(1).max(7))).toEqual({ type: 'integer', minimum: 1, maximum: 7 });
    expect(json(z.number().gt(0).lt(1))).toEqual({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 });
    expect(json(z.number().multipleOf(5))).toEqual({ type: 'number', multipleOf: 5 });
    expect(json(z.boolean())).toEqual({ type: 'boolean' });
  });

  it('describes enums, native enums and literals', () => {
    expect(json(z.enum(['a', 'b']))).toEqual({ type: 'string', enum: ['a', 'b'] });
    expect(json(z.nativeEnum(Colour))).toEqual({ type: 'number', enum: [0, 1] });
    expect(json(z.nativeEnum(Size))).toEqual({ type: 'string', enum: ['small', 'large'] });
    expect(json(z.literal('on'))).toEqual({ type: 'string', const: 'on' });
    expect(json(z.literal(3))).toEqual({ type: 'number', const: 3 });
  });

  it('describes objects: required keys, optional and defaulted ones, strict and catch-all objects', () => {
    const schema = z.object({
      a: z.string(),
      b: z.number().optional(),
      c: z.boolean().default(true),
      d: z.string().nullable(),
    });
    expect(json(schema)).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'number' },
        c: { type: 'boolean', default: true },
        d: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['a', 'd'],
    });
    // A defaulted property is always there in what the schema produces.
    expect(json(schema, 'output')).toMatchObject({ required: ['a', 'c', 'd'] });
    expect(json(z.object({}).strict())).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(json(z.object({}).catchall(z.number()))).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: { type: 'number' },
    });
  });

  it('describes arrays, records, unions and discriminated unions', () => {
    expect(json(z.array(z.string()).min(1).max(3))).toEqual({
      type: 'array',
      items: { type: 'string' },
      minItems: 1,
      maxItems: 3,
    });
    expect(json(z.record(z.number()))).toEqual({ type: 'object', additionalProperties: { type: 'number' } });
    expect(json(z.record(z.string().regex(/^x/), z.number()))).toEqual({
      type: 'object',
      additionalProperties: { type: 'number' },
      propertyNames: { type: 'string', pattern: '^x' },
    });
    expect(json(z.union([z.string(), z.number()]))).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(
      json(
        z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('a'), n: z.number() }),
          z.object({ kind: z.literal('b') }),
        ]),
      ),
    ).toEqual({
      anyOf: [
        {
          type: 'object',
          properties: { kind: { type: 'string', const: 'a' }, n: { type: 'number' } },
          required: ['kind', 'n'],
        },
        { type: 'object', properties: { kind: { type: 'string', const: 'b' } }, required: ['kind'] },
      ],
    });
  });

  it('describes refinements and transforms by the schema they wrap, with descriptions on wrappers', () => {
    expect(json(z.string().refine((s) => s !== 'x'))).toEqual({ type: 'string' });
    expect(json(z.string().optional().describe('maybe'))).toEqual({ type: 'string', description: 'maybe' });
    expect(json(z.string().pipe(z.coerce.number()), 'output')).toEqual({ type: 'number' });
  });

  it('refuses a kind JSON Schema cannot express, naming it and where it sits', () => {
    const at = (schema: unknown) => {
      try {
        json(schema);
      } catch (error) {
        return error instanceof Zod3ConversionError ? `${error.kind} at ${error.path}` : String(error);
      }
      return 'converted';
    };
    expect(at(z.object({ when: z.date() }))).toBe('ZodDate at when');
    expect(at(z.object({ list: z.array(z.bigint()) }))).toBe('ZodBigInt at list[]');
    expect(at(z.object({ m: z.record(z.map(z.string(), z.string())) }))).toBe('ZodMap at m[*]');
    expect(at(z.date())).toBe('ZodDate at ');
    expect(() => json(z.date())).toThrow(
      'zod 3 schemas of kind ZodDate cannot be described as JSON Schema (at the root)',
    );
  });

  // The JSON Schema must accept what the zod schema accepts, and refuse what it refuses.
  it('agrees with zod 3 on which arguments are valid', () => {
    const schema = z
      .object({
        name: z
          .string()
          .min(2)
          .max(8)
          .regex(/^[a-z]+$/),
        age: z.number().int().gte(0).lt(150).optional(),
        role: z.enum(['admin', 'user']).default('user'),
        tags: z.array(z.string()).max(2).optional(),
        note: z.string().nullable().optional(),
        pet: z
          .discriminatedUnion('kind', [
            z.object({ kind: z.literal('cat'), lives: z.number().int().max(9) }),
            z.object({ kind: z.literal('dog') }),
          ])
          .optional(),
        scores: z.record(z.number().min(0)).optional(),
        size: z.nativeEnum(Size).optional(),
      })
      .strict();
    const validate = compileJsonSchema(json(schema));
    const samples: unknown[] = [
      { name: 'ab' },
      { name: 'a' },
      { name: 'abcdefghi' },
      { name: 'AB' },
      { name: 'ab', age: 3 },
      { name: 'ab', age: 3.5 },
      { name: 'ab', age: -1 },
      { name: 'ab', age: 150 },
      { name: 'ab', role: 'admin' },
      { name: 'ab', role: 'root' },
      { name: 'ab', tags: ['x', 'y'] },
      { name: 'ab', tags: ['x', 'y', 'z'] },
      { name: 'ab', tags: [1] },
      { name: 'ab', note: null },
      { name: 'ab', note: 5 },
      { name: 'ab', pet: { kind: 'cat', lives: 9 } },
      { name: 'ab', pet: { kind: 'cat', lives: 10 } },
      { name: 'ab', pet: { kind: 'cat' } },
      { name: 'ab', pet: { kind: 'dog' } },
      { name: 'ab', pet: { kind: 'fish' } },
      { name: 'ab', scores: { a: 1 } },
      { name: 'ab', scores: { a: -1 } },
      { name: 'ab', size: 'small' },
      { name: 'ab', size: 'S' },
      { name: 'ab', extra: 1 },
      {},
      'ab',
    ];
    const disagreements = samples.filter(
      (sample) => schema.safeParse(sample).success !== (validate(sample).length === 0),
    );
    expect(disagreements).toEqual([]);
  });
});
