/**
 * How long a process may serve the sessions it owns without asking Redis. Each heartbeat that Redis
 * acknowledged renews the lease until the moment the heartbeat was sent plus its time to live, less
 * a margin: Redis cannot have let the heartbeat expire before then, so no other process can have
 * taken a session over on the grounds that this one was gone. Past it (the process was paused, or
 * cut off from Redis), each request for a session it owns is checked in Redis first. A clock read
 * at the I/O edge: `now` is injectable for tests.
 */
export class OwnershipLease {
  private until = -Infinity;

  constructor(
    /** The heartbeat's time to live in Redis. */
    private readonly ttlMs: number,
    /** Taken off the end of the lease, for the time a request takes between the check and the work. */
    private readonly marginMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A heartbeat sent at `sentAt` (this clock) was written: the lease runs on when it held at
   * `sentAt` (true). False when it had lapsed (the process was paused or cut off: another may have
   * taken sessions over meanwhile): it stays lapsed until the caller has checked its sessions in
   * Redis and calls {@link OwnershipLease.restart}.
   */
  renew(sentAt: number): boolean {
    if (sentAt >= this.until) return false;
    this.until = Math.max(this.until, sentAt + this.ttlMs - this.marginMs);
    return true;
  }

  /** Starts the lease again from a heartbeat sent at `sentAt`, after the sessions were checked. */
  restart(sentAt: number): void {
    this.until = Math.max(this.until, sentAt + this.ttlMs - this.marginMs);
  }

  /** Whether the sessions this process owns are certainly still its own. */
  get valid(): boolean {
    return this.now() < this.until;
  }
}
