import { z } from 'zod';
import { JsonRpcError } from '../jsonrpc/errors';
import { toValidationIssues } from '../schema/issues';
import type { HandlerOutput, RequestContext } from '../connection/dispatcher';

/** A JSON Schema object, kept verbatim when a tool is registered with one. */
export type JsonSchemaObject = { readonly type: 'object' } & Readonly<Record<string, unknown>>;

/** A tool's result as its handler produces it (see the spec's CallToolResult). */
export type ToolResult = { readonly content: readonly Record<string, unknown>[]; readonly isError?: boolean } & Readonly<
  Record<string, unknown>
>;

/** What a tool handler receives besides its arguments: progress, logging, requests to the client, cancellation. */
export type ToolContext = RequestContext;

/** Registers one tool: its metadata, its input schema and the handler that runs it. */
export interface ToolDefinition<Args = Record<string, unknown>> {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /**
   * A zod object schema (arguments are validated and typed with it, and it is sent as JSON Schema),
   * or a JSON Schema object, sent exactly as given.
   */
  readonly inputSchema?: z.ZodType<Args> | JsonSchemaObject;
  readonly annotations?: Readonly<Record<string, unknown>>;
  /** Runs the tool. May return a result, a Promise of one, or an Observable of progress, logs and the result. */
  readonly handler: (args: Args, context: ToolContext) => HandlerOutput<ToolResult>;
}

interface Entry {
  readonly definition: ToolDefinition<never>;
  /** The `Tool` object that `tools/list` sends, built once at registration. */
  readonly listing: Record<string, unknown>;
  readonly parse?: (args: unknown) => z.ZodSafeParseResult<unknown>;
}

const EMPTY_OBJECT_SCHEMA: JsonSchemaObject = { type: 'object', properties: {} };

function toJsonSchema(schema: z.ZodType): JsonSchemaObject {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  if (json.type !== 'object') throw new TypeError(`a tool's inputSchema must describe an object, got ${String(json.type)}`);
  return json as JsonSchemaObject;
}

/** The tools a server offers; shared by all of its sessions. */
export interface ToolRegistry {
  add<Args>(definition: ToolDefinition<Args>): void;
  remove(name: string): boolean;
  readonly size: number;
  /** The `Tool` objects for `tools/list`, in registration order. */
  list(): Record<string, unknown>[];
  /** Runs `tools/call`: an unknown tool or invalid arguments answer -32602. */
  call(params: Record<string, unknown>, context: ToolContext): HandlerOutput<ToolResult>;
}

/** Creates an empty tool registry. */
export function createToolRegistry(): ToolRegistry {
  const tools = new Map<string, Entry>();
  return {
    add(definition) {
      if (tools.has(definition.name)) throw new Error(`a tool named ${JSON.stringify(definition.name)} is already registered`);
      const { inputSchema } = definition;
      const isZod = inputSchema instanceof z.ZodType;
      const listing: Record<string, unknown> = {
        name: definition.name,
        inputSchema: isZod ? toJsonSchema(inputSchema) : (inputSchema ?? EMPTY_OBJECT_SCHEMA),
      };
      if (definition.title !== undefined) listing.title = definition.title;
      if (definition.description !== undefined) listing.description = definition.description;
      if (definition.annotations !== undefined) listing.annotations = definition.annotations;
      tools.set(definition.name, {
        definition: definition as unknown as ToolDefinition<never>,
        listing,
        parse: isZod ? (args) => inputSchema.safeParse(args) : undefined,
      });
    },
    remove: (name) => tools.delete(name),
    get size() {
      return tools.size;
    },
    list: () => [...tools.values()].map((entry) => entry.listing),
    call(params, context) {
      const name = params.name as string;
      const entry = tools.get(name);
      if (!entry) throw JsonRpcError.invalidParams(`Unknown tool: ${name}`);
      let args: unknown = params.arguments ?? {};
      if (entry.parse) {
        const parsed = entry.parse(args);
        if (!parsed.success) {
          throw JsonRpcError.invalidParams(
            toValidationIssues(parsed.error).map((issue) => ({ ...issue, path: issue.path ? `arguments.${issue.path}` : 'arguments' })),
          );
        }
        args = parsed.data;
      }
      return entry.definition.handler(args as never, context);
    },
  };
}
