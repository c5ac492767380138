/**
 * The modern requests (2026-07-28 on) a Streamable HTTP client has in flight, and the error
 * responses the client transport makes up for requests that got no response: one whose stream
 * broke, one whose POST the server refused. Client side only.
 */
import { ErrorCode } from '../../../jsonrpc/errors';
import type { JsonRpcErrorResponse, RequestId } from '../../../jsonrpc/message';
import type { HttpCall } from '../http-requester';

/**
 * `data.streamBroken` of the error a modern request fails with when its response stream ended
 * before its response: streams cannot be resumed in those revisions, so the caller re-issues the
 * request with a new id (spec: Transports → Streamable HTTP).
 */
export const STREAM_BROKEN = 'streamBroken';

/** A modern request in flight: its POST, closed to cancel it (its stream is the cancellation signal). */
export interface ModernCall {
  /** Unset while the POST waits for earlier acknowledgements. */
  made?: HttpCall;
  cancelled: boolean;
}

/** The modern requests in flight, by request key. */
export class ModernCalls {
  private readonly calls = new Map<string, ModernCall>();

  /** Starts following a request; set `made` once its POST goes out. */
  track(key: string): ModernCall {
    const call: ModernCall = { cancelled: false };
    this.calls.set(key, call);
    return call;
  }

  /** Cancels a request by closing its POST; false when no such request is in flight. */
  cancel(key: string): boolean {
    const call = this.calls.get(key);
    if (!call) return false;
    call.cancelled = true;
    call.made?.abort();
    this.calls.delete(key);
    return true;
  }

  /** Stops following a request; returns whether it had been cancelled. */
  forget(key: string): boolean {
    const call = this.calls.get(key);
    this.calls.delete(key);
    return call?.cancelled ?? false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON-RPC error in a refused POST's body, if it holds one. */
function jsonRpcErrorIn(body: string): { code: number; message: string; data?: unknown } | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (typeof parsed.error?.code === 'number' && typeof parsed.error.message === 'string') {
      return { code: parsed.error.code, message: parsed.error.message, data: parsed.error.data };
    }
  } catch {
    // Not JSON: the status says enough.
  }
  return undefined;
}

/** The response a request gets whose response stream ended before its response. */
export function brokenStreamResponse(id: RequestId): JsonRpcErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ErrorCode.ConnectionClosed,
      message: 'The HTTP response stream ended before the response; the request may be re-issued',
      data: { [STREAM_BROKEN]: true },
    },
  };
}

/**
 * The response a request gets whose POST the server refused: the server's JSON-RPC error when
 * the body holds one (its `data` kept), else -32603 naming the status; `data.httpStatus` either way.
 * A 413 says that the message was too large, with the server's limit when it named one.
 */
export function refusalResponse(id: RequestId, status: number, body: string): JsonRpcErrorResponse {
  const error = jsonRpcErrorIn(body);
  const data = isObject(error?.data) ? { ...error.data, httpStatus: status } : { httpStatus: status };
  if (status === 413) return tooLargeResponse(id, error, data);
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: error?.code ?? ErrorCode.InternalError,
      message: `HTTP ${status}${error ? `: ${error.message}` : ''}`,
      data,
    },
  };
}

/**
 * The response a request gets whose POST the server answered with success but not with MCP: a
 * content type that is neither `application/json` nor `text/event-stream` (an HTML page, plain
 * text), or JSON that is not JSON-RPC (`why` says so), which usually means the URL is not the MCP
 * endpoint. Names the URL, the status and the content type; `data` carries `httpStatus` and
 * `contentType`.
 */
export function notMcpResponse(
  id: RequestId,
  url: URL,
  status: number,
  type: string,
  why?: string,
): JsonRpcErrorResponse {
  const media = type.split(';')[0]!.trim();
  const shown = media === '' ? 'no content-type' : `content-type ${media}`;
  const what = why === undefined ? 'not an MCP response (application/json or text/event-stream)' : `but ${why}`;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ErrorCode.InternalError,
      message: `The server at ${url.href} answered ${status} with ${shown}, ${what}: is this the MCP endpoint URL?`,
      data: { httpStatus: status, contentType: type },
    },
  };
}

/** The limit a 413's body names: `data.maxBodyBytes`, else the number in "limit of N bytes". */
function limitOf(error: { message: string } | undefined, data: Record<string, unknown>): number | undefined {
  if (typeof data.maxBodyBytes === 'number') return data.maxBodyBytes;
  const named = error && /limit of (\d+) bytes/.exec(error.message);
  return named ? Number(named[1]) : undefined;
}

/** The response to a request whose POST the server refused 413: the message was too large. */
function tooLargeResponse(
  id: RequestId,
  error: { code: number; message: string } | undefined,
  data: Record<string, unknown>,
): JsonRpcErrorResponse {
  const limit = limitOf(error, data);
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: error?.code ?? ErrorCode.InvalidRequest,
      message:
        'HTTP 413 Payload Too Large: the message was too large for the server' +
        (limit === undefined ? '' : ` (its limit is ${limit} bytes)`) +
        '; send a smaller one',
      data: limit === undefined ? data : { ...data, maxBodyBytes: limit },
    },
  };
}
