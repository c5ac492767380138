import { Observable } from 'rxjs';
import type { Subscriber } from 'rxjs';
import { JsonRpcError } from '../jsonrpc/errors';
import type { JsonRpcErrorResponse, JsonRpcResultResponse, RequestId } from '../jsonrpc/message';

/** A progress notification's payload, as routed to the request that asked for it. */
export interface ProgressParams {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

interface Pending {
  readonly method: string;
  readonly subscriber: Subscriber<Record<string, unknown>>;
  readonly onProgress?: (progress: ProgressParams) => void;
  readonly accept?: (result: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * Matches responses to the requests this side sent, by id. One per connection; its map is made
 * when the first request is sent.
 */
export class Correlator {
  private pending: Map<RequestId, Pending> | undefined;

  /** How many requests are waiting. */
  get size(): number {
    return this.pending?.size ?? 0;
  }

  /**
   * A cold Observable of the response to request `id`: registers the id on subscribe, emits the
   * result and completes, or errors with the peer's `JsonRpcError`. Unsubscribing forgets the id,
   * so a late response is dropped (and reported by `settle` returning false). `accept` checks (and
   * may replace) the result before it is emitted; what it throws becomes the error.
   */
  expect(
    id: RequestId,
    method: string,
    onProgress?: (progress: ProgressParams) => void,
    accept?: (result: Record<string, unknown>) => Record<string, unknown>,
  ): Observable<Record<string, unknown>> {
    return new Observable<Record<string, unknown>>((subscriber) => {
      const pending = (this.pending ??= new Map());
      pending.set(id, { method, subscriber, onProgress, accept });
      return () => {
        if (pending.get(id)?.subscriber === subscriber) pending.delete(id);
      };
    });
  }

  /** Delivers a response; false when no request with that id is waiting. */
  settle(response: JsonRpcResultResponse | JsonRpcErrorResponse): boolean {
    const id = response.id;
    if (id === null) return false;
    const entry = this.pending?.get(id);
    if (!entry) return false;
    this.pending!.delete(id);
    if ('error' in response) entry.subscriber.error(JsonRpcError.fromObject((response as JsonRpcErrorResponse).error));
    else {
      const raw = (response as JsonRpcResultResponse).result;
      let result: Record<string, unknown>;
      try {
        result = entry.accept ? entry.accept(raw) : raw;
      } catch (error) {
        entry.subscriber.error(error);
        return true;
      }
      entry.subscriber.next(result);
      entry.subscriber.complete();
    }
    return true;
  }

  /** Routes a progress notification to the request whose token it carries (tokens are request ids); false if none. */
  progress(token: RequestId, params: ProgressParams): boolean {
    const entry = this.pending?.get(token);
    if (!entry?.onProgress) return false;
    entry.onProgress(params);
    return true;
  }

  /** Fails the waiting request `id` (e.g. its response was malformed); false if none is waiting. */
  fail(id: RequestId, makeError: (method: string) => Error): boolean {
    const entry = this.pending?.get(id);
    if (!entry) return false;
    this.pending!.delete(id);
    entry.subscriber.error(makeError(entry.method));
    return true;
  }

  /** Fails every waiting request, e.g. when the connection closes. */
  failAll(makeError: (method: string, id: RequestId) => Error): void {
    const pending = this.pending;
    if (!pending) return;
    const entries = [...pending];
    pending.clear();
    for (const [id, entry] of entries) entry.subscriber.error(makeError(entry.method, id));
  }
}
