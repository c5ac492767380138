import { z } from 'zod';

/** The JSON-RPC version string every message carries. */
export const JSONRPC_VERSION = '2.0';

/** A request id: a string or an integer (MCP forbids null). */
export const RequestIdSchema = z.union([z.string(), z.number().int()]);
/** A request id: a string or an integer (MCP forbids null). */
export type RequestId = z.infer<typeof RequestIdSchema>;

const ParamsSchema = z.record(z.string(), z.unknown());

/** A request: expects a response carrying the same id. */
export const JsonRpcRequestSchema = z.looseObject({
  jsonrpc: z.literal(JSONRPC_VERSION),
  id: RequestIdSchema,
  method: z.string(),
  params: ParamsSchema.optional(),
});
/** A request: expects a response carrying the same id. */
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

/** A notification: a request without an id, never answered. */
export const JsonRpcNotificationSchema = z.looseObject({
  jsonrpc: z.literal(JSONRPC_VERSION),
  method: z.string(),
  params: ParamsSchema.optional(),
});
/** A notification: a request without an id, never answered. */
export type JsonRpcNotification = z.infer<typeof JsonRpcNotificationSchema>;

/** A successful response. */
export const JsonRpcResultResponseSchema = z.looseObject({
  jsonrpc: z.literal(JSONRPC_VERSION),
  id: RequestIdSchema,
  result: z.record(z.string(), z.unknown()),
});
/** A successful response. */
export type JsonRpcResultResponse = z.infer<typeof JsonRpcResultResponseSchema>;

/** The error object of an error response. */
export const JsonRpcErrorObjectSchema = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
/** The `error` of a JSON-RPC error response: its `code`, `message` and optional `data`. */
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>;

/** An error response; the id is null only when the request's id could not be read. */
export const JsonRpcErrorResponseSchema = z.looseObject({
  jsonrpc: z.literal(JSONRPC_VERSION),
  id: z.union([RequestIdSchema, z.null()]),
  error: JsonRpcErrorObjectSchema,
});
/** An error response; the id is null only when the request's id could not be read. */
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponseSchema>;

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
