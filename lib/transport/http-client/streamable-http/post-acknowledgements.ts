/**
 * The order of a client's POSTs: a POST waits until the notification and response POSTs before it
 * were acknowledged, so that `notifications/initialized` reaches the server before later requests.
 */
export class PostAcknowledgements {
  /** Settles when the latest notification/response POST counted is acknowledged. */
  private acknowledged: Promise<void> = Promise.resolve();
  private unacknowledged = 0;

  /** What a POST made now waits for; `undefined` when no acknowledgement is awaited (it goes out at once). */
  awaited(): Promise<void> | undefined {
    return this.unacknowledged > 0 ? this.acknowledged : undefined;
  }

  /** Counts a notification/response POST until the returned function is called (later calls do nothing). */
  count(): () => void {
    let done: () => void = () => undefined;
    this.unacknowledged++;
    this.acknowledged = new Promise<void>((resolve) => {
      let once = false;
      done = () => {
        if (once) return;
        once = true;
        this.unacknowledged--;
        resolve();
      };
    });
    return done;
  }
}
