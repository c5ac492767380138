/**
 * Partial tool results on the wire (SEP-2998, as drafted in 2026): the notification that carries
 * one, and the check of one that arrives. The server side (what a handler emits, who asked) is in
 * lib/server/partial-results.ts; the client side is `RequestOptions.onPartialResult`.
 */
import type { RequestId } from '../jsonrpc/message';
import type { PartialResultParams } from './correlator';
import type { PartialResult } from './handler-events';
import { declaredExtensions } from '../schema/extensions';

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

/** Whether a client's capabilities declare partial results: the extension, or the SEP's bare `partialResults`. */
export function clientDeclaresPartialResults(clientCapabilities: unknown): boolean {
  const capabilities = clientCapabilities as Record<string, unknown> | undefined;
  return (
    capabilities?.partialResults !== undefined ||
    declaredExtensions(capabilities)[PARTIAL_RESULTS_EXTENSION] !== undefined
  );
}

/**
 * The `partialResultToken` of a request's `_meta`, when the client's capabilities declare partial
 * results (the extension, or the SEP's bare `partialResults` capability); else `undefined`.
 */
export function partialResultToken(
  meta: Record<string, unknown> | undefined,
  clientCapabilities: unknown,
): string | number | undefined {
  const token = meta?.partialResultToken;
  if (typeof token !== 'string' && !Number.isInteger(token)) return undefined;
  return clientDeclaresPartialResults(clientCapabilities) ? (token as string | number) : undefined;
}

/** Whether a server's capabilities declare the partial results extension. */
export function declaresPartialResults(serverCapabilities: Record<string, unknown>): boolean {
  return declaredExtensions(serverCapabilities)[PARTIAL_RESULTS_EXTENSION] !== undefined;
}

/**
 * The params of one `notifications/tools/partial_result`: the call's token, its `seq`, what the
 * piece holds, and, for a call that runs as a task, the task's id.
 */
export function partialResultParams(
  token: string | number,
  seq: number,
  piece: PartialResult,
  taskId?: string,
): Record<string, unknown> {
  const params: Record<string, unknown> = { partialResultToken: token, seq };
  if (piece.content !== undefined) params.content = piece.content;
  if (piece.structuredContent !== undefined) params.structuredContent = piece.structuredContent;
  if (piece.final !== undefined) params.final = piece.final;
  if (taskId !== undefined) params.taskId = taskId;
  return params;
}
