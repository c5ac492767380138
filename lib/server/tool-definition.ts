/**
 * What a tool is: its definition, how it is compiled at registration (listing, argument and output
 * checks), and how what its handler produced becomes the result sent.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { HandlerOutput } from '../connection/dispatcher';
import { CapabilityNotSupportedError, JsonRpcError } from '../jsonrpc/errors';
import type { ValidationIssue } from '../jsonrpc/errors';
import type { Icon } from '../schema/base';
import type { ContentBlock } from '../schema/content';
import { describeIssues, toValidationIssues } from '../schema/issues';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import { checkResult } from '../schema/methods';
import type { CallToolResult, Tool, ToolAnnotations, ToolExecution } from '../schema/tools';
import type { JsonSchemaValidate, JsonSchemaValidatorFactory } from '../schema/json-schema-validator';
import type { Registration } from './registry';
import { adaptToolResult, completeResult } from './revision-adapter';
import { paramHeadersOf } from './param-headers';
import type { ParamHeader } from './param-headers';
import type { ServerContext } from './server-context';

/** A JSON Schema object, kept verbatim when a tool is registered with one (`$schema`, `$defs` and all). */
export type JsonSchemaObject = { readonly type: 'object' } & Readonly<Record<string, unknown>>;

/**
 * A tool's result as its handler produces it. `content` may be left out when `structuredContent`
 * is given: its JSON becomes a text block, as the spec recommends for clients that ignore it.
 */
export type ToolResult = Pick<CallToolResult, 'structuredContent' | 'isError' | '_meta'> & {
  readonly content?: readonly ContentBlock[];
};

/** What a tool handler receives besides its arguments: progress, logging, requests to the client, cancellation. */
export type ToolContext = ServerContext;

/**
 * A failure a tool wants the model to see: thrown from a handler (or as its Observable's error), it
 * becomes a result with `isError: true` and the message as text. Any other error becomes an
 * `isError` result with a generic text (the details go to the server's log); a `JsonRpcError`
 * becomes a JSON-RPC error response.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';

  constructor(
    message: string,
    /** Extra content blocks to send after the message. */
    readonly content: readonly ContentBlock[] = [],
  ) {
    super(message);
  }
}

/** Registers one tool: its metadata, its input (and output) schema and the handler that runs it. */
export interface ToolDefinition<Args = Record<string, unknown>> {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /**
   * A zod object schema (arguments are validated and typed with it, and it is sent as JSON Schema),
   * or a JSON Schema object, sent exactly as given and checked with the server's JSON Schema
   * validator. Default: an object with no properties.
   */
  readonly inputSchema?: z.ZodType<Args> | JsonSchemaObject;
  /** The shape of `structuredContent`; a result that does not match is not sent (from 2025-06-18). */
  readonly outputSchema?: z.ZodType | JsonSchemaObject;
  readonly annotations?: ToolAnnotations;
  readonly icons?: readonly Icon[];
  readonly execution?: ToolExecution;
  readonly _meta?: Record<string, unknown>;
  /**
   * OAuth scopes a caller's token must carry to use it, on a protected endpoint (`auth`); a token
   * without them is answered 403 `insufficient_scope` naming them.
   */
  readonly scopes?: readonly string[];
  /** Register it disabled (not listed, not callable) until `enable()`. Default true. */
  readonly enabled?: boolean;
  /** Runs the tool. May return a result, a Promise of one, or an Observable of progress, logs and the result. */
  readonly handler: (args: Args, context: ToolContext) => HandlerOutput<ToolResult>;
}

/** A registered tool's handle: enable, disable or remove it at run time. */
export type RegisteredTool = Registration;

/** A registered tool, compiled. */
export interface ToolEntry {
  readonly definition: ToolDefinition<never>;
  /** The `Tool` object for the latest revision, built once at registration. */
  readonly listing: Tool;
  /** Listings adapted to older revisions, built on first use. */
  readonly adapted: Map<Revision, Tool>;
  readonly checkInput: (args: unknown) => { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };
  readonly checkOutput?: (structured: unknown) => ValidationIssue[];
  /** The arguments its schema mirrors into `Mcp-Param-*` headers. */
  readonly paramHeaders: readonly ParamHeader[];
}

/** Options of `createToolRegistry`. */
const EMPTY_OBJECT_SCHEMA: JsonSchemaObject = { type: 'object', properties: {} };

function zodToJsonSchema(schema: z.ZodType, io: 'input' | 'output', what: string): JsonSchemaObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  // Left out so that no dialect is claimed to clients whose validators know only draft-07.
  void _dialect;
  if (json.type !== 'object') throw new TypeError(`${what} must describe an object, got ${String(json.type)}`);
  return json as JsonSchemaObject;
}

export function withPrefix(issues: readonly ValidationIssue[], prefix: string): ValidationIssue[] {
  return issues.map((issue) => ({ ...issue, path: issue.path ? `${prefix}.${issue.path}` : prefix }));
}

export function errorResult(text: string, extra: readonly ContentBlock[] = []): CallToolResult {
  return { content: [{ type: 'text', text }, ...extra], isError: true };
}

