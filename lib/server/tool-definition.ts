/**
 * What a tool is: its definition, how it is compiled at registration (listing, argument and output
 * checks), and how what its handler produced becomes the result sent.
 */
import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
import type { Logger } from 'pino';
import { concatMap, from, isObservable, of } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { HandlerOutput } from '../connection/dispatcher';
import type { ValidationIssue } from '../jsonrpc/errors';
import type { Icon } from '../schema/base';
import type { ContentBlock } from '../schema/content';
import { describeIssues, toValidationIssues } from '../validation/issues';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import { checkResult } from '../schema/methods';
import type { CallToolResult, Tool, ToolAnnotations, ToolExecution } from '../schema/tools';
import type { JsonSchemaValidatorFactory } from '../validation/json-schema-validator';
import type { Registration } from './registry';
import { adaptToolResult, completeResult } from './revision-adapter';
import { paramHeadersOf } from './param-headers';
import type { ParamHeader } from './param-headers';
import type { ServerContext } from './server-context';
import { compileToolSchema } from './tool-schema';
import type { Checked, CompiledSchema, JsonSchemaObject, ToJsonSchema, ToolSchema } from './tool-schema';

export type { JsonSchemaObject, ToJsonSchema, ToolSchema } from './tool-schema';

/**
 * A tool's result as its handler produces it. `content` may be left out when `structuredContent`
 * is given: its JSON becomes a text block, as the spec recommends for clients that ignore it.
 *
 * `Structured` is the type of `structuredContent`: the output type of the tool's `outputSchema`
 * when its library states one (zod 4, zod 3, a Standard Schema), else (a JSON Schema object, or
 * no output schema) any object.
 */
export type ToolResult<Structured = unknown> = Pick<CallToolResult, 'isError' | '_meta'> & {
  readonly content?: readonly ContentBlock[];
  readonly structuredContent?: StructuredContent<Structured>;
};

/** `structuredContent` as a schema of output type `T` types it; any object when `T` is not known. */
export type StructuredContent<T> = unknown extends T ? Record<string, unknown> : T;

/** What a tool handler receives besides its arguments: progress, logging, requests to the client, cancellation. */
export type ToolContext = ServerContext;

/**
 * A failure a tool wants the model to see: thrown from a handler (or as its Observable's error), it
 * becomes a result with `isError: true` and the message as text. Any other error becomes an
 * `isError` result with its message as text (or, with the server's `hideErrorMessages`, a generic
 * text, the details in the server's log); a `JsonRpcError` becomes a JSON-RPC error response.
 */
export class ToolError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.Tool;
  override readonly name = 'ToolError';

  constructor(
    message: string,
    /** Extra content blocks to send after the message. */
    readonly content: readonly ContentBlock[] = [],
  ) {
    super(message);
  }
}

/**
 * Registers one tool: its metadata, its input (and output) schema and the handler that runs it.
 * `Args` is what the handler receives, inferred from `inputSchema`; `Structured` is the
 * `structuredContent` its results carry, inferred from `outputSchema`.
 *
 * @example
 * ```ts
 * server.tool({
 *   name: 'weather',
 *   inputSchema: z.object({ city: z.string() }),
 *   outputSchema: z.object({ temperature: z.number() }),
 *   // `structuredContent` must be `{ temperature: number }`: anything else does not compile.
 *   handler: async ({ city }) => ({ structuredContent: { temperature: await temperatureIn(city) } }),
 * });
 * ```
 */
