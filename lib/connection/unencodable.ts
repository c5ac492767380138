/**
 * Responses that JSON cannot write. A transport throws a `MessageEncodingError` from `send` for
 * such a message, having sent nothing (see `encodeMessage`); a response is then answered with an
 * error instead, so that the request it answers does not wait for its timeout. A request that
 * cannot be sent fails alone (request-pipeline.ts), and a notification's sender gets the error.
 */
import { ErrorCode, MessageEncodingError } from '../jsonrpc/errors';
import { errorResponse } from '../jsonrpc/message';
import type { JsonRpcErrorResponse, JsonRpcMessage, JsonRpcResponse } from '../jsonrpc/message';
import type { SendOptions } from '../transport/transport';
import { encodeMessage } from '../transport/framing/encode';

/** Where a response goes: a connection. */
interface Sender {
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: SendOptions): void;
}

/**
 * What to send in place of `response`, which `error` (thrown by the transport) says JSON cannot
 * write: a result becomes -32603 saying why; an error keeps its code and message, without its
 * `data`. Any other error is thrown again.
 */
export function unencodableAnswer(response: JsonRpcResponse, error: unknown): JsonRpcResponse {
  if (!(error instanceof MessageEncodingError)) throw error;
  if ('error' in response) {
    const { code, message } = (response as JsonRpcErrorResponse).error;
    return errorResponse(response.id, { code, message });
  }
  return errorResponse(response.id, {
    code: ErrorCode.InternalError,
    message: `The result could not be sent: ${error.message}`,
  });
}

/** Sends `response` on `conn`, or what stands in for it when JSON cannot write it. */
export function sendResponse(conn: Sender, response: JsonRpcResponse): void {
  const options = response.id === null ? undefined : { relatedRequestId: response.id };
  try {
    conn.send(response, options);
  } catch (error) {
    conn.send(unencodableAnswer(response, error), options);
  }
}

/** Sends a batch's responses on `conn`; after a refusal, each item JSON cannot write is replaced. */
export function sendResponses(conn: Sender, responses: readonly JsonRpcResponse[]): void {
  try {
    conn.send(responses);
  } catch (error) {
    conn.send(responses.map((response) => (encodable(response) ? response : unencodableAnswer(response, error))));
  }
}

/** Whether JSON can write `value` (checked on a failure's path only: it writes it). */
export function encodable(value: unknown): boolean {
  try {
    encodeMessage(value);
    return true;
  } catch {
    return false;
  }
}
