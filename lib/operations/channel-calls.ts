import { IdTable } from '../jsonrpc/id-table';
import type { RequestId } from '../jsonrpc/message';

/**
 * The calls of one channel in flight, by request id, for the call tracker: the first is kept in
 * two fields and a table is made only when a second one waits, so that a channel making one call
 * at a time (the common case) touches no table per call. The table is the connection's own kind
 * (`IdTable`): consecutive integer ids, as clients send them, each sit in their home slot.
 */
export class ChannelCalls<T> {
  private oneId: RequestId | undefined = undefined;
  private one: T | undefined = undefined;
  private more: IdTable<T> | undefined;

  /** How many calls wait. */
  get size(): number {
    return (this.one === undefined ? 0 : 1) + (this.more?.size ?? 0);
  }

  has(id: RequestId): boolean {
    return (this.one !== undefined && this.oneId === id) || (this.more !== undefined && this.more.has(id));
  }

  /** Adds `call` under `id` unless a call waits under `id` already: false then, and nothing changed. */
  add(id: RequestId, call: T): boolean {
    if (this.one === undefined && (this.more === undefined || this.more.size === 0)) {
      this.oneId = id;
      this.one = call;
      return true;
    }
    if (this.one !== undefined && this.oneId === id) return false;
    return (this.more ??= new IdTable()).add(id, call);
  }

  /** Removes and answers the call waiting under `id`, if any. */
  take(id: RequestId): T | undefined {
    if (this.one !== undefined && this.oneId === id) {
      const call = this.one;
      this.one = this.oneId = undefined;
      return call;
    }
    return this.more?.take(id);
  }

  /** Takes every call waiting out (the channel closed). */
  drain(): T[] {
    const all = this.more ? this.more.drain().map(([, call]) => call) : [];
    if (this.one !== undefined) all.unshift(this.one);
    this.one = this.oneId = undefined;
    return all;
  }
}
