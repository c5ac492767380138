/**
 * The JSON-RPC envelopes as each MCP revision's schema defines them, and the generic request,
 * notification, result and pagination shapes every method builds on.
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import {
  anyOf,
  choose,
  chooseAsOlder,
  JsonRpcVersionSchema,
  member,
  MetaSchema,
  perRevision,
  RequestMetaSchema,
  requiredFrom,
  sinceRequired,
  until,
  V2025_03_26,
  V2025_11_25,
  V2026_07_28,
} from './build';
import { metaSchemas } from './meta';
import type { Revision } from './revisions';

const absent = z.unknown().optional();

/**
 * The shape of a request definition: from 2025-11-25 on it includes `jsonrpc` and `id`; before,
 * definitions held only `method` and `params` (the envelope was separate), so any value passes there.
 */
export function requestShape<const M extends string, P extends z.ZodType>(revision: Revision, method: M, params: P) {
  return {
    jsonrpc: choose(revision, V2025_11_25, JsonRpcVersionSchema, absent),
    id: choose(revision, V2025_11_25, RequestIdSchema, absent),
    method: z.literal(method),
    params,
  };
}

/** The shape of a notification definition; `jsonrpc` is part of it from 2025-11-25 on. */
export function notificationShape<const M extends string, P extends z.ZodType>(
  revision: Revision,
  method: M,
  params: P,
) {
  return {
    jsonrpc: choose(revision, V2025_11_25, JsonRpcVersionSchema, absent),
    method: z.literal(method),
    params,
  };
}

/**
 * The shape of a request a server sends (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`): a JSON-RPC request through 2025-11-25; from 2026-07-28 an input request that
 * travels inside an `InputRequiredResult`, with no `jsonrpc` or `id` of its own.
 */
export function serverRequestShape<const M extends string, P extends z.ZodType>(
  revision: Revision,
  method: M,
  params: P,
) {
  const { jsonrpc, id } = requestShape(revision, method, params);
  return {
    jsonrpc: until(revision, V2025_11_25, jsonrpc),
    id: until(revision, V2025_11_25, id),
    method: z.literal(method),
    params,
  };
}

/** The params every request and notification may carry, the generic result and the error object. */
function baseShapes(revision: Revision) {
  const meta = metaSchemas(revision);
  // 2026-07-28 requires `_meta` on every request: the revision and the client's capabilities.
  const RequestParams = z.looseObject({
    _meta: chooseAsOlder(revision, V2026_07_28, meta.RequestMetaObject, RequestMetaSchema.optional()),
  });
  const NotificationParams = z.looseObject({
    _meta: chooseAsOlder(revision, V2026_07_28, meta.NotificationMetaObject, MetaSchema).optional(),
  });
  // 2025-11-25 left the generic params open; earlier revisions typed `_meta` in them.
  const AnyParams = z.record(z.string(), z.unknown());
  return {
    RequestParams,
    NotificationParams,
    GenericRequestParams: choose(revision, V2025_11_25, AnyParams, RequestParams),
    GenericNotificationParams: choose(revision, V2025_11_25, AnyParams, NotificationParams),
    Result: z.looseObject({
      _meta: chooseAsOlder(revision, V2026_07_28, meta.ResultMetaObject, MetaSchema).optional(),
      resultType: sinceRequired(revision, V2026_07_28, meta.ResultType),
    }),
    ErrorObject: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  };
}

type BaseShapes = ReturnType<typeof baseShapes>;

