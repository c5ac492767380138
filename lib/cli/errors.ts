/**
 * The `rxmcp` command's failures a user causes, and its exit codes. Kept apart from the commands so
 * that `--help`, `--version` and a bad command line load nothing else.
 */

/** Exit codes: 0 stopped as asked, 1 nothing could be served (or the server went away), 2 bad command line or servers file. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A command line that cannot be run: the message says what was wrong; the command exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';

  /**
   * @param message what was wrong, in one line
   * @param command the command whose help tells how to write it right (`proxy`), when it is one
   */
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

/** A servers file that cannot be used: the message names the file and, where it is one, the entry; exit 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
