import { Observable } from 'rxjs';
import * as v from 'valibot';
import { toJsonSchema, toStandardJsonSchema } from '@valibot/to-json-schema';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { z as z3v4 } from 'zod3/v4';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import type { ToolDefinition, ToolResult, ToolSchema } from '../../lib/server/tool-registry';
import type { JsonSchemaObject } from '../../lib/server/tool-schema';
import { compileJsonSchema } from '../../lib/validation/json-schema-validator';
import type { JsonSchemaValidatorFactory } from '../../lib/validation/json-schema-validator';
import { serve } from './harness';

// One tool, described in each schema language: `city` a string of 2 or more characters, `days` an
// integer from 1 to 7 that defaults to 3 (JSON Schema applies no default, so the handler does);
// its result `{ city, days }`.
type Args = { city: string; days: number };

interface Flavour {
  readonly input: ToolSchema<Args>;
  readonly output: ToolSchema;
  readonly toJsonSchema?: ToolDefinition['toJsonSchema'];
  /** Whether checking applies the default of `days` (JSON Schema validation does not). */
  readonly defaults: boolean;
}

const FLAVOURS: Record<string, Flavour> = {
  'zod 4': {
    input: z.object({ city: z.string().min(2).describe('City'), days: z.number().int().min(1).max(7).default(3) }),
    output: z.object({ city: z.string(), days: z.number() }),
    defaults: true,
  },
  'zod 3': {
    input: z3.object({
      city: z3.string().min(2).describe('City'),
      days: z3.number().int().min(1).max(7).default(3),
    }),
    output: z3.object({ city: z3.string(), days: z3.number() }),
    defaults: true,
  },
  'zod 3 (zod/v4)': {
    input: z3v4.object({
      city: z3v4.string().min(2).describe('City'),
      days: z3v4.number().int().min(1).max(7).default(3),
    }),
    output: z3v4.object({ city: z3v4.string(), days: z3v4.number() }),
    defaults: true,
  },
  'valibot (Standard JSON Schema)': {
    input: toStandardJsonSchema(
      v.object({
        city: v.pipe(v.string(), v.minLength(2), v.description('City')),
        days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(7)), 3),
      }),
    ),
    output: toStandardJsonSchema(v.object({ city: v.string(), days: v.number() })),
    defaults: true,
  },
  'valibot (toJsonSchema on the tool)': {
    input: v.object({
      city: v.pipe(v.string(), v.minLength(2), v.description('City')),
      days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(7)), 3),
    }),
    output: v.object({ city: v.string(), days: v.number() }),
    toJsonSchema: (schema: v.GenericSchema) => toJsonSchema(schema),
    defaults: true,
  },
  'JSON Schema': {
    input: {
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 2, description: 'City' },
        days: { type: 'integer', minimum: 1, maximum: 7 },
      },
      required: ['city'],
    },
    output: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'number' } } },
    defaults: false,
  },
};

describe.each(Object.entries(FLAVOURS))('a tool described with %s', (_flavour, flavour) => {
  let server: McpServer;
  let received: Args[];
  afterEach(() => server.close());

  function weather() {
    received = [];
    server = createServer({ name: 'schemas', version: '1.0.0' });
    server.tool<Args>({
      name: 'weather',
      inputSchema: flavour.input,
      outputSchema: flavour.output,
      toJsonSchema: flavour.toJsonSchema,
      handler: (args) => {
        received.push(args);
        const days = args.days ?? 3;
        // "Atlantis" breaks the output schema.
        return { structuredContent: { city: args.city, days: args.city === 'Atlantis' ? 'many' : days } };
      },
    });
    return server;
  }

  it('lists its input and output schemas as JSON Schema', async () => {
    const { call } = await serve(weather());
    const { tools } = (await call('tools/list')) as { tools: Array<Record<string, Record<string, unknown>>> };
    const { inputSchema, outputSchema } = tools[0]!;
    expect(inputSchema).not.toHaveProperty('$schema');
    expect(inputSchema!.type).toBe('object');
    expect(inputSchema!.required).toEqual(['city']);
    const properties = inputSchema!.properties as Record<string, Record<string, unknown>>;
    expect(properties.city).toMatchObject({ type: 'string', minLength: 2 });
    expect(properties.city!.description).toBe('City');
    expect(properties.days).toMatchObject({ type: 'integer', minimum: 1, maximum: 7 });
    expect(outputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'number' } },
    });
  });

  it('gives the handler the arguments as its schema parsed them', async () => {
    const { call } = await serve(weather());
    const result = await call('tools/call', { name: 'weather', arguments: { city: 'Paris', days: 2 } });
    expect(result).toEqual({
      structuredContent: { city: 'Paris', days: 2 },
      content: [{ type: 'text', text: '{"city":"Paris","days":2}' }],
    });
    await call('tools/call', { name: 'weather', arguments: { city: 'Oslo' } });
    expect(received).toEqual([
      { city: 'Paris', days: 2 },
      flavour.defaults ? { city: 'Oslo', days: 3 } : { city: 'Oslo' },
    ]);
  });

  it('answers invalid arguments with -32602 naming each field, before 2025-11-25', async () => {
    const { call } = await serve(weather(), { protocolVersion: '2025-06-18' });
    const failure = call('tools/call', { name: 'weather', arguments: { city: 'X', days: 9 } });
    await expect(failure).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('arguments.city'),
      data: {
        issues: [
          { path: 'arguments.city', message: expect.any(String) },
          { path: 'arguments.days', message: expect.any(String) },
        ],
      },
    });
    expect(received).toEqual([]);
  });

  it('answers invalid arguments with an isError result naming the field from 2025-11-25', async () => {
    const { call } = await serve(weather());
    const result = await call('tools/call', { name: 'weather', arguments: { city: 7 } });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^Invalid arguments for tool weather: city: /) }],
    });
    expect(received).toEqual([]);
  });

  it('does not send a result that breaks its output schema', async () => {
    const { call } = await serve(weather());
    const result = await call('tools/call', { name: 'weather', arguments: { city: 'Atlantis' } });
    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            /^Tool weather failed: its result did not match its output schema \(structuredContent\.days: /,
          ),
        },
      ],
    });
  });
});

