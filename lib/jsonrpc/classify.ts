import type {
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
  RequestId,
} from './message';
import { JSONRPC_VERSION } from './message';

/** What a parsed JSON value is, as JSON-RPC sees it. */
export type Classified =
  | { readonly kind: 'request'; readonly message: JsonRpcRequest }
  | { readonly kind: 'notification'; readonly message: JsonRpcNotification }
  | { readonly kind: 'result'; readonly message: JsonRpcResultResponse }
  | { readonly kind: 'error'; readonly message: JsonRpcErrorResponse }
  | { readonly kind: 'batch'; readonly messages: readonly unknown[] }
  | { readonly kind: 'invalid'; readonly reason: string; readonly id: RequestId | null };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/**
 * Sorts a parsed JSON value into request, notification, result, error, batch or invalid.
 * Hand-written checks rather than a schema parse: this runs for every inbound message.
 * An invalid envelope keeps the id when one can be read, so the -32600 answer can carry it.
 */
export function classify(value: unknown): Classified {
  if (Array.isArray(value)) return { kind: 'batch', messages: value };
  if (!isRecord(value)) return { kind: 'invalid', reason: 'a JSON-RPC message must be an object', id: null };
  const id = isRequestId(value.id) ? value.id : null;
  if (value.jsonrpc !== JSONRPC_VERSION) return { kind: 'invalid', reason: 'jsonrpc must be "2.0"', id };
  const { method } = value;
  if (method !== undefined) {
    if (typeof method !== 'string') return { kind: 'invalid', reason: 'method must be a string', id };
    if (value.params !== undefined && !isRecord(value.params)) {
      return { kind: 'invalid', reason: 'params must be an object', id };
    }
    if (!('id' in value)) return { kind: 'notification', message: value as JsonRpcNotification };
    if (id === null) return { kind: 'invalid', reason: 'id must be a string or an integer', id: null };
    return { kind: 'request', message: value as JsonRpcRequest };
  }
  if ('result' in value) {
    if (id === null) return { kind: 'invalid', reason: 'a response id must be a string or an integer', id: null };
    if (!isRecord(value.result)) return { kind: 'invalid', reason: 'result must be an object', id };
    return { kind: 'result', message: value as JsonRpcResultResponse };
  }
  if ('error' in value) {
    const error = value.error;
    if (!isRecord(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
      return { kind: 'invalid', reason: 'error must have a numeric code and a string message', id };
    }
    if (id === null && value.id !== null)
      return { kind: 'invalid', reason: 'error id must be a string, an integer or null', id };
    return { kind: 'error', message: value as JsonRpcErrorResponse };
  }
  return { kind: 'invalid', reason: 'not a request, notification or response: no method, result or error', id };
}

/** True when the message is a response (result or error). */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResultResponse | JsonRpcErrorResponse {
  return !('method' in message);
}
