import { z } from 'zod';
import { z as z3v4 } from 'zod3/v4';
import { isPlainZod4Object } from '../../lib/validation/zod4-plain';
import { compileToolSchema } from '../../lib/server/tool-schema';
import { compileJsonSchema } from '../../lib/validation/json-schema-validator';

const Category: z.ZodType = z.object({
  name: z.string(),
  get children() {
    return z.array(Category);
  },
});
const Text = z.string().describe('shared');

/** Object schemas whose conversion cannot fail: described when first listed. */
const PLAIN: Record<string, unknown> = {
  'strings and numbers': z.object({ text: z.string().min(1).max(9).regex(/^a/), n: z.number().int().min(0) }),
  'descriptions and titles': z
    .object({ city: z.string().describe('City'), days: z.number().meta({ title: 'Days', description: 'How many' }) })
    .describe('Where'),
  formats: z.object({ mail: z.email(), at: z.iso.datetime(), id: z.uuid(), site: z.url() }),
  'optional and nullable': z.object({ a: z.string().optional(), b: z.number().nullable(), c: z.boolean().nullish() }),
  'enums and literals': z.object({ e: z.enum(['x', 'y']), l: z.literal(['a', 1, true, null]), n: z.null() }),
  'arrays and unions': z.object({ list: z.array(z.union([z.string(), z.number()])).min(1), any: z.unknown() }),
  'discriminated unions': z.object({
    shape: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('dot') }),
      z.object({ kind: z.literal('box'), w: z.number() }),
    ]),
  }),
  'strict, loose and extended objects': z
    .strictObject({ inner: z.looseObject({ a: z.string() }) })
    .extend({ b: z.string() }),
  'a schema used twice': z.object({ first: Text, second: Text }),
  'zod 3.25 zod/v4': z3v4.object({ city: z3v4.string().describe('City') }),
};

/** Converted at registration: refused there if they cannot be described, or carrying more than plain annotations. */
const NOT_PLAIN: Record<string, unknown> = {
  'a date': z.object({ at: z.date() }),
  'a bigint literal': z.object({ n: z.literal(1n) }),
  'a transform': z.object({ n: z.string().transform((s) => s.length) }),
  'a default': z.object({ n: z.number().default(3) }),
  multipleOf: z.object({ n: z.number().multipleOf(2) }),
  'a recursive schema': Category,
  'metadata with an id': z.object({ a: z.string().meta({ id: 'A' }) }),
  'an x-mcp-header annotation': z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }),
  'a record': z.object({ tags: z.record(z.string(), z.string()) }),
  'a map deep inside': z.object({ a: z.array(z.object({ b: z.optional(z.map(z.string(), z.string())) })) }),
  'a string at the root': z.string(),
  'JSON Schema': { type: 'object', properties: {} },
};

const withoutDialect = (json: Record<string, unknown>) => {
  const { $schema: _dialect, ...rest } = json;
  void _dialect;
  return rest;
};

describe('isPlainZod4Object', () => {
  it.each(Object.entries(PLAIN))('takes %s as plain, and zod describes it both ways', (_, schema) => {
    expect(isPlainZod4Object(schema)).toBe(true);
    for (const io of ['input', 'output'] as const) {
      const json = z.toJSONSchema(schema as z.ZodType, { io }) as Record<string, unknown>;
      expect(json.type).toBe('object');
      expect(JSON.stringify(json)).not.toContain('x-mcp-header');
    }
  });

  it.each(Object.entries(NOT_PLAIN))('does not take %s as plain', (_, schema) => {
    expect(isPlainZod4Object(schema)).toBe(false);
  });

  it('does not walk a schema of more than a few hundred nodes', () => {
    const wide = z.object(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, z.string()])));
    expect(isPlainZod4Object(wide)).toBe(false);
  });
});

describe('a plain zod object compiled for a tool', () => {
  const options = { tool: 't', validator: compileJsonSchema, what: 'inputSchema' } as const;

  it('is described when first read, as registration would have described it', () => {
    const schema = z.object({ city: z.string().describe('City'), days: z.number().int().optional() });
    const compiled = compileToolSchema(schema, options);
    expect(compiled.deferred).toBe(true);
    const expected = withoutDialect(z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>);
    expect(compiled.json).toEqual(expected);
    expect(compiled.json).toBe(compiled.json);
    expect(compiled.check({ city: 'Oslo' })).toEqual({ ok: true, value: { city: 'Oslo' } });
  });

  it('is described at once when it is not plain', () => {
    const compiled = compileToolSchema(z.object({ days: z.number().default(3) }), options);
    expect(compiled.deferred).toBeUndefined();
    expect(compiled.json).toMatchObject({ type: 'object', properties: { days: { type: 'number', default: 3 } } });
  });
});
