import type { ToolResult } from './tool-registry';

/**
 * A tool result holding one text block: the most common answer, typed so that it fits a handler's
 * Observable without a cast.
 * @example
 * handler: () => interval(100).pipe(take(3), map((i) => progress(i + 1, 3)), endWith(textResult('done')))
 */
export function textResult(text: string, options: { readonly isError?: boolean } = {}): ToolResult {
  const result: ToolResult = { content: [{ type: 'text', text }] };
  return options.isError ? { ...result, isError: true } : result;
}

/** The text of a result's first text block, if it has one (a failed task's status message). */
export function firstText(result: Record<string, unknown>): string | undefined {
  const content = result.content as readonly { type?: unknown; text?: unknown }[] | undefined;
  const text = content?.find((block) => block.type === 'text')?.text;
  return typeof text === 'string' ? text : undefined;
}
