/**
 * What a stdio client tells its user about the server process it runs: the command line as
 * errors show it, why the process ended (with the last lines it wrote to stderr), and lines it
 * wrote to stdout that are not protocol messages.
 */
import type pino from 'pino';
import type { MalformedFrame } from '../transport';

/** How many of the server's last stderr lines an exit error quotes. */
export const STDERR_TAIL_LINES = 5;
/** How much of a stderr line, or of a stray stdout line, is quoted. */
const QUOTED_CHARS = 200;
/** How many stray stdout lines are reported one by one; later ones are only counted. */
export const REPORTED_STRAY_LINES = 10;
/** How much of the command line errors show. */
const PROGRAM_CHARS = 200;

/** `text`, cut to `max` characters with an ellipsis. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The command line as a user would type it: words with spaces or quotes are quoted. */
export function describeProgram(command: string, args: readonly string[]): string {
  const words = [command, ...args].map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word)));
  return cut(words.join(' '), PROGRAM_CHARS);
}

/**
 * The error message of a server process that ended on its own: the command, the exit code or
 * signal, and its last lines on stderr when they were read (`stderr: 'pipe'`).
 *
 * @example
 * describeExit('node server.js', 1, null, ['Error: no API key']);
 * // The MCP server process (node server.js) exited with code 1. Its last lines on stderr:
 * //   Error: no API key
 */
export function describeExit(
  program: string,
  code: number | null,
  signal: NodeJS.Signals | null,
  stderrLines: readonly string[],
): string {
  const how = signal !== null ? `was killed by ${signal}` : `exited with code ${String(code)}`;
  const head = `The MCP server process (${program}) ${how}`;
  if (stderrLines.length === 0) return `${head}.`;
  return `${head}. Its last lines on stderr:\n${stderrLines.map((line) => `  ${line}`).join('\n')}`;
}

/** The last {@link STDERR_TAIL_LINES} non-blank lines of the server's stderr, each cut to a readable length. */
export class StderrTail {
  private readonly kept: string[] = [];

  push(line: string): void {
    if (line.trim() === '') return;
    this.kept.push(cut(line, QUOTED_CHARS));
    if (this.kept.length > STDERR_TAIL_LINES) this.kept.shift();
  }

  lines(): readonly string[] {
    return this.kept;
  }
}

/**
 * Reports lines the server writes to stdout that are not JSON. The MCP specification says a
 * stdio server MUST NOT write anything to its stdout that is not a valid MCP message, so such a
 * line is the server's bug (a stray `console.log`, a banner): each of the first
 * {@link REPORTED_STRAY_LINES} is logged at warn as it arrives, quoting it, and a last warning
 * says that further ones go unreported. The connection is not dropped for them: the line still
 * reaches the connection as a `MalformedFrame` (answered with a parse error), and the messages
 * around it go on being delivered.
 */
export class StrayOutputReport {
  private count = 0;

  constructor(
    private readonly log: pino.Logger,
    private readonly program: string,
  ) {}

  report(frame: MalformedFrame): void {
    this.count += 1;
    if (this.count > REPORTED_STRAY_LINES + 1) return;
    if (this.count === REPORTED_STRAY_LINES + 1) {
      this.log.warn(
        { program: this.program, reported: REPORTED_STRAY_LINES },
        `the MCP server (${this.program}) keeps writing lines to stdout that are not MCP messages; ` +
          'further ones are not reported',
      );
      return;
    }
    const line = cut(frame.text.trim(), QUOTED_CHARS);
    this.log.warn(
      { program: this.program, line, reason: frame.reason },
      `the MCP server (${this.program}) wrote a line to stdout that is not an MCP message: ${JSON.stringify(line)}. ` +
        'A stdio server must write only protocol messages to stdout; its logs belong on stderr. ' +
        'The line is ignored and the connection goes on',
    );
  }
}
