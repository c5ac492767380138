import type { ChildProcess } from 'node:child_process';
import type { Observable, ReplaySubject } from '../../rx/rxjs';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { StdioClientConnection } from './stdio-client-connection';
import type { StdioShutdownTimeouts } from './stdio-client-connection';
import type { InboundFrame, Transport, TransportClose } from '../transport';
import { childLogger, stderrWarnLogger } from '../../base/logger';
import { nodeChildProcess } from '../../base/node-builtins';
import type { LoggerOption } from '../../base/logger';

export type { StdioShutdownTimeouts } from './stdio-client-connection';

/** The default shutdown timeouts: two seconds for each step. */
export const DEFAULT_STDIO_SHUTDOWN_TIMEOUTS: StdioShutdownTimeouts = { afterStdinCloseMs: 2000, afterSigtermMs: 2000 };

/**
 * The variables of this process's environment that a spawned server inherits by default, in the
 * spirit of sudo's `env_reset`: enough to find programs and the home directory, nothing that
 * carries credentials (tokens and keys in the parent's environment stay in the parent). Pass
 * `env` to add what a server needs.
 */
export const DEFAULT_INHERITED_ENV_VARS: readonly string[] =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMFILES',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/**
 * The environment a spawned server starts from: the {@link DEFAULT_INHERITED_ENV_VARS} that are
 * set here, minus values that start with `()` (exported shell functions, a known injection route).
 */
export function defaultStdioEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of DEFAULT_INHERITED_ENV_VARS) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return env;
}

/** `base` with the variables of `env` that have a value set over it. */
function withVariables(
  base: Record<string, string>,
  env: Readonly<Record<string, string | undefined>> | undefined,
): Record<string, string> {
  if (env === undefined) return base;
  for (const [key, value] of Object.entries(env)) if (value !== undefined) base[key] = value;
  return base;
}

/** Options for {@link createStdioClientTransport}. */
export interface StdioClientTransportOptions {
  /** The program to run. Spawned directly, without a shell: no quoting, globbing or `.cmd` lookup. */
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * Variables set for the server, over `defaultStdioEnvironment` (not over all of
   * `process.env`). Takes `process.env` as it is (`env: process.env` passes the whole environment
   * on): a variable whose value is `undefined` is left out, so it neither sets nor unsets one of
   * the defaults.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /**
   * The server's stderr: `'inherit'` (default) shares this process's stderr, `'pipe'` delivers
   * it line by line on `stderr$`, `'ignore'` discards it.
   */
  readonly stderr?: 'pipe' | 'inherit' | 'ignore';
  /** Shutdown timeouts; default `DEFAULT_STDIO_SHUTDOWN_TIMEOUTS`. */
  readonly shutdownTimeoutMs?: Partial<StdioShutdownTimeouts>;
  /** The longest inbound line accepted, in bytes; see `NdjsonDecoderOptions.maxLineBytes`. */
  readonly maxLineBytes?: number;
  /**
   * Logs spawn and exit at info, shutdown steps at debug, every message at trace; silent by
   * default. Lines the server writes to stdout that are not MCP messages are reported at warn,
   * quoting the line: through this logger, or on this process's stderr when none is given (the
   * server has a bug its user needs to see).
   */
  readonly logger?: LoggerOption;
}

/** A stdio client transport: a {@link Transport} plus the server process it runs. */
export interface StdioClientTransport extends Transport {
  /** The server's process id; `undefined` when it could not be started. */
  readonly pid: number | undefined;
  /**
   * Hot stream of the server's stderr, one string per line (without the line ending), when
   * `stderr: 'pipe'`. Up to 1000 lines written before the first subscriber are held for it (the
   * oldest are dropped beyond that). Completes when the transport closes; empty otherwise.
   */
  readonly stderr$: Observable<string>;
  /** The exit code once the process has exited normally, else `null`. */
  readonly exitCode: number | null;
  /** The signal that ended the process, else `null`. */
  readonly signalCode: NodeJS.Signals | null;
}

