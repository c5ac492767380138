/**
 * The calls of one channel in flight, by request id, for the call tracker: the first is kept in
 * two fields and a map is made only when a second one waits, so that a channel making one call at
 * a time (the common case) touches no map per call.
 */
export class ChannelCalls<T> {
  private oneId: unknown = undefined;
  private one: T | undefined = undefined;
  private more: Map<unknown, T> | undefined;

  /** How many calls wait. */
  get size(): number {
    return (this.one === undefined ? 0 : 1) + (this.more?.size ?? 0);
  }

  has(id: unknown): boolean {
    return (this.one !== undefined && this.oneId === id) || (this.more?.has(id) ?? false);
  }

  /** Adds `call` under `id`, which no call waits under (see `has`). */
  put(id: unknown, call: T): void {
    if (this.one === undefined) {
      this.oneId = id;
      this.one = call;
    } else (this.more ??= new Map()).set(id, call);
  }

  /** Removes and answers the call waiting under `id`, if any. */
  take(id: unknown): T | undefined {
    if (this.one !== undefined && this.oneId === id) {
      const call = this.one;
      this.one = undefined;
      this.oneId = undefined;
      return call;
    }
    const call = this.more?.get(id);
    if (call !== undefined) this.more!.delete(id);
    return call;
  }

  /** Every call waiting. */
  values(): T[] {
    const all = this.more ? [...this.more.values()] : [];
    if (this.one !== undefined) all.unshift(this.one);
    return all;
  }
}