describe('tool schemas that cannot be listed', () => {
  const server = createServer({ name: 'schemas', version: '1.0.0' });
  afterAll(() => server.close());
  const register = (definition: Omit<ToolDefinition, 'handler'>) => () =>
    server.tool({ ...definition, handler: () => ({}) } as ToolDefinition);

  it('names the tool when zod 4 cannot describe a kind', () => {
    expect(register({ name: 'when', inputSchema: z.object({ at: z.date() }) })).toThrow(
      'the inputSchema of tool when cannot be described as JSON Schema: Date cannot be represented in JSON Schema',
    );
    expect(register({ name: 'when', outputSchema: z.object({ at: z.bigint() }) })).toThrow(
      /^the outputSchema of tool when cannot be described as JSON Schema: BigInt/,
    );
  });

  it('names the tool, the kind and where it sits when zod 3 cannot describe a kind', () => {
    expect(register({ name: 'when', inputSchema: z3.object({ trip: z3.object({ at: z3.date() }) }) })).toThrow(
      'the inputSchema of tool when cannot be described as JSON Schema: ' +
        'zod 3 schemas of kind ZodDate cannot be described as JSON Schema (at trip.at)',
    );
    expect(register({ name: 'when', inputSchema: z3v4.object({ at: z3v4.date() }) })).toThrow(
      'the inputSchema of tool when cannot be described as JSON Schema: Date cannot be represented in JSON Schema',
    );
  });

  it('asks for a converter for a Standard Schema without JSON Schema', () => {
    expect(register({ name: 'plain', inputSchema: v.object({ city: v.string() }) })).toThrow(
      "the inputSchema of tool plain is a valibot schema with no JSON Schema: its library does not implement Standard JSON Schema, so pass a converter as the tool's toJsonSchema",
    );
  });

  it('refuses a schema that does not describe an object', () => {
    expect(register({ name: 'text', inputSchema: z3.string() as never })).toThrow(
      'the inputSchema of tool text must describe an object, got string',
    );
    expect(register({ name: 'text', outputSchema: toStandardJsonSchema(v.array(v.string())) })).toThrow(
      'the outputSchema of tool text must describe an object, got array',
    );
    expect(register({ name: 'text', inputSchema: { type: 'string' } as never })).toThrow(
      'the inputSchema of tool text must have type "object"',
    );
  });

  it('registers nothing when a schema fails', async () => {
    server.tool({ name: 'fine', inputSchema: z3.object({ at: z3.string() }), handler: () => ({}) });
    expect(register({ name: 'broken', inputSchema: z3.object({ at: z3.date() }) })).toThrow();
    const { call } = await serve(server);
    const { tools } = (await call('tools/list')) as { tools: Array<{ name: string }> };
    expect(tools.map((tool) => tool.name)).toEqual(['fine']);
  });
});