export interface ToolDefinition<Args = Record<string, unknown>, Structured = unknown> {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /**
   * An object schema for the arguments: zod 4 or 3, or any Standard Schema (valibot, arktype, ...),
   * which validates and types them and is sent as JSON Schema; or a JSON Schema object, sent exactly
   * as given and checked with the server's JSON Schema validator. Default: an object with no properties.
   */
  readonly inputSchema?: ToolSchema<Args>;
  /**
   * The shape of `structuredContent`, of the same kinds as `inputSchema`; a result that does not
   * match is not sent (from 2025-06-18). A schema of a library types the handler's
   * `structuredContent` with its output type (the type it describes to clients); a JSON Schema
   * object leaves it any object.
   */
  readonly outputSchema?: ToolSchema<Structured>;
  /**
   * Describes a Standard Schema whose library does not implement Standard JSON Schema, e.g.
   * `toJsonSchema: (schema) => toJsonSchema(schema)` from `@valibot/to-json-schema`.
   */
  readonly toJsonSchema?: ToJsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly icons?: readonly Icon[];
  /**
   * `taskSupport` says whether the tool may (`optional`) or must (`required`) run as a task, on a
   * server created with `tasks`; default `forbidden`. Sent in the listing as it is.
   */
  readonly execution?: ToolExecution;
  /**
   * When a call that runs as a task becomes one: `immediately` (the default), or `signalled`, when
   * the handler emits `startTask()`: what it does before runs within the request (where, under
   * 2026-07-28, it asks its client for input in multi round-trip rounds), and the rest is the task.
   */
  readonly taskStart?: 'immediately' | 'signalled';
  readonly _meta?: Record<string, unknown>;
  /**
   * OAuth scopes a caller's token must carry to use it, on a protected endpoint (`auth`); a token
   * without them is answered 403 `insufficient_scope` naming them.
   */
  readonly scopes?: readonly string[];
  /** Register it disabled (not listed, not callable) until `enable()`. Default true. */
  readonly enabled?: boolean;
  /** Runs the tool. May return a result, a Promise of one, or an Observable of progress, logs and the result. */
  readonly handler: (args: Args, context: ToolContext) => HandlerOutput<ToolResult<NoInfer<Structured>>>;
}

/** A registered tool's handle: enable, disable or remove it at run time. */
export type RegisteredTool = Registration;

/** A registered tool, compiled. */
export interface ToolEntry {
  readonly definition: ToolDefinition<never>;
  /** The `Tool` object for the latest revision, built once, when first listed. */
  readonly listing: Tool;
  /** Listings adapted to older revisions, built on first use. */
  adapted: Map<Revision, Tool> | undefined;
  /** Checks the arguments; asynchronous only for schemas that check asynchronously. */
  readonly checkInput: (args: unknown) => Checked | Promise<Checked>;
  readonly checkOutput?: (structured: unknown) => Checked | Promise<Checked>;
  /** The arguments its schema mirrors into `Mcp-Param-*` headers. */
  readonly paramHeaders: readonly ParamHeader[];
}

const EMPTY_OBJECT_SCHEMA: JsonSchemaObject = { type: 'object', properties: {} };

/** The empty input schema compiled once per validator: every tool that takes no arguments shares it. */
const emptyInputs = new WeakMap<JsonSchemaValidatorFactory, CompiledSchema>();

function compiledEmptyInput(validator: JsonSchemaValidatorFactory, tool: string): CompiledSchema {
  let compiled = emptyInputs.get(validator);
  if (compiled === undefined) {
    compiled = compileToolSchema(EMPTY_OBJECT_SCHEMA, { tool, validator, what: 'inputSchema' });
    emptyInputs.set(validator, compiled);
  }
  return compiled;
}

export function withPrefix(issues: readonly ValidationIssue[], prefix: string): ValidationIssue[] {
  return issues.map((issue) => ({ ...issue, path: issue.path ? `${prefix}.${issue.path}` : prefix }));
}

export function errorResult(text: string, extra: readonly ContentBlock[] = []): CallToolResult {
  return { content: [{ type: 'text', text }, ...extra], isError: true };
}

/**
 * A tool compiled at registration: its argument and output checks and its `Mcp-Param-*` headers.
 * Its listing is built when first listed, with the JSON Schema of a plain zod object (see
 * `isPlainZod4Object`): a definition built per session or per request is then not described for
 * sessions that never list it.
 */
