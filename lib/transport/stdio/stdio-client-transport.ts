import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type pino from 'pino';
import { ReplaySubject } from 'rxjs';
import type { Observable } from 'rxjs';
import { TransportError } from '../../jsonrpc/errors';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { createNdjsonDecoder, encodeOutgoing } from '../framing/ndjson';
import { createFrameWriter } from './frame-writer';
import type { InboundFrame, Transport, TransportClose } from '../transport';
import { childLogger } from '../../jsonrpc/logger';

/** How long each step of the stdio shutdown waits for the server process to exit. */
export interface StdioShutdownTimeouts {
  /** After closing the child's stdin, before sending SIGTERM. */
  readonly afterStdinCloseMs: number;
  /** After SIGTERM, before sending SIGKILL. */
  readonly afterSigtermMs: number;
}

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

/** Options for {@link createStdioClientTransport}. */
export interface StdioClientTransportOptions {
  /** The program to run. Spawned directly, without a shell: no quoting, globbing or `.cmd` lookup. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Variables set for the server, over {@link defaultStdioEnvironment} (not over all of `process.env`). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /**
   * The server's stderr: `'inherit'` (default) shares this process's stderr, `'pipe'` delivers
   * it line by line on `stderr$`, `'ignore'` discards it.
   */
  readonly stderr?: 'pipe' | 'inherit' | 'ignore';
  /** Shutdown timeouts; default {@link DEFAULT_STDIO_SHUTDOWN_TIMEOUTS}. */
  readonly shutdownTimeoutMs?: Partial<StdioShutdownTimeouts>;
  /** The longest inbound line accepted, in bytes; see `NdjsonDecoderOptions.maxLineBytes`. */
  readonly maxLineBytes?: number;
  /** Logs spawn and exit at info, shutdown steps at debug, every message at trace; silent by default. */
  readonly logger?: pino.Logger;
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

const MAX_HELD_STDERR_LINES = 1000;
// After 'exit', how long to wait for the process's pipes to close. A grandchild that inherited
// them can hold them open indefinitely; the transport must still close.
const PIPES_CLOSE_GRACE_MS = 500;

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
 *   a non-zero code or a signal comes with a `TransportError`. A process that cannot be started
 *   (ENOENT, EACCES) closes it with a `TransportError` whose `cause` is the spawn error, and a
 *   failing write to stdin with one whose `cause` is the write error (and then shuts down).
 *
 * @example
 * const transport = createStdioClientTransport({ command: 'node', args: ['server.js'], stderr: 'pipe' });
 * transport.stderr$.subscribe((line) => log.info({ line }, 'server stderr'));
 */
export function createStdioClientTransport(options: StdioClientTransportOptions): StdioClientTransport {
  const { command, args = [], cwd } = options;
  const stderrMode = options.stderr ?? 'inherit';
  const timeouts: StdioShutdownTimeouts = { ...DEFAULT_STDIO_SHUTDOWN_TIMEOUTS, ...options.shutdownTimeoutMs };
  const log = childLogger(options.logger, { component: 'transport', transport: 'stdio-client', command });
  const decoder = createNdjsonDecoder(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes });
  const inbox = createFrameInbox<InboundFrame>();
  const stderrInbox = createFrameInbox<string>({ maxBuffered: MAX_HELD_STDERR_LINES });
  const closed$ = new ReplaySubject<TransportClose>(1);

  let finished = false;
  let localReason: string | undefined;
  let failure: TransportError | undefined;
  const timers = new Set<NodeJS.Timeout>();

