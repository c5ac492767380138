import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import type pino from 'pino';
import { ReplaySubject } from '../../rx/rxjs';
import { TransportError } from '../../jsonrpc/errors';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { createNdjsonDecoder, encodeFrame } from '../framing/ndjson';
import type { NdjsonDecoder } from '../framing/ndjson';
import { createFrameWriter } from './frame-writer';
import type { FrameWriter } from './frame-writer';
import { readStderrLines } from './stderr-line-reader';
import { TimerSet } from './timer-set';
import { MalformedFrame } from '../transport';
import type { InboundFrame, TransportClose } from '../transport';
import { describeExit, describeProgram, StrayOutputReport, StderrTail } from './stdio-client-diagnostics';

/** How long each step of the stdio shutdown waits for the server process to exit. */
export interface StdioShutdownTimeouts {
  /** After closing the child's stdin, before sending SIGTERM. */
  readonly afterStdinCloseMs: number;
  /** After SIGTERM, before sending SIGKILL. */
  readonly afterSigtermMs: number;
}

/** What a {@link StdioClientConnection} is set up with. */
export interface StdioClientConnectionSettings {
  readonly command: string;
  /** The program's arguments, to name it in errors. */
  readonly args?: readonly string[];
  readonly log: pino.Logger;
  /** Where lines on the server's stdout that are not protocol messages are reported (warn); default `log`. */
  readonly strayLog?: pino.Logger;
  readonly timeouts: StdioShutdownTimeouts;
  readonly maxLineBytes: number | undefined;
}

const MAX_HELD_STDERR_LINES = 1000;
// After 'exit', how long to wait for the process's pipes to close. A grandchild that inherited
// them can hold them open indefinitely; the transport must still close.
const PIPES_CLOSE_GRACE_MS = 500;

/**
 * The state of a stdio client transport and its server process: the frames coming in, the
 * shutdown under way, and how each event of the process moves it on. See
 * `createStdioClientTransport` for the behaviour.
 */
export class StdioClientConnection {
  readonly inbox = createFrameInbox<InboundFrame>();
  readonly stderrInbox = createFrameInbox<string>({ maxBuffered: MAX_HELD_STDERR_LINES });
  readonly closed$ = new ReplaySubject<TransportClose>(1);
  private readonly command: string;
  /** The command line as errors show it. */
  private readonly program: string;
  private readonly log: pino.Logger;
  private readonly stray: StrayOutputReport;
  /** The last lines of the server's stderr, when it is piped: errors about its exit quote them. */
  private readonly stderrTail = new StderrTail();
  private readonly timeouts: StdioShutdownTimeouts;
  private readonly decoder: NdjsonDecoder;
  private readonly timers = new TimerSet();
  private finished = false;
  // Set once a shutdown started: the reason it was asked for.
  private localReason: string | undefined;
  private failure: TransportError | undefined;
  private proc: ChildProcess | undefined;
  private stdin: Writable | null = null;
  private writer: FrameWriter | undefined;

  constructor(settings: StdioClientConnectionSettings) {
    const { maxLineBytes } = settings;
    this.command = settings.command;
    this.program = describeProgram(settings.command, settings.args ?? []);
    this.log = settings.log;
    this.stray = new StrayOutputReport(settings.strayLog ?? settings.log, this.program);
    this.timeouts = settings.timeouts;
    this.decoder = createNdjsonDecoder(maxLineBytes === undefined ? {} : { maxLineBytes });
  }

  /** Delivers one inbound frame. */
  readonly emit = (frame: InboundFrame): void => {
    if (frame instanceof MalformedFrame) this.stray.report(frame);
    if (this.log.isLevelEnabled('trace')) this.log.trace({ frame }, 'message in');
    this.inbox.push(frame);
  };

  /** Closes the transport, once: completes the streams and emits `close` on `closed$`. */
  finish(close: TransportClose): void {
    if (this.finished) return;
    this.finished = true;
    this.timers.clear();
    this.inbox.complete();
    this.stderrInbox.complete();
    if (close.error) this.log.warn({ reason: close.reason, err: close.error }, 'transport closed');
    else this.log.info({ reason: close.reason }, 'transport closed');
    this.closed$.next(close);
    this.closed$.complete();
  }

  /** Closes the transport for a spawn that threw (invalid arguments). */
  failToStart(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.finish({
      reason: 'failed to start',
      error: new TransportError(`Could not start ${this.command}: ${message}`, { cause: error }),
    });
  }