/** The JSON-RPC envelopes: requests, notifications, responses, batches and any message. */
function jsonRpcEnvelopes(revision: Revision, base: BaseShapes) {
  const { GenericRequestParams, GenericNotificationParams, Result, ErrorObject } = base;
  const JSONRPCRequest = z.looseObject({
    jsonrpc: JsonRpcVersionSchema,
    id: RequestIdSchema,
    method: z.string(),
    params: GenericRequestParams.optional(),
  });
  const JSONRPCNotification = z.looseObject({
    jsonrpc: JsonRpcVersionSchema,
    method: z.string(),
    params: GenericNotificationParams.optional(),
  });
  const JSONRPCResultResponse = z.looseObject({ jsonrpc: JsonRpcVersionSchema, id: RequestIdSchema, result: Result });
  const JSONRPCErrorResponse = z.looseObject({
    jsonrpc: JsonRpcVersionSchema,
    // 2025-11-25 allows leaving out the id of a request that could not be read.
    id: choose(revision, V2025_11_25, RequestIdSchema.optional(), RequestIdSchema),
    error: ErrorObject,
  });
  const JSONRPCBatchRequest = z.array(z.union([JSONRPCRequest, JSONRPCNotification]));
  const JSONRPCBatchResponse = z.array(z.union([JSONRPCResultResponse, JSONRPCErrorResponse]));

  return {
    JSONRPCRequest,
    JSONRPCNotification,
    JSONRPCResultResponse,
    JSONRPCErrorResponse,
    /** Up to 2025-06-18 the error response was called `JSONRPCError`. */
    JSONRPCError: JSONRPCErrorResponse,
    JSONRPCResponse: choose(
      revision,
      V2025_11_25,
      z.union([JSONRPCResultResponse, JSONRPCErrorResponse]),
      JSONRPCResultResponse,
    ),
    JSONRPCBatchRequest,
    JSONRPCBatchResponse,
    JSONRPCMessage: anyOf(
      JSONRPCRequest,
      JSONRPCNotification,
      member(revision, V2025_03_26, JSONRPCBatchRequest, V2025_03_26),
      JSONRPCResultResponse,
      JSONRPCErrorResponse,
      member(revision, V2025_03_26, JSONRPCBatchResponse, V2025_03_26),
    ),
  };
}

/** The paginated list request and result, and the result with caching hints. */
function pagedShapes(revision: Revision, { RequestParams, Result }: BaseShapes) {
  const PaginatedRequestParams = RequestParams.extend({ cursor: z.string().optional() });
  return {
    PaginatedRequestParams,
    PaginatedRequest: z.looseObject({
      jsonrpc: choose(revision, V2025_11_25, JsonRpcVersionSchema, absent),
      id: choose(revision, V2025_11_25, RequestIdSchema, absent),
      method: z.string(),
      // Required from 2026-07-28, whose params carry the required `_meta`.
      params: requiredFrom(revision, V2026_07_28, PaginatedRequestParams.optional()),
    }),
    PaginatedResult: Result.extend({ nextCursor: z.string().optional() }),
    CacheableResult: Result.extend(cacheHintShape(revision)),
  };
}

/** Builds the envelopes and generic shapes of one revision. */
export const envelopeSchemas = perRevision((revision) => {
  const base = baseShapes(revision);
  const { RequestParams, NotificationParams, GenericRequestParams, GenericNotificationParams, Result } = base;
  return {
    RequestParams,
    NotificationParams,
    Request: z.looseObject({ method: z.string(), params: GenericRequestParams.optional() }),
    Notification: z.looseObject({ method: z.string(), params: GenericNotificationParams.optional() }),
    Result,
    EmptyResult: Result,
    Error: base.ErrorObject,
    ...jsonRpcEnvelopes(revision, base),
    ...pagedShapes(revision, base),
  };
});

/**
 * The caching hints of a `CacheableResult` (2026-07-28: discovery, the lists and `resources/read`):
 * how long the result stays fresh and who may share it. Required from 2026-07-28.
 */
export function cacheHintShape(revision: Revision) {
  return {
    ttlMs: sinceRequired(revision, V2026_07_28, z.number().int().min(0)),
    cacheScope: sinceRequired(revision, V2026_07_28, z.enum(['private', 'public'])),
  };
}