  const after = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const clearTimers = (): void => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };

  const emit = (frame: InboundFrame): void => {
    if (log.isLevelEnabled('trace')) log.trace({ frame }, 'message in');
    inbox.push(frame);
  };

  function finish(close: TransportClose): void {
    if (finished) return;
    finished = true;
    clearTimers();
    inbox.complete();
    stderrInbox.complete();
    if (close.error) log.warn({ reason: close.reason, err: close.error }, 'transport closed');
    else log.info({ reason: close.reason }, 'transport closed');
    closed$.next(close);
    closed$.complete();
  }

  let child: ChildProcess;
  try {
    child = spawn(command, [...args], {
      cwd,
      env: { ...defaultStdioEnvironment(), ...options.env },
      stdio: ['pipe', 'pipe', stderrMode],
      shell: false,
      windowsHide: true,
    });
  } catch (error) {
    // Invalid arguments throw synchronously; missing programs are reported through 'error'.
    const message = error instanceof Error ? error.message : String(error);
    finish({
      reason: 'failed to start',
      error: new TransportError(`Could not start ${command}: ${message}`, { cause: error }),
    });
    return closedTransport(closed$, inbox.values$, stderrInbox.values$);
  }
  const proc = child;
  const stdin = proc.stdin;
  const stdout = proc.stdout;
  const writer = stdin ? createFrameWriter(stdin) : undefined;

  const exited = (): boolean => proc.exitCode !== null || proc.signalCode !== null;

  const finishAfterExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    // Frames still held can no longer reach the process.
    writer?.discard();
    decoder.end(emit);
    const how = signal !== null ? `process killed by ${signal}` : `process exited with code ${String(code)}`;
    if (localReason !== undefined) {
      finish(failure ? { reason: `${localReason} (${how})`, error: failure } : { reason: `${localReason} (${how})` });
      return;
    }
    const error = failure ?? (code === 0 ? undefined : new TransportError(`Server process ${command} ${how}`));
    finish(error ? { reason: how, error } : { reason: how });
  };

  proc.on('error', (error: NodeJS.ErrnoException) => {
    if (proc.pid === undefined && !finished) {
      // The process never started (ENOENT, EACCES, a bad cwd): no 'exit' will follow.
      failure = new TransportError(`Could not start ${command}: ${error.message}`, { cause: error });
      writer?.discard();
      finish({ reason: `failed to start (${error.code ?? error.message})`, error: failure });
      return;
    }
    log.warn({ err: error }, 'child process error');
  });
  proc.on('spawn', () => log.info({ pid: proc.pid }, 'server process started'));
  proc.on('exit', (code, signal) => {
    if (finished) return;
    clearTimers();
    log.debug({ code, signal }, 'server process exited');
    // 'close' follows once stdout and stderr are drained, unless something else holds them open.
    after(PIPES_CLOSE_GRACE_MS, () => {
      proc.stdout?.destroy();
      proc.stderr?.destroy();
      finishAfterExit(code, signal);
    });
  });
  proc.on('close', (code: number | null, signal: NodeJS.Signals | null) => finishAfterExit(code, signal));

  stdout?.on('data', (chunk: Buffer) => {
    // Requests sent while this chunk is decoded (answers to the server's requests) go out together.
    writer?.hold();
    try {
      decoder.push(chunk, emit);
    } finally {
      writer?.release();
    }
  });
  stdout?.on('error', (error: Error) => log.warn({ err: error }, 'server stdout error'));
  stdin?.on('error', (error: NodeJS.ErrnoException) => {
    if (finished || failure) return;
    if (localReason !== undefined) {
      // Expected when the server exits while we are shutting it down.
      log.debug({ err: error }, 'server stdin error during shutdown');
      return;
    }
    failure = new TransportError(`Could not write to ${command}: ${error.message}`, { cause: error });
    shutdown('write failed');
  });

  if (stderrMode === 'pipe' && proc.stderr) {
    const text = new StringDecoder('utf8');
    let partial = '';
    const pushLines = (chunk: string): void => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) stderrInbox.push(line.endsWith('\r') ? line.slice(0, -1) : line);
    };
    proc.stderr.on('data', (chunk: Buffer) => pushLines(text.write(chunk)));
    proc.stderr.on('end', () => {
      pushLines(text.end());
      if (partial !== '') stderrInbox.push(partial);
      partial = '';
    });
  }

  function shutdown(reason: string): void {
    if (finished || localReason !== undefined) return;
    localReason = reason;
    log.debug({ reason }, 'shutting down: closing server stdin');
    if (stdin) {
      // Frames still held go to the stream's own buffer; end() writes them out first.
      writer?.end();
      stdin.end();
    }
    if (exited()) return;
    after(timeouts.afterStdinCloseMs, () => {
      log.debug({ afterMs: timeouts.afterStdinCloseMs }, 'server still running after stdin closed: SIGTERM');
      proc.kill('SIGTERM');
      after(timeouts.afterSigtermMs, () => {
        log.debug({ afterMs: timeouts.afterSigtermMs }, 'server still running after SIGTERM: SIGKILL');
        proc.kill('SIGKILL');
      });
    });
  }

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
      if (finished || localReason !== undefined || !stdin) {
        log.debug('send after close ignored');
        return;
      }
      const text = encodeOutgoing(message, log);
      if (text === undefined) return;
      if (log.isLevelEnabled('trace')) log.trace({ message }, 'message out');
      writer?.write(text);
    },
    close(reason?: string) {
      shutdown(reason ?? 'closed locally');
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
