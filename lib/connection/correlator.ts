import { JsonRpcError } from '../jsonrpc/errors';
import type { JsonRpcErrorResponse, JsonRpcResultResponse, RequestId } from '../jsonrpc/message';

/** A progress notification's payload, as routed to the request that asked for it. */
export interface ProgressParams {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** A request awaiting its response; the request pipeline implements it. */
export interface PendingRequest {
  readonly method: string;
  /** The result arrived. */
  resolve(result: Record<string, unknown>): void;
  /** The peer answered with an error, the answer was malformed, or the connection closed. */
  reject(error: unknown): void;
  /** A progress notification for this request arrived. */
  progress(params: ProgressParams): void;
}

/**
 * Matches responses to the requests this side sent, by id. One per connection; its map is made
 * when the first request is sent.
 */
export class Correlator {
  private pending: Map<RequestId, PendingRequest> | undefined;

  /** How many requests are waiting. */
  get size(): number {
    return this.pending?.size ?? 0;
  }

  /** Awaits the response to request `id`; a later registration of the same id replaces this one. */
  register(id: RequestId, pending: PendingRequest): void {
    (this.pending ??= new Map()).set(id, pending);
  }

  /** Stops awaiting `id` (the caller gave up); a late response is then dropped by `settle`. */
  forget(id: RequestId, pending: PendingRequest): void {
    if (this.pending?.get(id) === pending) this.pending.delete(id);
  }

  /** Delivers a response; false when no request with that id is waiting. */
  settle(response: JsonRpcResultResponse | JsonRpcErrorResponse): boolean {
    const id = response.id;
    if (id === null) return false;
    const entry = this.pending?.get(id);
    if (!entry) return false;
    this.pending!.delete(id);
    if ('error' in response) entry.reject(JsonRpcError.fromObject((response as JsonRpcErrorResponse).error));
    else entry.resolve((response as JsonRpcResultResponse).result);
    return true;
  }

  /** Routes a progress notification to the request whose token it carries (tokens are request ids); false if none. */
  progress(token: RequestId, params: ProgressParams): boolean {
    const entry = this.pending?.get(token);
    if (!entry) return false;
    entry.progress(params);
    return true;
  }

  /** Fails the waiting request `id` (e.g. its response was malformed); false if none is waiting. */
  fail(id: RequestId, makeError: (method: string) => Error): boolean {
    const entry = this.pending?.get(id);
    if (!entry) return false;
    this.pending!.delete(id);
    entry.reject(makeError(entry.method));
    return true;
  }

  /** Fails every waiting request, e.g. when the connection closes. */
  failAll(makeError: (method: string, id: RequestId) => Error): void {
    const pending = this.pending;
    if (!pending) return;
    const entries = [...pending];
    pending.clear();
    for (const [id, entry] of entries) entry.reject(makeError(entry.method, id));
  }
}
