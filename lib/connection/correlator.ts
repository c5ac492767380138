import { JsonRpcError } from '../jsonrpc/errors';
import type { JsonRpcErrorResponse, JsonRpcResultResponse, RequestId } from '../jsonrpc/message';
import type { ProgressEvent } from '../operators/progress';
import { IdTable } from '../jsonrpc/id-table';

/** A partial result of a request (SEP-2998 `notifications/tools/partial_result`), as checked on arrival. */
export interface PartialResultParams {
  readonly seq: number;
  readonly content?: readonly Record<string, unknown>[];
  readonly structuredContent?: Record<string, unknown>;
  readonly final?: boolean;
  readonly taskId?: string;
}

/** A request awaiting its response; the request pipeline implements it. */
export interface PendingRequest {
  readonly method: string;
  /** The result arrived. */
  resolve(result: Record<string, unknown>): void;
  /** The peer answered with an error, the answer was malformed, or the connection closed. */
  reject(error: unknown): void;
  /** A progress notification for this request arrived. */
  progress(params: ProgressEvent): void;
  /** A partial result for this request arrived. */
  partial(params: PartialResultParams): void;
}

/**
 * Matches responses to the requests this side sent, by id. One per connection. The oldest waiting
 * request sits in a slot of its own and only the others in an `IdTable`, made when a second
 * request waits: a connection that makes one call at a time (and an idle one) holds no table.
 */
export class Correlator {
  private slotId: RequestId | undefined = undefined;
  private slot: PendingRequest | undefined = undefined;
  private more: IdTable<PendingRequest> | undefined = undefined;

  /** How many requests are waiting. */
  get size(): number {
    return (this.slot === undefined ? 0 : 1) + (this.more?.size ?? 0);
  }

  /** Awaits the response to request `id`; a later registration of the same id replaces this one. */
  register(id: RequestId, pending: PendingRequest): void {
    if (this.slot !== undefined && this.slotId === id) this.slot = pending;
    // The slot stays the oldest: a request waits in it only when no other does.
    else if (this.slot === undefined && (this.more === undefined || this.more.size === 0)) {
      this.slotId = id;
      this.slot = pending;
    } else (this.more ??= new IdTable()).set(id, pending);
  }

  /** Stops awaiting `id` (the caller gave up); a late response is then dropped by `settle`. */
  forget(id: RequestId, pending: PendingRequest): void {
    if (this.slot === pending && this.slotId === id) this.slot = this.slotId = undefined;
    else this.more?.deleteIf(id, pending);
  }

  /** Delivers a response; false when no request with that id is waiting. */
  settle(response: JsonRpcResultResponse | JsonRpcErrorResponse): boolean {
    const id = response.id;
    if (id === null) return false;
    const entry = this.take(id);
    if (!entry) return false;
    if ('error' in response) entry.reject(JsonRpcError.fromObject((response as JsonRpcErrorResponse).error));
    else entry.resolve((response as JsonRpcResultResponse).result);
    return true;
  }

  /** Routes a progress notification to the request whose token it carries (tokens are request ids); false if none. */
  progress(token: RequestId, params: ProgressEvent): boolean {
    const entry = this.get(token);
    if (!entry) return false;
    entry.progress(params);
    return true;
  }

  /** Routes a partial result to the request whose token it carries (tokens are request ids); false if none. */
  partial(token: RequestId, params: PartialResultParams): boolean {
    const entry = this.get(token);
    if (!entry) return false;
    entry.partial(params);
    return true;
  }

  /** Fails the waiting request `id` (e.g. its response was malformed); false if none is waiting. */
  fail(id: RequestId, makeError: (method: string) => Error): boolean {
    const entry = this.take(id);
    if (!entry) return false;
    entry.reject(makeError(entry.method));
    return true;
  }

  /** Fails every waiting request, oldest first, e.g. when the connection closes. */
  failAll(makeError: (method: string, id: RequestId) => Error): void {
    const entries: [RequestId, PendingRequest][] = this.slot === undefined ? [] : [[this.slotId!, this.slot]];
    if (this.more !== undefined) entries.push(...this.more.drain());
    this.slot = this.slotId = undefined;
    for (const [id, entry] of entries) entry.reject(makeError(entry.method, id));
  }

  private get(id: RequestId): PendingRequest | undefined {
    if (this.slot !== undefined && this.slotId === id) return this.slot;
    return this.more?.get(id);
  }

  /** Stops awaiting `id`, answering what awaited it. */
  private take(id: RequestId): PendingRequest | undefined {
    if (this.slot === undefined || this.slotId !== id) return this.more?.take(id);
    const entry = this.slot;
    this.slot = this.slotId = undefined;
    return entry;
  }
}