/** `params` of a list request: optional through 2025-11-25, required from 2026-07-28 (for `_meta`). */
export function listRequestParams(revision: Revision) {
  return requiredFrom(revision, V2026_07_28, envelopeSchemas(revision).PaginatedRequestParams.optional());
}

/**
 * The base of the params of a request a server sends: `RequestParams` through 2025-11-25; from
 * 2026-07-28 an input request's params declare no `_meta` of their own.
 */
export function serverRequestParams(revision: Revision) {
  return chooseAsOlder(revision, V2026_07_28, z.looseObject({}), envelopeSchemas(revision).RequestParams);
}

/**
 * The base of a client's answer to a server's request: `Result` through 2025-11-25; from
 * 2026-07-28 an input response, which is no JSON-RPC result and has no `resultType`. `withMeta`
 * declares `_meta` as an object there, as `CreateMessageResult` does.
 */
export function clientResultBase(revision: Revision, withMeta = false) {
  const plain = z.looseObject(withMeta ? { _meta: MetaSchema.optional() } : {});
  return chooseAsOlder(revision, V2026_07_28, plain, envelopeSchemas(revision).Result);
}

/** A successful response carrying one kind of result (2026-07-28 names them `...ResultResponse`). */
export function resultResponse<R extends z.ZodType>(result: R) {
  return z.looseObject({ jsonrpc: JsonRpcVersionSchema, id: RequestIdSchema, result });
}

/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof envelopeSchemas>;

/** Params every request may carry: `_meta` with an optional progress token. */
export type RequestParams = z.infer<Schemas['RequestParams']>;

/** Params every notification may carry: `_meta`. */
export type NotificationParams = z.infer<Schemas['NotificationParams']>;

/** Any request, before its method is known. */
export type Request = z.infer<Schemas['Request']>;

/** Any notification, before its method is known. */
export type Notification = z.infer<Schemas['Notification']>;

/** Any result: an object with optional `_meta`, open to every other key. */
export type Result = z.infer<Schemas['Result']>;

/** A result that says only that the request succeeded. */
export type EmptyResult = z.infer<Schemas['EmptyResult']>;

/** The error object of a JSON-RPC error response (the `Error` definition; renamed to keep the global). */
export type ErrorObject = z.infer<Schemas['Error']>;

/** A JSON-RPC request envelope with any method. */
export type JSONRPCRequest = z.infer<Schemas['JSONRPCRequest']>;

/** A JSON-RPC notification envelope with any method. */
export type JSONRPCNotification = z.infer<Schemas['JSONRPCNotification']>;

/** A successful JSON-RPC response. */
export type JSONRPCResultResponse = z.infer<Schemas['JSONRPCResultResponse']>;

/** A JSON-RPC error response (`id` may be missing when the request's id could not be read). */
export type JSONRPCErrorResponse = z.infer<Schemas['JSONRPCErrorResponse']>;

/** A JSON-RPC response: a result or an error. */
export type JSONRPCResponse = z.infer<Schemas['JSONRPCResponse']>;

/** Any single JSON-RPC message (batches only in 2025-03-26, see `schemasFor`). */
export type JSONRPCMessage = z.infer<Schemas['JSONRPCMessage']>;

/** Params of a paginated list request: an optional cursor. */
export type PaginatedRequestParams = z.infer<Schemas['PaginatedRequestParams']>;

/** Any paginated list request. */
export type PaginatedRequest = z.infer<Schemas['PaginatedRequest']>;

/** A page of a list result: `nextCursor` is present when more pages follow. */
export type PaginatedResult = z.infer<Schemas['PaginatedResult']>;

/** A result with caching hints, `ttlMs` and `cacheScope` (2026-07-28 on). */
export const CacheableResultSchema = z.lazy(() => envelopeSchemas(V2026_07_28).CacheableResult);
export type CacheableResult = z.infer<typeof CacheableResultSchema>;
