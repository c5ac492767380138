/**
 * What the `rxmcp` command tells the person at the terminal, on stderr only (under `--stdio`,
 * stdout carries protocol messages): one line per upstream as it connects or fails, then where the
 * aggregate is served. On a terminal the marks are coloured; elsewhere the same lines are plain.
 */
import type { ConsoleLike } from '../base/logger';

/** Where the command writes its lines: stderr, or a test's buffer. */
export interface TextOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
}

const GREEN = '\u001b[32m';
const RED = '\u001b[31m';
const DIM = '\u001b[2m';
const RESET = '\u001b[0m';

/** The command's own lines. */
export interface Progress {
  /** An upstream is starting (shown dimmed on a terminal only: elsewhere its outcome says enough). */
  starting(name: string, how: string): void;
  connected(name: string, detail: string): void;
  failed(name: string, cause: string): void;
  /** A line of the command's own: `rxmcp: <text>`. */
  note(text: string): void;
  /** An error of the command's own: `rxmcp: <text>`, red on a terminal. */
  error(text: string): void;
  /** An error line as it is, red on a terminal. */
  line(text: string): void;
}

/** Lines for `output`, coloured when it is a terminal. */
export function createProgress(output: TextOutput): Progress {
  const tty = output.isTTY === true;
  const paint = (colour: string, text: string) => (tty ? `${colour}${text}${RESET}` : text);
  const line = (text: string) => void output.write(`${text}\n`);
  return {
    starting: (name, how) => {
      if (tty) line(paint(DIM, `… ${name} (${how})`));
    },
    connected: (name, detail) => line(`${paint(GREEN, '✓')} ${name} (${detail})`),
    failed: (name, cause) => line(`${paint(RED, '✗')} ${name}: ${cause}`),
    note: (text) => line(`rxmcp: ${text}`),
    error: (text) => line(paint(RED, `rxmcp: ${text}`)),
    line: (text) => line(paint(RED, text)),
  };
}

/**
 * The logger the command gives the library: records at `level` and above as `rxmcp: <message>`
 * lines (naming the record's `upstream` when it has one).
 */
export function progressLogger(progress: Progress, level: 'error' | 'warn' | 'info'): ConsoleLike {
  const format = (data: unknown[]) => {
    const [message, record] = data as [
      string,
      { upstream?: unknown; reason?: unknown; err?: { message?: unknown } } | undefined,
    ];
    const upstream = typeof record?.upstream === 'string' ? `${record.upstream}: ` : '';
    const why = typeof record?.err?.message === 'string' ? record.err.message : record?.reason;
    const cause = typeof why === 'string' ? ` (${why})` : '';
    return `${upstream}${message}${cause}`;
  };
  const from = (wanted: 'error' | 'warn' | 'info') =>
    wanted === 'error' ? true : wanted === 'warn' ? level !== 'error' : level === 'info';
  return {
    error: (...data) => progress.error(format(data)),
    warn: (...data) => {
      if (from('warn')) progress.note(format(data));
    },
    info: (...data) => {
      if (from('info')) progress.note(format(data));
    },
    debug: (...data) => {
      if (from('info')) progress.note(format(data));
    },
  };
}

/** The message of an error-like value (errors from another realm included), else its text. */
function messageOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const message = (value as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message : undefined;
}

/** The innermost message of an error and its causes: `spawn nonexistent ENOENT` rather than a wrapper's. */
export function causeOf(error: unknown): string {
  let message = messageOf(error) ?? String(error);
  let current = error as { cause?: unknown } | null | undefined;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current?.cause !== undefined; depth++) {
    message = messageOf(current.cause) ?? message;
    current = current.cause as { cause?: unknown } | null | undefined;
  }
  return message;
}