/**
 * The client side of the stdio transport: spawns the server process and exchanges
 * newline-delimited JSON with it over its stdin and stdout.
 *
 * - The process starts at once; frames it writes before `incoming$` has a subscriber are held.
 *   Sends made before it is running are buffered by the pipe. Writes keep their order, use as
 *   few `write` calls as possible (a lone message is written at once, those sent after it in the
 *   same turn of the event loop go out together at its end; see `FrameWriter`) and respect
 *   backpressure (held while `write` returns `false`, sent together on `'drain'`).
 * - `close()` shuts down as the MCP lifecycle asks for stdio: it ends the server's stdin (after
 *   the frames already sent), waits `afterStdinCloseMs` for the process to exit, sends SIGTERM,
 *   waits `afterSigtermMs`, then sends SIGKILL. Frames the server writes meanwhile are still
 *   delivered. `closed$` emits once the process has exited and its output is read, with a reason
 *   naming the exit code or signal (`'closed locally (process exited with code 0)'`).
 * - The process exiting on its own closes the transport too (`'process exited with code 1'`);
 *   a non-zero code or a signal comes with a `TransportError` whose message names the command
 *   line, the code or signal and, when stderr is piped, its last lines. A process that cannot be started
 *   (ENOENT, EACCES) closes it with a `TransportError` whose `cause` is the spawn error, and a
 *   failing write to stdin with one whose `cause` is the write error (and then shuts down).
 * - A line on the server's stdout that is not JSON breaks the rule that stdout carries protocol
 *   messages only: it is reported at once, at warn, quoting the line (the first ten; later ones
 *   are counted, not reported), and the connection goes on: the line reaches `incoming$` as a
 *   `MalformedFrame` like any other bad frame, and is not a reason to drop the server.
 *
 * @example
 * const transport = createStdioClientTransport({ command: 'node', args: ['server.js'], stderr: 'pipe' });
 * transport.stderr$.subscribe((line) => log.info({ line }, 'server stderr'));
 */
export function createStdioClientTransport(options: StdioClientTransportOptions): StdioClientTransport {
  const { command, args = [], cwd } = options;
  const stderrMode = options.stderr ?? 'inherit';
  const bindings = { component: 'transport', transport: 'stdio-client', command };
  const connection = new StdioClientConnection({
    command,
    args,
    log: childLogger(options.logger, bindings),
    strayLog: options.logger === undefined ? stderrWarnLogger().child(bindings) : undefined,
    timeouts: { ...DEFAULT_STDIO_SHUTDOWN_TIMEOUTS, ...options.shutdownTimeoutMs },
    maxLineBytes: options.maxLineBytes,
  });
  const { inbox, stderrInbox, closed$ } = connection;

  let proc: ChildProcess;
  try {
    // Loaded here, not with rxmcp/stdio, which serves stdio servers too: they never spawn.
    proc = nodeChildProcess().spawn(command, [...args], {
      cwd,
      env: withVariables(defaultStdioEnvironment(), options.env),
      stdio: ['pipe', 'pipe', stderrMode],
      shell: false,
      windowsHide: true,
    });
  } catch (error) {
    // Invalid arguments throw synchronously; missing programs are reported through 'error'.
    connection.failToStart(error);
    return closedTransport(closed$, inbox.values$, stderrInbox.values$);
  }
  connection.attach(proc, stderrMode);

  return {
    incoming$: inbox.values$,
    closed$: closed$.asObservable(),
    stderr$: stderrInbox.values$,
    get pid() {
      return proc.pid;
    },
    get exitCode() {
      return proc.exitCode;
    },
    get signalCode() {
      return proc.signalCode;
    },
    send(message: JsonRpcMessage | readonly JsonRpcMessage[]) {
      connection.send(message);
    },
    close(reason?: string) {
      connection.shutdown(reason ?? 'closed locally');
    },
  };
}

// The transport returned when spawn threw: already closed.
function closedTransport(
  closed$: ReplaySubject<TransportClose>,
  incoming$: Observable<InboundFrame>,
  stderr$: Observable<string>,
): StdioClientTransport {
  return {
    incoming$,
    closed$: closed$.asObservable(),
    stderr$,
    pid: undefined,
    exitCode: null,
    signalCode: null,
    send: () => undefined,
    close: () => undefined,
  };
}
