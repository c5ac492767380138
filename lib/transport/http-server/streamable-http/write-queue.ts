import type pino from 'pino';
import { isRxmcpError, RxmcpErrorCode } from '../../../jsonrpc/errors';

/**
 * A write this process may no longer make (a cluster fenced it: another process owns the session
 * now) is expected, not a fault: a warning; anything else is an error.
 */
function logFailure(log: pino.Logger, error: unknown, what: string): void {
  if (isRxmcpError(error, RxmcpErrorCode.SessionTakenOver)) log.warn({ err: error }, `${what}: the session moved`);
  else log.error({ err: error }, what);
}

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
        logFailure(this.log, error, 'stream write failed');
        return undefined;
      }
    };
    if (this.tail) {
      this.tail = this.tail.then(run).catch((error: unknown) => logFailure(this.log, error, 'stream write failed'));
      return;
    }
    const result = run();
    if (result instanceof Promise) {
      const mine: Promise<void> = result
        .catch((error: unknown) => logFailure(this.log, error, 'event store failed'))
        .finally(() => {
          if (this.tail === mine) this.tail = undefined;
        });
      this.tail = mine;
    }
  }
}
