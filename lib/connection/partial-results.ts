/**
 * Partial tool results on the wire (SEP-2998, as drafted in 2026): the notification that carries
 * one, and the check of one that arrives. The server side (what a handler emits, who asked) is in
 * lib/server/partial-results.ts; the client side is `RequestOptions.onPartialResult`.
 */
import type { RequestId } from '../jsonrpc/message';
import type { PartialResultParams } from './correlator';

/**
 * The extension identifier rxmcp negotiates partial results under. The SEP has a client declare a
 * top-level `partialResults` capability instead; a server here takes either.
 */
export const PARTIAL_RESULTS_EXTENSION = 'io.modelcontextprotocol/partial-results';

/** The notification that carries a partial result. */
export const PARTIAL_RESULT_METHOD = 'notifications/tools/partial_result';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A partial result's params when well formed (a string or integer token, an integer `seq` from 0,
 * `content` an array of content blocks, `structuredContent` an object, `final` a boolean,
 * `taskId` a string, each when present), else `undefined`.
 */
export function readPartialResult(
  params: Record<string, unknown>,
): { token: RequestId; params: PartialResultParams } | undefined {
  const { partialResultToken: token, seq, content, structuredContent, final, taskId } = params;
  if (typeof token !== 'string' && !Number.isInteger(token)) return undefined;
  if (!Number.isInteger(seq) || (seq as number) < 0) return undefined;
  if (content !== undefined && !(Array.isArray(content) && content.every(isObject))) return undefined;
  if (structuredContent !== undefined && !isObject(structuredContent)) return undefined;
  if (final !== undefined && typeof final !== 'boolean') return undefined;
  if (taskId !== undefined && typeof taskId !== 'string') return undefined;
  return {
    token: token as RequestId,
    params: {
      seq: seq as number,
      ...(content === undefined ? {} : { content: content as Record<string, unknown>[] }),
      ...(structuredContent === undefined ? {} : { structuredContent: structuredContent as Record<string, unknown> }),
      ...(final === undefined ? {} : { final: final as boolean }),
      ...(taskId === undefined ? {} : { taskId: taskId as string }),
    },
  };
}
