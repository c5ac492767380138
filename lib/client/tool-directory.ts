import type { Logger } from 'pino';
import type { RequestOptions } from '../connection/request-pipeline';
import { ModernErrorCode } from '../connection/modern';
import { JsonRpcError, ProtocolError } from '../jsonrpc/errors';
import { withProperty } from '../base/objects';
import type { Tool } from '../schema/tools';
import { planToolHeaders, toolCallHeaders } from './tool-headers';
import type { ToolHeaderPlan } from './tool-headers';

/**
 * What a client knows of the server's tools from its latest full listing: the definitions (for
 * output-schema checks and `Mcp-Param-*` headers), forgotten when the list changes, and in a
 * modern revision the tools left out for invalid `x-mcp-header` annotations.
 */
export class ToolDirectory {
  private known: ReadonlyMap<string, Tool> | undefined;
  private rejected: Map<string, string> | undefined;
  /** Made when the first tool's headers are planned. */
  private plans: WeakMap<Tool, ToolHeaderPlan> | undefined = undefined;

  /** `checkHeaders`: apply the `x-mcp-header` rules (modern revisions). */
  constructor(
    private readonly checkHeaders: boolean,
    private readonly log: Logger,
  ) {}

  /** Whether a listing is known. */
  get knows(): boolean {
    return this.known !== undefined;
  }

  /** The tool of that name in the latest listing; undefined when unknown or none is known. */
  named(name: string): Tool | undefined {
    return this.known?.get(name);
  }

  /** The list changed: the definitions are stale. */
  forget(): void {
    this.known = undefined;
  }

  /**
   * Takes a full listing and returns the tools to show. Transports → Streamable HTTP → Custom
   * Headers: a tool whose `x-mcp-header` annotations break the rules is left out, with a warning
   * naming it and why.
   */
  record(tools: Tool[]): Tool[] {
    const shown = this.checkHeaders ? this.withoutInvalidHeaders(tools) : tools;
    this.known = new Map(shown.map((tool) => [tool.name, tool]));
    return shown;
  }

  /**
   * The `Mcp-Param-*` headers of a call, from the tool's definition when it is known; without
   * one, none. Throws `ProtocolError` for a tool the latest listing left out, and `RangeError`
   * for an integer argument outside the safe range.
   */
  headersFor(name: string, args: Record<string, unknown> | undefined): Record<string, string> {
    const tool = this.named(name);
    if (tool) return toolCallHeaders(this.plan(tool), args);
    const reason = this.rejected?.get(name);
    if (reason !== undefined) throw new ProtocolError(`Tool "${name}" was left out of the tool list: ${reason}`);
    return {};
  }

  private withoutInvalidHeaders(tools: Tool[]): Tool[] {
    this.rejected = undefined;
    return tools.filter((tool) => {
      const plan = this.plan(tool);
      if (!('invalid' in plan)) return true;
      (this.rejected ??= new Map()).set(tool.name, plan.invalid);
      this.log.warn({ tool: tool.name, reason: plan.invalid }, 'tool left out: invalid x-mcp-header annotation');
      return false;
    });
  }

  private plan(tool: Tool): ToolHeaderPlan {
    const plans = (this.plans ??= new WeakMap());
    let plan = plans.get(tool);
    if (!plan) plans.set(tool, (plan = planToolHeaders(tool.inputSchema)));
    return plan;
  }
}

/** A tool call's options with its `Mcp-Param-*` headers, or the same options when it has none. */
export function withToolHeaders(options: RequestOptions, headers: Record<string, string>): RequestOptions {
  for (const _ in headers) return withProperty(options, 'headers', { ...options.headers, ...headers });
  return options;
}

/** Whether a modern tool call failed with HeaderMismatch (its `Mcp-Param-*` headers did not match). */
export function isHeaderMismatch(error: unknown): boolean {
  return error instanceof JsonRpcError && error.code === ModernErrorCode.HeaderMismatch;
}
