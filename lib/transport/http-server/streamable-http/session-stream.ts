import { endJson } from '../../http/http-exchange';
import type { HttpResponseLike, TimerHandle } from '../../http/http-exchange';
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/message';

/**
 * One stream of a session: the answer to a POST that carries requests, or the standalone GET
 * stream, with the HTTP response currently carrying it (none while the client is away).
 */
export interface SessionStream {
  readonly id: string;
  res: HttpResponseLike | undefined;
  /** Keys of the requests of this POST still waiting for their response. */
  readonly pending: Set<string>;
  /**
   * Set in JSON-response mode: the responses collected so far, whether the POST was a batch, and
   * the headers to answer with (written at the end, with the body).
   */
  readonly json?: {
    readonly batch: boolean;
    /** The JSON of each response, joined into the body at the end. */
    readonly responses: string[];
    readonly headers: Record<string, string>;
  };
  /** Set while the answer's content type is not decided yet: the headers to answer with. */
  undecided?: { readonly headers: Record<string, string>; timer?: TimerHandle };
  /** The HTTP headers of the POST, for the handlers of its requests. */
  readonly requestHeaders: IncomingHttpHeaders | undefined;
}

/** What one SSE event of a session carries: a message or a batch. */
export type Payload = JsonRpcMessage | readonly JsonRpcMessage[];

export function isResponse(message: JsonRpcMessage): boolean {
  return !('method' in message);
}

const NO_IDS: ReadonlyArray<RequestId | null> = [];

/** The ids of the responses in a payload (`null` for a response to no request). */
export function responseIds(payload: Payload): ReadonlyArray<RequestId | null> {
  if (!Array.isArray(payload)) {
    const single = payload as JsonRpcMessage;
    return isResponse(single) ? [(single as { id: RequestId | null }).id] : NO_IDS;
  }
  return (payload as readonly JsonRpcMessage[])
    .filter(isResponse)
    .map((message) => (message as { id: RequestId | null }).id);
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
};

/** Answers 200 with the SSE headers (and `headers`), sent at once. */
export function openSse(res: HttpResponseLike, headers: Record<string, string>): void {
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  res.flushHeaders();
}

/** Answers `status` with a JSON-RPC error response without an id. */
export function answerError(
  res: HttpResponseLike,
  status: number,
  headers: Record<string, string>,
  code: number,
  message: string,
): void {
  endJson(res, status, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), headers);
}
