import type pino from 'pino';
import { ReplaySubject } from '../../rx/rxjs';
import { TransportError } from '../../jsonrpc/errors';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { createNdjsonDecoder, encodeFrame } from '../framing/ndjson';
import type { NdjsonDecoder } from '../framing/ndjson';
import { createFrameWriter } from './frame-writer';
import type { FrameWriter } from './frame-writer';
import type { InboundFrame, TransportClose } from '../transport';

const ignore = (): void => undefined;

/**
 * The state of a stdio server transport: reads frames from `stdin`, writes them to `stdout`, and
 * closes once. See `createStdioServerTransport` for the behaviour.
 */
export class StdioServerConnection {
  readonly inbox = createFrameInbox<InboundFrame>();
  readonly closed$ = new ReplaySubject<TransportClose>(1);
  private readonly decoder: NdjsonDecoder;
  private readonly writer: FrameWriter;
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: NodeJS.WritableStream,
    private readonly log: pino.Logger,
    maxLineBytes: number | undefined,
  ) {
    this.decoder = createNdjsonDecoder(maxLineBytes === undefined ? {} : { maxLineBytes });
    this.writer = createFrameWriter(stdout);
  }

  /** Delivers one inbound frame. */
  private readonly emit = (frame: InboundFrame): void => {
    if (this.log.isLevelEnabled('trace')) this.log.trace({ frame }, 'message in');
    this.inbox.push(frame);
  };

  private readonly onData = (chunk: Buffer | string): void => {
    // Answers made while this chunk is decoded go out together when it is done.
    this.writer.hold();
    try {
      this.decoder.push(chunk, this.emit);
    } finally {
      this.writer.release();
    }
  };

  private readonly onEnd = (): void => {
    this.decoder.end(this.emit);
    this.finish({ reason: 'stdin ended' }, false);
  };

  private readonly onStdinError = (error: Error): void => {
    this.finish(
      { reason: 'stdin error', error: new TransportError(`stdin failed: ${error.message}`, { cause: error }) },
      false,
    );
  };

  private readonly onStdoutError = (error: Error): void => {
    this.finish(
      { reason: 'stdout error', error: new TransportError(`stdout failed: ${error.message}`, { cause: error }) },
      true,
    );
  };

  /** Starts reading stdin and watching both streams for errors. */
  attach(): void {
    const { stdin, stdout } = this;
    stdin.on('data', this.onData);
    stdin.on('end', this.onEnd);
    stdin.on('close', this.onEnd);
    stdin.on('error', this.onStdinError);
    stdout.on('error', this.onStdoutError);
    // 'data' listeners start a paused stream in most cases, but not one paused explicitly.
    stdin.resume();
  }

  /** Writes one message to stdout; ignored once closed. */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], droppable = false): void {
    if (this.closed) {
      this.log.debug('send after close ignored');
      return;
    }
    // A message the client may miss does not wait behind a stdout the client does not read.
    if (droppable && this.writer.backlogged) return;
    // A message JSON cannot write throws here, with nothing written: the transport goes on.
    const text = encodeFrame(message);
    if (this.log.isLevelEnabled('trace')) this.log.trace({ message }, 'message out');
    this.writer.write(text);
  }

  /** Closes the transport, once: stops reading and hands the frames still held to stdout. */
  finish(close: TransportClose, stdoutFailed: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.detach();
    // Frames sent before close still go out; the stream buffers them from here on.
    if (stdoutFailed) this.writer.discard();
    else this.writer.end();
    // A failed stream may report again; with no listener left that would crash the process.
    if (stdoutFailed) this.stdout.on('error', ignore);
    this.inbox.complete();
    if (close.error) this.log.warn({ reason: close.reason, err: close.error }, 'transport closed');
    else this.log.info({ reason: close.reason }, 'transport closed');
    this.closed$.next(close);
    this.closed$.complete();
  }

  private detach(): void {
    const { stdin, stdout } = this;
    stdin.off('data', this.onData);
    stdin.off('end', this.onEnd);
    stdin.off('close', this.onEnd);
    stdin.off('error', this.onStdinError);
    stdout.off('error', this.onStdoutError);
    // Pausing lets the process exit once nothing else keeps it alive; leave it to other readers.
    if (stdin.listenerCount('data') === 0) stdin.pause();
  }
}
