import type { Observable } from '../rx/rxjs';
import type { Logger } from 'pino';
import type { HandlerOutput } from '../connection/dispatcher';
import { JsonRpcError } from '../jsonrpc/errors';
import { describeIssues } from '../validation/issues';
import { featuresOf, revisionAtLeast } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import type { CallToolRequestParams, CallToolResult, Tool } from '../schema/tools';
import { runHandler } from './handler-output';
import type { JsonSchemaValidatorFactory } from '../validation/json-schema-validator';
import { OverRegistry } from './registry';
import type { ListChangeListener } from './registry';
import { adaptListed } from './revision-adapter';
import { checkParamHeaders } from './param-headers';
import { compileTool, errorResult, finishToolCall, whenChecked, withPrefix } from './tool-definition';
import { toolFailure } from './handler-failures';
import type { FailurePolicy } from './handler-failures';
import type { RegisteredTool, ToolContext, ToolDefinition, ToolEntry } from './tool-definition';

export { ToolError } from './tool-definition';

/** Tool names as the specification asks for them (2025-11-25: Tools → Tool Names). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
export type {
  JsonSchemaObject,
  RegisteredTool,
  ToJsonSchema,
  ToolContext,
  ToolDefinition,
  ToolResult,
  ToolSchema,
} from './tool-definition';

export interface ToolRegistryOptions {
  readonly jsonSchemaValidator: JsonSchemaValidatorFactory;
  /** Check every result against the negotiated revision's `CallToolResult` before sending it. */
  readonly validateResults: boolean;
  readonly logger: Logger;
  /** How a handler's unexpected failure is answered and logged. */
  readonly failures: FailurePolicy;
}

/** The tools a server offers; shared by all of its sessions. */
export interface ToolRegistry {
  add<Args, Structured = unknown>(definition: ToolDefinition<Args, Structured>): RegisteredTool;
  remove(name: string): boolean;
  readonly size: number;
  /** Emits when the list `tools/list` answers changes. */
  readonly changed$: Observable<void>;
  /** Told of each change before `changed$` emits. */
  onChange: ListChangeListener | undefined;
  /** Answers `tools/list`: one page, adapted to the revision. */
  list(cursor: string | undefined, pageSize: number, revision: Revision): { tools: Tool[]; nextCursor?: string };
  /**
   * Answers `tools/call`. An unknown or disabled tool throws -32602; invalid arguments give an
   * `isError` result from 2025-11-25 on and -32602 before (SEP-1303). A handler's failure is an
   * `isError` result with its message (see `toolFailure`); a `JsonRpcError` it throws is the answer.
   */
  call(params: CallToolRequestParams, context: ToolContext): HandlerOutput<CallToolResult>;
  /** The scopes a tool needs (none for an unknown one). */
  scopes(name: string): readonly string[];
  /** How an enabled tool runs as a task (its `execution.taskSupport` and `taskStart`); undefined for an unknown one. */
  taskMode(name: string): { readonly support: TaskSupport; readonly start: 'immediately' | 'signalled' } | undefined;
}

/** Whether a tool may run as a task (2025-11-25: `execution.taskSupport`). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** The tools of one server definition. */
class Tools extends OverRegistry<ToolEntry> implements ToolRegistry {
  constructor(private readonly options: ToolRegistryOptions) {
    super('tools');
  }

  add<Args, Structured = unknown>(definition: ToolDefinition<Args, Structured>): RegisteredTool {
    if (!TOOL_NAME.test(definition.name)) {
      this.options.logger.warn(
        { tool: definition.name },
        'tool name breaks the naming rules (1 to 128 of A-Z a-z 0-9 _ - .): some clients will refuse or mangle it',
      );
    }
    const entry = compileTool(definition as unknown as ToolDefinition<never>, this.options.jsonSchemaValidator);
    return this.registry.registration(this.registry.add(definition.name, entry, definition.enabled ?? true));
  }

  remove(name: string): boolean {
    return this.registry.remove(name);
  }

  scopes(name: string): readonly string[] {
    return this.registry.get(name)?.definition.definition.scopes ?? [];
  }

  taskMode(name: string): { readonly support: TaskSupport; readonly start: 'immediately' | 'signalled' } | undefined {
    const definition = this.registry.get(name)?.definition.definition;
    if (definition === undefined) return undefined;
    const support = (definition.execution?.taskSupport ?? 'forbidden') as TaskSupport;
    return { support, start: definition.taskStart ?? 'immediately' };
  }

  list(cursor: string | undefined, pageSize: number, revision: Revision): { tools: Tool[]; nextCursor?: string } {
    const page = this.registry.page(cursor, pageSize);
    const tools = page.entries.map((entry) => listingFor(entry.definition, revision));
    return page.nextCursor === undefined ? { tools } : { tools, nextCursor: page.nextCursor };
  }

  call(params: CallToolRequestParams, context: ToolContext): HandlerOutput<CallToolResult> {
    const entry = this.registry.get(params.name)?.definition;
    if (!entry) throw JsonRpcError.invalidParams(`Unknown tool: ${params.name}`);
    // Over Streamable HTTP, a modern revision mirrors annotated arguments into headers.
    const headers = context.peer?.headers;
    if (headers && entry.paramHeaders.length > 0) checkParamHeaders(entry.paramHeaders, params.arguments, headers);
    const { options } = this;
    return whenChecked(entry, entry.checkInput(params.arguments ?? {}), (checked) => {
      if (!checked.ok) {
        // 2025-11-25 (SEP-1303): invalid arguments are a tool execution error the model can fix.
        if (revisionAtLeast(context.revision, '2025-11-25')) {
          return errorResult(`Invalid arguments for tool ${params.name}: ${describeIssues(checked.issues)}`);
        }
        throw JsonRpcError.invalidParams(withPrefix(checked.issues, 'arguments'));
      }
      return runHandler(
        () => entry.definition.handler(checked.value as never, context),
        (value) => finishToolCall(entry, value, context, options),
        (error) => toolFailure(options.failures, params.name, error, context),
      );
    });
  }
}

/** A tool's listing as `revision` shows it, adapted once per revision. */
function listingFor(entry: ToolEntry, revision: Revision): Tool {
  const byRevision = (entry.adapted ??= new Map());
  let adapted = byRevision.get(revision);
  if (!adapted) byRevision.set(revision, (adapted = adaptListed(entry.listing, 'tool', featuresOf(revision))));
  return adapted;
}

export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  return new Tools(options);
}
