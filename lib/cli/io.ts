/**
 * What the `rxmcp` command takes from its process: streams, environment, and the user's request to
 * stop. The commands take it as an argument, so tests run them in-process with buffers and a
 * promise of their own.
 */
import type { TextOutput } from './progress';

/** The process as the commands see it. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  /** Protocol messages only (`proxy --stdio`, `connect`); the command's own lines go to `stderr`. */
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: TextOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves, with the signal's name, when the user asks the command to stop (Ctrl-C, SIGTERM). */
  readonly interrupted: Promise<string>;
}

/**
 * This process: its streams and environment; SIGINT and SIGTERM resolve `interrupted` (the command
 * then closes what it opened and exits 0), and a second one exits at once with 130.
 */
export function processIo(): CliIo {
  const interrupted = new Promise<string>((resolve) => {
    let asked = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (asked) process.exit(130);
      asked = true;
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, interrupted };
}

/** `RXMCP_VERBOSE=1` shows the library's info lines (connections opened and closed) on stderr. */
export function verbose(io: CliIo): boolean {
  return io.env.RXMCP_VERBOSE === '1';
}