describe('one schema registered with many server definitions', () => {
  const handler = () => ({});

  it('converts it to JSON Schema once, and each definition lists it', async () => {
    const schema = v.object({ city: v.string() });
    const convert = jest.fn((s: never) => toJsonSchema(s));
    const servers = [1, 2, 3].map(() => {
      const server = createServer({ name: 'many', version: '1.0.0' });
      server.tool({ name: 'weather', inputSchema: schema, toJsonSchema: convert, handler });
      return server;
    });
    expect(convert).toHaveBeenCalledTimes(1);
    // Another converter is another compilation.
    createServer({ name: 'other', version: '1.0.0' }).tool({
      name: 'weather',
      inputSchema: schema,
      toJsonSchema: (s: never) => toJsonSchema(s),
      handler,
    });
    // The first compilation is still found beside it.
    createServer({ name: 'again', version: '1.0.0' }).tool({
      name: 'w',
      inputSchema: schema,
      toJsonSchema: convert,
      handler,
    });
    expect(convert).toHaveBeenCalledTimes(1);
    for (const server of servers) {
      const { call } = await serve(server);
      const { tools } = (await call('tools/list')) as { tools: Array<{ inputSchema: Record<string, unknown> }> };
      expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } });
      server.close();
    }
    expect(convert).toHaveBeenCalledTimes(1);
  });

  it('compiles a JSON Schema object at each registration, as it may have changed since', () => {
    const schema: Record<string, unknown> = { type: 'object', properties: { city: { type: 'string' } } };
    const compiled: unknown[] = [];
    const jsonSchemaValidator: JsonSchemaValidatorFactory = (raw) => {
      compiled.push(JSON.parse(JSON.stringify(raw)));
      return compileJsonSchema(raw);
    };
    const register = () =>
      createServer({ name: 'v', version: '1.0.0', jsonSchemaValidator }).tool({
        name: 't',
        inputSchema: schema as JsonSchemaObject,
        handler,
      });
    register();
    schema.required = ['city'];
    register();
    expect(compiled).toEqual([
      { type: 'object', properties: { city: { type: 'string' } } },
      { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    ]);
  });

  it('names each tool when the schema cannot be described, every time it is registered', () => {
    const schema = z.object({ at: z.date() });
    for (const name of ['first', 'second']) {
      expect(() => createServer({ name: 's', version: '1.0.0' }).tool({ name, inputSchema: schema, handler })).toThrow(
        `the inputSchema of tool ${name} cannot be described as JSON Schema`,
      );
    }
  });
});

describe('tool schemas that check asynchronously', () => {
  let server: McpServer;
  afterEach(() => server.close());
  const known = async (city: string) => {
    await new Promise((resolve) => setImmediate(resolve));
    return city !== 'Atlantis';
  };

  it.each([
    [
      'zod 4',
      z.object({ city: z.string().refine(known, 'unknown city') }),
      z.object({ n: z.number().refine(async (n) => n > 0) }),
    ],
    [
      'zod 3',
      z3.object({ city: z3.string().refine(known, 'unknown city') }),
      z3.object({ n: z3.number().refine(async (n) => n > 0) }),
    ],
    [
      'valibot',
      v.objectAsync({ city: v.pipeAsync(v.string(), v.checkAsync(known, 'unknown city')) }),
      v.objectAsync({
        n: v.pipeAsync(
          v.number(),
          v.checkAsync(async (n) => n > 0, 'positive'),
        ),
      }),
    ],
  ] as const)('awaits the checks of %s, for arguments and results', async (_name, input, output) => {
    const calls: unknown[] = [];
    server = createServer({ name: 'async', version: '1.0.0' });
    server.tool({
      name: 'visit',
      inputSchema: input as ToolSchema<{ city: string }>,
      outputSchema: output,
      // valibot describes its asynchronous schemas too (checks it cannot express left out), though
      // its types take only synchronous ones.
      toJsonSchema: _name === 'valibot' ? (schema) => toJsonSchema(schema, { errorMode: 'ignore' }) : undefined,
      handler: ({ city }) => {
        calls.push(city);
        return { structuredContent: { n: city.length - 4 } };
      },
    });
    const { call } = await serve(server, { protocolVersion: '2025-06-18' });
    await expect(call('tools/call', { name: 'visit', arguments: { city: 'Paris' } })).resolves.toEqual({
      structuredContent: { n: 1 },
      content: [{ type: 'text', text: '{"n":1}' }],
    });
    await expect(call('tools/call', { name: 'visit', arguments: { city: 'Atlantis' } })).rejects.toMatchObject({
      code: -32602,
      data: { issues: [{ path: 'arguments.city', message: expect.stringContaining('unknown city') }] },
    });
    await expect(call('tools/call', { name: 'visit', arguments: { city: 'Rome' } })).resolves.toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            /^Tool visit failed: its result did not match its output schema \(structuredContent\.n: /,
          ),
        },
      ],
    });
    expect(calls).toEqual(['Paris', 'Rome']);
  });

  it('passes on the progress of an Observable handler after an asynchronous check', async () => {
    server = createServer({ name: 'async', version: '1.0.0' });
    server.tool({
      name: 'visit',
      inputSchema: z.object({ city: z.string().refine(known) }),
      outputSchema: z3.object({ city: z3.string().refine(known) }),
      handler: ({ city }, context) =>
        new Observable<ToolResult<{ city: string }>>((subscriber) => {
          context.progress(1, 2);
          subscriber.next({ structuredContent: { city } });
          subscriber.complete();
        }),
    });
    const served = await serve(server);
    const result = await served.call('tools/call', {
      name: 'visit',
      arguments: { city: 'Paris' },
      _meta: { progressToken: 'p' },
    });
    expect(result).toEqual({
      structuredContent: { city: 'Paris' },
      content: [{ type: 'text', text: '{"city":"Paris"}' }],
    });
    expect(served.received('notifications/progress')).toEqual([
      expect.objectContaining({ params: expect.objectContaining({ progressToken: 'p', progress: 1, total: 2 }) }),
    ]);
  });
});
