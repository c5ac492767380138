import type { Logger } from 'pino';
import type { Observable, Subscription } from '../rx/rxjs';
import type { LoggingLevel } from '../schema/logging';

/** What restoring the log level needs from the client. */
export interface LevelRestoreOptions {
  /** The level the client set last. */
  level(): LoggingLevel | undefined;
  send(params: { level: LoggingLevel }): Observable<unknown>;
  readonly log: Logger;
}

/**
 * On each new session (`reconnected$`: the server forgot the old one), sends `logging/setLevel`
 * with the level the lost session had. Hot: runs until `reconnected$` completes.
 */
export function restoreLevel(reconnected$: Observable<unknown>, options: LevelRestoreOptions): Subscription {
  return reconnected$.subscribe(() => {
    const level = options.level();
    if (level === undefined) return;
    options.send({ level }).subscribe({
      error: (error: unknown) =>
        options.log.warn({ err: error, level }, 'setting the log level on the new session failed'),
    });
  });
}