class CompiledTool implements ToolEntry {
  adapted: Map<Revision, Tool> | undefined = undefined;
  readonly checkInput: ToolEntry['checkInput'];
  readonly checkOutput: ToolEntry['checkOutput'];
  private built: Tool | undefined;

  constructor(
    readonly definition: ToolDefinition<never>,
    private readonly input: CompiledSchema,
    private readonly output: CompiledSchema | undefined,
    readonly paramHeaders: readonly ParamHeader[],
  ) {
    this.checkInput = input.check;
    this.checkOutput = output?.check;
  }

  get listing(): Tool {
    return (this.built ??= listingOf(this.definition, this.input, this.output));
  }
}

function listingOf(definition: ToolDefinition<never>, input: CompiledSchema, output: CompiledSchema | undefined): Tool {
  const listing: Record<string, unknown> = { name: definition.name };
  if (definition.title !== undefined) listing.title = definition.title;
  if (definition.description !== undefined) listing.description = definition.description;
  listing.inputSchema = input.json;
  if (output) listing.outputSchema = output.json;
  if (definition.annotations !== undefined) listing.annotations = definition.annotations;
  if (definition.icons !== undefined) listing.icons = definition.icons;
  if (definition.execution !== undefined) listing.execution = definition.execution;
  if (definition._meta !== undefined) listing._meta = definition._meta;
  return listing as Tool;
}

/** The headers of every tool that has none: one array for all of them. */
const NO_PARAM_HEADERS: readonly ParamHeader[] = Object.freeze([]);

/** Compiles a definition once, at registration: its argument and output checks, and `Mcp-Param-*` headers. */
export function compileTool(definition: ToolDefinition<never>, validator: JsonSchemaValidatorFactory): ToolEntry {
  const { inputSchema, outputSchema, name } = definition;
  const common = { tool: name, validator, toJsonSchema: definition.toJsonSchema };
  const input =
    inputSchema === undefined && definition.toJsonSchema === undefined
      ? compiledEmptyInput(validator, name)
      : compileToolSchema(inputSchema ?? EMPTY_OBJECT_SCHEMA, { ...common, what: 'inputSchema' });
  const output = outputSchema && compileToolSchema(outputSchema, { ...common, what: 'outputSchema' });
  let paramHeaders: readonly ParamHeader[];
  try {
    // A deferred schema carries no `x-mcp-header` (no annotation but descriptions and titles).
    const found = input.deferred ? undefined : paramHeadersOf(input.json);
    paramHeaders = found === undefined || found.length === 0 ? NO_PARAM_HEADERS : found;
  } catch (error) {
    throw new TypeError(`the inputSchema of tool ${name}: ${(error as Error).message}`);
  }
  return new CompiledTool(definition, input, output, paramHeaders);
}

/**
 * Turns what the handler produced into the result to send, or an `isError` result saying why not;
 * a Promise when its output schema checks asynchronously.
 */
export function finishToolCall(
  entry: ToolEntry,
  value: unknown,
  context: ToolContext,
  options: ToolCallOptions,
): CallToolResult | Promise<CallToolResult> {
  const log = options.logger;
  const name = entry.definition.name;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    log.error({ tool: name, type: typeof value }, 'tool handler returned no result object');
    return errorResult(`Tool ${name} failed: it produced no result`);
  }
  const produced = value as ToolResult;
  if (produced.isError || !entry.checkOutput) return sendToolResult(entry, produced, context, options);
  const refuse = (issues: readonly ValidationIssue[]) => outputMismatch(name, issues, context, options);
  if (produced.structuredContent === undefined) {
    return refuse([{ path: 'structuredContent', message: 'required by the outputSchema' }]);
  }
  const settle = (checked: Checked) =>
    checked.ok
      ? sendToolResult(entry, produced, context, options)
      : refuse(withPrefix(checked.issues, 'structuredContent'));
  const checked = entry.checkOutput(produced.structuredContent);
  return checked instanceof Promise ? checked.then(settle) : settle(checked);
}

