/**
 * The handler's `structuredContent` type, inferred from each kind of output schema a tool takes.
 * Checked by `tsc` only (jest skips spec/types): every line must compile, and every
 * `@ts-expect-error` must stay an error.
 */
import type { Type } from 'arktype' with { 'resolution-mode': 'import' };
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { z as z3v4 } from 'zod3/v4';
import { of } from 'rxjs';
import { createServer } from '../../lib/server/server';
import { serveApps } from '../../lib/server/apps';
import type { ToolDefinition, ToolResult } from '../../lib/server/tool-registry';
import type { StandardSchemaV1 } from '../../lib/validation/standard-schema';

/** Compiles only when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(_: Equal<A, B>) => undefined;

type Weather = { temperature: number };
const server = createServer({ name: 'types', version: '1' });

// zod 4: a result of the schema's shape compiles, from a plain return, a Promise or an Observable.
server.tool({
  name: 'zod4',
  outputSchema: z.object({ temperature: z.number() }),
  handler: () => ({ structuredContent: { temperature: 21 } }),
});
server.tool({
  name: 'zod4-async',
  inputSchema: z.object({ city: z.string() }),
  outputSchema: z.object({ temperature: z.number() }),
  handler: async ({ city }) => ({ structuredContent: { temperature: city.length } }),
});
server.tool({
  name: 'zod4-observable',
  outputSchema: z.object({ temperature: z.number() }),
  handler: () => of({ structuredContent: { temperature: 21 } }),
});

// zod 4: a result of another shape does not.
server.tool({
  name: 'zod4-wrong-type',
  outputSchema: z.object({ temperature: z.number() }),
  // @ts-expect-error: temperature is a number, not a string
  handler: () => ({ structuredContent: { temperature: 'warm' } }),
});
server.tool({
  name: 'zod4-missing',
  outputSchema: z.object({ temperature: z.number() }),
  // @ts-expect-error: temperature is required
  handler: () => ({ structuredContent: { celsius: 21 } }),
});
server.tool({
  name: 'zod4-async-wrong',
  outputSchema: z.object({ temperature: z.number() }),
  // @ts-expect-error: temperature is a number, also from an async handler
  handler: async () => ({ structuredContent: { temperature: 'warm' } }),
});

// zod 4: the output type, defaults applied (the type the listed JSON Schema describes).
server.tool({
  name: 'zod4-default',
  outputSchema: z.object({ temperature: z.number(), unit: z.enum(['C', 'F']).default('C') }),
  // @ts-expect-error: unit is part of the output type
  handler: () => ({ structuredContent: { temperature: 21 } }),
});

// zod 3 and zod 3.25's zod/v4.
server.tool({
  name: 'zod3',
  outputSchema: z3.object({ temperature: z3.number() }),
  handler: () => ({ structuredContent: { temperature: 21 } }),
});
server.tool({
  name: 'zod3-wrong',
  outputSchema: z3.object({ temperature: z3.number() }),
  // @ts-expect-error: temperature is a number
  handler: () => ({ structuredContent: { temperature: 'warm' } }),
});
server.tool({
  name: 'zod3v4-wrong',
  outputSchema: z3v4.object({ temperature: z3v4.number() }),
  // @ts-expect-error: temperature is a number
  handler: () => ({ structuredContent: { temperature: 'warm' } }),
});

// Standard Schema libraries: valibot, arktype, any Standard Schema.
server.tool({
  name: 'valibot',
  outputSchema: toStandardJsonSchema(v.object({ temperature: v.number() })),
  handler: () => ({ structuredContent: { temperature: 21 } }),
});
server.tool({
  name: 'valibot-wrong',
  outputSchema: toStandardJsonSchema(v.object({ temperature: v.number() })),
  // @ts-expect-error: temperature is a number
  handler: () => ({ structuredContent: { temperature: 'warm' } }),
});
declare const arkWeather: Type<Weather>;
server.tool({
  name: 'arktype-wrong',
  outputSchema: arkWeather,
  // @ts-expect-error: temperature is a number
  handler: () => ({ structuredContent: { temperature: 'warm' } }),
});
declare const standard: StandardSchemaV1<unknown, Weather>;
server.tool({
  name: 'standard',
  outputSchema: standard,
  handler: () => ({ structuredContent: { temperature: 21 } }),
});
server.tool({
  name: 'standard-wrong',
  outputSchema: standard,
  // @ts-expect-error: temperature is a number
  handler: () => ({ structuredContent: { temperature: 'warm' } }),
});

// A JSON Schema object, or no output schema: any object.
server.tool({
  name: 'json',
  outputSchema: { type: 'object', properties: { temperature: { type: 'number' } } },
  handler: () => ({ structuredContent: { temperature: 'anything goes' } }),
});
server.tool({ name: 'none', handler: () => ({ structuredContent: { anything: true } }) });
server.tool({
  name: 'json-not-object',
  outputSchema: { type: 'object' },
  // @ts-expect-error: structuredContent is an object still
  handler: () => ({ structuredContent: 'text' }),
});

// The types themselves: an explicit definition and the result type.
same<NonNullable<ToolResult<Weather>['structuredContent']>, Weather>(true);
same<NonNullable<ToolResult['structuredContent']>, Record<string, unknown>>(true);
same<NonNullable<ToolResult<unknown>['structuredContent']>, Record<string, unknown>>(true);
const explicit: ToolDefinition<{ city: string }, Weather> = {
  name: 'explicit',
  inputSchema: z.object({ city: z.string() }),
  outputSchema: z.object({ temperature: z.number() }),
  handler: () => ({ structuredContent: { temperature: 21 } }),
};
const explicitWrong: ToolDefinition<{ city: string }, Weather> = {
  name: 'explicit-wrong',
  // @ts-expect-error: the schema's output is not the declared Weather
  outputSchema: z.object({ temperature: z.string() }),
  handler: () => ({ structuredContent: { temperature: 21 } }),
};

// A tool linked to an MCP Apps view is typed the same way.
const apps = serveApps(server);
apps.tool(
  {
    name: 'app',
    outputSchema: z.object({ temperature: z.number() }),
    // @ts-expect-error: temperature is a number
    handler: () => ({ structuredContent: { temperature: 'warm' } }),
  },
  { resourceUri: 'ui://weather/view.html' },
);

export { explicit, explicitWrong, same };
