/** One-shot timers that can all be cancelled at once (the steps of a shutdown). */
export class TimerSet {
  private readonly timers = new Set<NodeJS.Timeout>();

  /** Calls `fn` after `ms`, unless `clear()` comes first. */
  after(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  /** Cancels every timer still pending. */
  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