/** What finishing a tool call needs from the server. */
export interface ToolCallOptions {
  readonly logger: Logger;
  readonly validateResults: boolean;
  /**
   * Where the server's own failures go (at warn) and whether their details are kept from clients:
   * the server's failure policy. Without it, `logger` is used and details are sent.
   */
  readonly failures?: { readonly log: Logger; readonly hide: boolean };
}

/**
 * A result whose `structuredContent` breaks the tool's `outputSchema`: the server's own bug, so it
 * is logged at warn with the tool, the request id and each field that is wrong, and the caller gets
 * an `isError` result naming those fields and what was expected (only that it failed when the
 * server hides error messages).
 */
function outputMismatch(
  name: string,
  issues: readonly ValidationIssue[],
  context: ToolContext,
  options: ToolCallOptions,
): CallToolResult {
  const problem = describeIssues(issues);
  const log = options.failures?.log ?? options.logger;
  log.warn(
    { tool: name, id: context.requestId, problem, fields: issues.map((issue) => issue.path) },
    `tool ${name} returned structuredContent that does not match its outputSchema: ${problem}`,
  );
  const failed = `Tool ${name} failed: its result did not match its output schema`;
  return errorResult(options.failures?.hide ? failed : `${failed} (${problem})`);
}

/** The result as sent: content filled in, adapted to the revision, and checked against it when asked. */
function sendToolResult(
  entry: ToolEntry,
  produced: ToolResult,
  context: ToolContext,
  options: ToolCallOptions,
): CallToolResult {
  let content = produced.content as ContentBlock[] | undefined;
  if (content === undefined) {
    content =
      produced.structuredContent === undefined
        ? []
        : [{ type: 'text', text: JSON.stringify(produced.structuredContent) }];
  }
  const full = (content === produced.content ? produced : { ...produced, content }) as CallToolResult;
  const adapted = adaptToolResult(full, featuresOf(context.revision));
  const result = completeResult(adapted, context.revision);
  if (options.validateResults) {
    const parsed = checkResult('tools/call', context.revision, result)!;
    if (!parsed.success) {
      options.logger.error(
        { tool: entry.definition.name, problem: describeIssues(toValidationIssues(parsed.error)) },
        'tool returned an invalid result',
      );
      return errorResult(`Tool ${entry.definition.name} failed: it produced an invalid result`);
    }
  }
  return result;
}

type ToolOutput = HandlerOutput<CallToolResult | Promise<CallToolResult>>;

/** An Observable's results that are Promises (from asynchronous output checks) awaited in order. */
function settled(output: ToolOutput): HandlerOutput<CallToolResult> {
  if (!isObservable(output)) return output as HandlerOutput<CallToolResult>;
  return output.pipe(concatMap((item) => (item instanceof Promise ? from(item) : of(item))));
}

/**
 * Runs `next` with the outcome of checking a call's arguments: at once when the check was
 * synchronous, else as an Observable that waits for it (unsubscribing still cancels the handler).
 * Only a tool with an output schema can produce a result that waits (an asynchronous output
 * check): without one, `next`'s output is passed on as it is, with no operator per emission.
 */
export function whenChecked(
  entry: ToolEntry,
  checked: Checked | Promise<Checked>,
  next: (checked: Checked) => ToolOutput,
): HandlerOutput<CallToolResult> {
  const settle =
    entry.checkOutput === undefined ? (output: ToolOutput) => output as HandlerOutput<CallToolResult> : settled;
  if (!(checked instanceof Promise)) return settle(next(checked));
  return from(checked).pipe(
    concatMap((outcome) => {
      const output = settle(next(outcome));
      return isObservable(output) ? output : from(Promise.resolve(output));
    }),
  ) as Observable<CallToolResult>;
}
