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
