/**
 * The handler's argument type, inferred from each kind of input schema a tool takes. Checked by
 * `tsc` only (jest skips spec/types): every line must compile, and every `@ts-expect-error` must
 * stay an error.
 */
import type { Type } from 'arktype' with { 'resolution-mode': 'import' };
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { z as z3v4 } from 'zod3/v4';
import { createServer } from '../../lib/server/server';
import type { ToolDefinition, ToolSchema } from '../../lib/server/tool-registry';
import type { StandardSchemaV1 } from '../../lib/validation/standard-schema';

/** Compiles only when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(_: Equal<A, B>) => undefined;

type Args = { city: string; days: number };
const server = createServer({ name: 'types', version: '1' });

// zod 4: the output type (defaults applied).
server.tool({
  name: 'zod4',
  inputSchema: z.object({ city: z.string(), days: z.number().default(3) }),
  handler: (_args) => {
    same<typeof _args, Args>(true);
    return {};
  },
});

// zod 3 (classic API).
server.tool({
  name: 'zod3',
  inputSchema: z3.object({ city: z3.string(), days: z3.number().default(3) }),
  handler: (_args) => {
    same<typeof _args, Args>(true);
    return {};
  },
});

// zod 3.25's zod/v4.
server.tool({
  name: 'zod3v4',
  inputSchema: z3v4.object({ city: z3v4.string(), days: z3v4.number().default(3) }),
  handler: (_args) => {
    same<typeof _args, Args>(true);
    return {};
  },
});

// valibot, with Standard JSON Schema from @valibot/to-json-schema, or a converter on the tool.
const valibotSchema = v.object({ city: v.string(), days: v.optional(v.number(), 3) });
server.tool({
  name: 'valibot',
  inputSchema: toStandardJsonSchema(valibotSchema),
  handler: (_args) => {
    same<typeof _args, Args>(true);
    return {};
  },
});
server.tool({
  name: 'valibot-converter',
  inputSchema: valibotSchema,
  toJsonSchema: (schema: typeof valibotSchema) => ({ type: 'object', title: String(schema.type) }),
  handler: (_args) => {
    same<typeof _args, Args>(true);
    return {};
  },
});

// arktype (its types only here: it ships ES modules, and this file compiles as CommonJS).
declare const arkSchema: Type<{ city: string; days: number }>;
server.tool({
  name: 'arktype',
  inputSchema: arkSchema,
  handler: (_args) => {
    same<typeof _args, Args>(true);
    return {};
  },
});

// Any Standard Schema: its output type.
declare const standard: StandardSchemaV1<{ city: string; days?: number }, Args>;
server.tool({
  name: 'standard',
  inputSchema: standard,
  handler: (_args) => {
    same<typeof _args, Args>(true);
    return {};
  },
});

// A JSON Schema object: arguments of unknown type, or the type the handler declares.
server.tool({
  name: 'json',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  handler: (_args) => {
    same<typeof _args, unknown>(true);
    return {};
  },
});
server.tool({
  name: 'json-typed',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  handler: (args: { city: string }) => ({ content: [{ type: 'text', text: args.city }] }),
});

// No schema: no arguments to speak of.
server.tool({ name: 'none', handler: () => ({}) });

// A handler that expects what the schema does not give is refused.
server.tool({
  name: 'mismatch',
  // @ts-expect-error: city is a string, not the number the handler expects
  inputSchema: z3.object({ city: z3.string() }),
  handler: (args: { city: number }) => ({ content: [{ type: 'text', text: String(args.city) }] }),
});
server.tool({
  name: 'mismatch-valibot',
  inputSchema: toStandardJsonSchema(v.object({ city: v.string() })),
  handler: (args) => {
    // @ts-expect-error: city is a string
    const n: number = args.city;
    return { content: [{ type: 'text', text: String(n) }] };
  },
});

// A JSON Schema must describe an object.
// @ts-expect-error: type "string" is not an object schema
const notObject: ToolSchema = { type: 'string' };

// Output schemas take the same kinds.
const withOutput: ToolDefinition<Args> = {
  name: 'out',
  inputSchema: z.object({ city: z.string(), days: z.number() }),
  outputSchema: z3.object({ city: z3.string() }),
  handler: ({ city }) => ({ structuredContent: { city } }),
};
const o1: ToolSchema = z.object({});
const o2: ToolSchema = z3.object({});
const o3: ToolSchema = z3v4.object({});
const o4: ToolSchema = toStandardJsonSchema(v.object({}));
const o5: ToolSchema = { type: 'object' };
const outputs = [o1, o2, o3, o4, o5];
const arkOutput: ToolSchema = arkSchema;
server.tool({
  name: 'outputs',
  inputSchema: z3v4.object({ city: z3v4.string() }),
  outputSchema: arkSchema,
  handler: ({ city }) => ({ structuredContent: { city, days: 1 } }),
});

export { arkOutput, notObject, outputs, same, withOutput };
