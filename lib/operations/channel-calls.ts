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

  get(id: unknown): T | undefined {
    if (this.one !== undefined && this.oneId === id) return this.one;
    return this.more?.get(id);
  }

  set(id: unknown, call: T): void {
    // An id already in the map stays there: put in the freed fields too, it would be counted twice.
    if (this.more?.has(id)) this.more.set(id, call);
    else if (this.one === undefined || this.oneId === id) {
      this.oneId = id;
      this.one = call;
    } else (this.more ??= new Map()).set(id, call);
  }

  delete(id: unknown): void {
    if (this.one !== undefined && this.oneId === id) {
      this.one = undefined;
      this.oneId = undefined;
    } else this.more?.delete(id);
  }

  /** Every call waiting. */
  values(): T[] {
    const all = this.more ? [...this.more.values()] : [];
    if (this.one !== undefined) all.unshift(this.one);
    return all;
  }
}
