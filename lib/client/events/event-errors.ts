/**
 * The error a server's events message carries (`notifications/events/terminated` or `error` on a
 * push stream, a webhook's `terminated` body), as the client's `follow` gives it in every mode.
 */
import { isRecord } from '../../base/objects';
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';

/** The `JsonRpcError` of `error` as the server sent it; -32603 with `fallback` where it cannot be read. */
export function eventErrorOf(error: unknown, fallback: string): JsonRpcError {
  const sent = isRecord(error) ? error : {};
  const code = typeof sent.code === 'number' ? sent.code : ErrorCode.InternalError;
  return new JsonRpcError(code, typeof sent.message === 'string' ? sent.message : fallback, sent.data);
}