  /** Takes over a spawned process: writes to its stdin, reads its stdout (and stderr when piped). */
  attach(proc: ChildProcess, stderrMode: 'pipe' | 'inherit' | 'ignore'): void {
    this.proc = proc;
    this.stdin = proc.stdin;
    this.writer = proc.stdin ? createFrameWriter(proc.stdin) : undefined;
    proc.on('error', (error: NodeJS.ErrnoException) => this.onProcessError(error));
    proc.on('spawn', () => this.log.info({ pid: proc.pid }, 'server process started'));
    proc.on('exit', (code, signal) => this.onProcessExit(code, signal));
    proc.on('close', (code: number | null, signal: NodeJS.Signals | null) => this.finishAfterExit(code, signal));
    const { stdout, stdin } = proc;
    stdout?.on('data', (chunk: Buffer) => this.onStdoutData(chunk));
    stdout?.on('error', (error: Error) => this.log.warn({ err: error }, 'server stdout error'));
    stdin?.on('error', (error: NodeJS.ErrnoException) => this.onStdinError(error));
    if (stderrMode === 'pipe' && proc.stderr) {
      readStderrLines(proc.stderr, {
        push: (line: string) => {
          this.stderrTail.push(line);
          this.stderrInbox.push(line);
        },
      });
    }
  }

  /** Writes one message to the server's stdin; ignored once a shutdown started. */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    if (this.finished || this.localReason !== undefined || !this.stdin) {
      this.log.debug('send after close ignored');
      return;
    }
    // A message JSON cannot write throws here, with nothing written: the transport goes on.
    const text = encodeFrame(message);
    if (this.log.isLevelEnabled('trace')) this.log.trace({ message }, 'message out');
    this.writer?.write(text);
  }

  /**
   * Starts the shutdown: ends the server's stdin, then SIGTERM after `afterStdinCloseMs` and
   * SIGKILL after `afterSigtermMs` while the process still runs.
   */
  shutdown(reason: string): void {
    if (this.finished || this.localReason !== undefined) return;
    this.localReason = reason;
    this.log.debug({ reason }, 'shutting down: closing server stdin');
    if (this.stdin) {
      // Frames still held go to the stream's own buffer; end() writes them out first.
      this.writer?.end();
      this.stdin.end();
    }
    if (this.exited()) return;
    this.timers.after(this.timeouts.afterStdinCloseMs, () => this.terminate());
  }

  private terminate(): void {
    const { afterStdinCloseMs, afterSigtermMs } = this.timeouts;
    this.log.debug({ afterMs: afterStdinCloseMs }, 'server still running after stdin closed: SIGTERM');
    this.proc?.kill('SIGTERM');
    this.timers.after(afterSigtermMs, () => {
      this.log.debug({ afterMs: afterSigtermMs }, 'server still running after SIGTERM: SIGKILL');
      this.proc?.kill('SIGKILL');
    });
  }

  private exited(): boolean {
    const proc = this.proc as ChildProcess;
    return proc.exitCode !== null || proc.signalCode !== null;
  }

  private onProcessError(error: NodeJS.ErrnoException): void {
    if (this.proc?.pid === undefined && !this.finished) {
      // The process never started (ENOENT, EACCES, a bad cwd): no 'exit' will follow.
      this.failure = new TransportError(`Could not start ${this.command}: ${error.message}`, { cause: error });
      this.writer?.discard();
      this.finish({ reason: `failed to start (${error.code ?? error.message})`, error: this.failure });
      return;
    }
    this.log.warn({ err: error }, 'child process error');
  }

  private onProcessExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.finished) return;
    this.timers.clear();
    this.log.debug({ code, signal }, 'server process exited');
    // 'close' follows once stdout and stderr are drained, unless something else holds them open.
    this.timers.after(PIPES_CLOSE_GRACE_MS, () => {
      this.proc?.stdout?.destroy();
      this.proc?.stderr?.destroy();
      this.finishAfterExit(code, signal);
    });
  }

  private finishAfterExit(code: number | null, signal: NodeJS.Signals | null): void {
    // Frames still held can no longer reach the process.
    this.writer?.discard();
    this.decoder.end(this.emit);
    const how = signal !== null ? `process killed by ${signal}` : `process exited with code ${String(code)}`;
    const { localReason, failure } = this;
    if (localReason !== undefined) {
      this.finish(
        failure ? { reason: `${localReason} (${how})`, error: failure } : { reason: `${localReason} (${how})` },
      );
      return;
    }
    const error =
      failure ??
      (code === 0 ? undefined : new TransportError(describeExit(this.program, code, signal, this.stderrTail.lines())));
    this.finish(error ? { reason: how, error } : { reason: how });
  }

  private onStdoutData(chunk: Buffer): void {
    // Requests sent while this chunk is decoded (answers to the server's requests) go out together.
    this.writer?.hold();
    try {
      this.decoder.push(chunk, this.emit);
    } finally {
      this.writer?.release();
    }
  }

  private onStdinError(error: NodeJS.ErrnoException): void {
    if (this.finished || this.failure) return;
    if (this.localReason !== undefined) {
      // Expected when the server exits while we are shutting it down.
      this.log.debug({ err: error }, 'server stdin error during shutdown');
      return;
    }
    this.failure = new TransportError(`Could not write to ${this.command}: ${error.message}`, { cause: error });
    this.shutdown('write failed');
  }
}