/** Creates an empty tool registry. */

/** Compiles a definition once, at registration: its listing, argument and output checks, and `Mcp-Param-*` headers. */
export function compileTool(definition: ToolDefinition<never>, validator: JsonSchemaValidatorFactory): ToolEntry {
  const { inputSchema, outputSchema, name } = definition;
  const listing: Record<string, unknown> = { name };
  if (definition.title !== undefined) listing.title = definition.title;
  if (definition.description !== undefined) listing.description = definition.description;
  let checkInput: ToolEntry['checkInput'];
  if (inputSchema instanceof z.ZodType) {
    listing.inputSchema = zodToJsonSchema(inputSchema, 'input', `the inputSchema of tool ${name}`);
    checkInput = (args) => {
      const parsed = inputSchema.safeParse(args);
      return parsed.success
        ? { ok: true, value: parsed.data }
        : { ok: false, issues: toValidationIssues(parsed.error) };
    };
  } else {
    const schema = inputSchema ?? EMPTY_OBJECT_SCHEMA;
    if (schema.type !== 'object') throw new TypeError(`the inputSchema of tool ${name} must have type "object"`);
    listing.inputSchema = schema;
    const validate: JsonSchemaValidate = validator(schema);
    checkInput = (args) => {
      const issues = validate(args);
      return issues.length === 0 ? { ok: true, value: args } : { ok: false, issues };
    };
  }
  let checkOutput: ToolEntry['checkOutput'];
  if (outputSchema instanceof z.ZodType) {
    listing.outputSchema = zodToJsonSchema(outputSchema, 'output', `the outputSchema of tool ${name}`);
    checkOutput = (value) => {
      const parsed = outputSchema.safeParse(value);
      return parsed.success ? [] : toValidationIssues(parsed.error);
    };
  } else if (outputSchema !== undefined) {
    listing.outputSchema = outputSchema;
    checkOutput = validator(outputSchema);
  }
  if (definition.annotations !== undefined) listing.annotations = definition.annotations;
  if (definition.icons !== undefined) listing.icons = definition.icons;
  if (definition.execution !== undefined) listing.execution = definition.execution;
  if (definition._meta !== undefined) listing._meta = definition._meta;
  let paramHeaders: ParamHeader[];
  try {
    paramHeaders = paramHeadersOf(listing.inputSchema);
  } catch (error) {
    throw new TypeError(`the inputSchema of tool ${name}: ${(error as Error).message}`);
  }
  return { definition, listing: listing as Tool, adapted: new Map(), checkInput, checkOutput, paramHeaders };
}

/** Turns what the handler produced into the result to send, or an `isError` result saying why not. */
export function finishToolCall(
  entry: ToolEntry,
  value: unknown,
  context: ToolContext,
  options: { readonly logger: Logger; readonly validateResults: boolean },
): CallToolResult {
  const log = options.logger;
  const name = entry.definition.name;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    log.error({ tool: name, type: typeof value }, 'tool handler returned no result object');
    return errorResult(`Tool ${name} failed: it produced no result`);
  }
  const produced = value as ToolResult;
  if (!produced.isError && entry.checkOutput) {
    const issues =
      produced.structuredContent === undefined
        ? [{ path: 'structuredContent', message: 'required by the outputSchema' }]
        : withPrefix(entry.checkOutput(produced.structuredContent), 'structuredContent');
    if (issues.length > 0) {
      log.error({ tool: name, problem: describeIssues(issues) }, 'tool result does not match its outputSchema');
      return errorResult(`Tool ${name} failed: its result did not match its output schema`);
    }
  }
  let content = produced.content as ContentBlock[] | undefined;
  if (content === undefined) {
    content =
      produced.structuredContent === undefined
        ? []
        : [{ type: 'text', text: JSON.stringify(produced.structuredContent) }];
  }
  const adapted = adaptToolResult({ ...produced, content } as CallToolResult, featuresOf(context.revision as Revision));
  const result = completeResult(adapted, context.revision);
  if (options.validateResults) {
    const parsed = checkResult('tools/call', context.revision as Revision, result)!;
    if (!parsed.success) {
      log.error(
        { tool: name, problem: describeIssues(toValidationIssues(parsed.error)) },
        'tool returned an invalid result',
      );
      return errorResult(`Tool ${name} failed: it produced an invalid result`);
    }
  }
  return result;
}

/** What a handler's failure becomes: a JSON-RPC error passed on, or an `isError` result that names no internals. */
export function failToolCall(entry: ToolEntry, error: unknown, context: ToolContext, log: Logger): CallToolResult {
  if (error instanceof JsonRpcError) throw error;
  // A stateless request whose client lacks a capability the tool needs is answered -32021.
  if (error instanceof CapabilityNotSupportedError && context.peer !== undefined) throw error;
  if (error instanceof ToolError) return errorResult(error.message, error.content);
  if (context.signal.aborted) throw error;
  // The model sees that the tool failed; the details stay in our log (STYLE: Errors).
  log.error({ err: error, tool: entry.definition.name, id: context.requestId }, 'tool handler failed');
  return errorResult(`Tool ${entry.definition.name} failed`);
}
