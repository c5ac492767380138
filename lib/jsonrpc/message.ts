import { z } from 'zod';

/** The JSON-RPC version string every message carries. */
export const JSONRPC_VERSION = '2.0';

/** A request id: a string or an integer (MCP forbids null). */
export const RequestIdSchema = z.union([z.string(), z.number().int()]);
/** A request id: a string or an integer (MCP forbids null). */
export type RequestId = string | number;

// The messages are types only: the transports and the connection read them by hand (see
// classify.ts), and no schema of them is built at load.

/** A request: expects a response carrying the same id. Members beyond these are kept as they came. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown> | undefined;
  [member: string]: unknown;
}

/** A notification: a request without an id, never answered. */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown> | undefined;
  [member: string]: unknown;
}

/** A successful response. */
export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
  [member: string]: unknown;
}

/** The `error` of a JSON-RPC error response: its `code` (an integer), `message` and optional `data`. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
  [member: string]: unknown;
}

/** An error response; the id is null only when the request's id could not be read. */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
  [member: string]: unknown;
}

/** Any response: a result or an error. */
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;

/** Any single JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Builds a request envelope. */
export function request(id: RequestId, method: string, params?: Record<string, unknown>): JsonRpcRequest {
  return params === undefined
    ? { jsonrpc: JSONRPC_VERSION, id, method }
    : { jsonrpc: JSONRPC_VERSION, id, method, params };
}

/** Builds a notification envelope. */
export function notification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined ? { jsonrpc: JSONRPC_VERSION, method } : { jsonrpc: JSONRPC_VERSION, method, params };
}

/** Builds a result response. */
export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: JSONRPC_VERSION, id, result };
}

/** Builds an error response. */
export function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return { jsonrpc: JSONRPC_VERSION, id, error };
}
