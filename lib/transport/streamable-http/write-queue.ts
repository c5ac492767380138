import type pino from 'pino';

/**
 * Runs a session's writes one after another, so that an asynchronous event store cannot reorder
 * them: a job runs at once while nothing is queued, otherwise after the jobs before it. A job that
 * throws or rejects is logged; the queue goes on.
 */
export class WriteQueue {
  private tail: Promise<void> | undefined;

  constructor(private readonly log: pino.Logger) {}

  push(job: () => void | Promise<void>): void {
    const run = (): void | Promise<void> => {
      try {
        return job();
      } catch (error) {
        this.log.error({ err: error }, 'stream write failed');
        return undefined;
      }
    };
    if (this.tail) {
      this.tail = this.tail.then(run).catch((error: unknown) => this.log.error({ err: error }, 'stream write failed'));
      return;
    }
    const result = run();
    if (result instanceof Promise) {
      const mine: Promise<void> = result
        .catch((error: unknown) => this.log.error({ err: error }, 'event store failed'))
        .finally(() => {
          if (this.tail === mine) this.tail = undefined;
        });
      this.tail = mine;
    }
  }
}
