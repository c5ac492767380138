import type pino from 'pino';
import { ReplaySubject } from 'rxjs';
import { TransportError } from '../../jsonrpc/errors';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { createNdjsonDecoder, encodeOutgoing } from '../framing/ndjson';
import { createFrameWriter } from './frame-writer';
import type { InboundFrame, Transport, TransportClose } from '../transport';
import { childLogger } from '../../jsonrpc/logger';

/** Options for {@link createStdioServerTransport}. */
export interface StdioServerTransportOptions {
  /** Where frames are read from; default `process.stdin`. */
  readonly stdin?: NodeJS.ReadableStream;
  /** Where frames are written to; default `process.stdout`. Must carry protocol messages only. */
  readonly stdout?: NodeJS.WritableStream;
  /** The longest inbound line accepted, in bytes; see `NdjsonDecoderOptions.maxLineBytes`. */
  readonly maxLineBytes?: number;
  /**
   * Logs opened/closed at info, peer problems at warn, every message at trace; silent by default.
   * Under stdio it must not write to stdout: use `pino(pino.destination(2))`.
   */
  readonly logger?: pino.Logger;
}

const ignore = (): void => undefined;

/**
 * The server side of the stdio transport: reads newline-delimited JSON from stdin and writes it
 * to stdout. Starts reading at once; frames that arrive before `incoming$` has a subscriber are
 * held for it.
 *
 * - Writes keep their order, with as few `write` calls as possible (see `FrameWriter`): a lone
 *   message is written at once; the answers to the requests of one chunk of stdin go out with one
 *   call when the chunk is handled; frames sent after the first in one turn of the event loop go
 *   out together at its end. Frames sent just before `process.exit()` are still written. When
 *   `stdout.write` returns `false` later frames wait and go out together on `'drain'`, so a slow
 *   reader does not make the stream buffer grow without limit one frame at a time.
 * - Closes with `'stdin ended'` when stdin ends (the client's shutdown signal), and with a
 *   `TransportError` (reason `'stdin error'` or `'stdout error'`, the stream's error as `cause`)
 *   when a stream fails, for example EPIPE once the client has gone.
 * - `close()` stops reading (removes its listeners and pauses stdin if nobody else reads it) and
 *   writes out frames still queued, but ends and destroys nothing: the streams belong to the
 *   caller (by default, to the process). Sending after close is a no-op.
 * - A message that JSON cannot encode (a cycle, a BigInt) is a bug of the caller: it is logged at
 *   error and dropped, and the transport stays open.
 *
 * @example
 * const transport = createStdioServerTransport({ logger: pino(pino.destination(2)) });
 * transport.closed$.subscribe(() => process.exit(0));
 */
export function createStdioServerTransport(options: StdioServerTransportOptions = {}): Transport {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const log = childLogger(options.logger, { component: 'transport', transport: 'stdio-server' });
  const decoder = createNdjsonDecoder(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes });
  const inbox = createFrameInbox<InboundFrame>();
  const closed$ = new ReplaySubject<TransportClose>(1);
  const emit = (frame: InboundFrame): void => {
    if (log.isLevelEnabled('trace')) log.trace({ frame }, 'message in');
    inbox.push(frame);
  };

  let closed = false;
  const writer = createFrameWriter(stdout);

  const onData = (chunk: Buffer | string): void => {
    // Answers made while this chunk is decoded go out together when it is done.
    writer.hold();
    try {
      decoder.push(chunk, emit);
    } finally {
      writer.release();
    }
  };
  const onEnd = (): void => {
    decoder.end(emit);
    finish({ reason: 'stdin ended' }, false);
  };
  const onStdinError = (error: Error): void => {
    finish(
      { reason: 'stdin error', error: new TransportError(`stdin failed: ${error.message}`, { cause: error }) },
      false,
    );
  };
  const onStdoutError = (error: Error): void => {
    finish(
      { reason: 'stdout error', error: new TransportError(`stdout failed: ${error.message}`, { cause: error }) },
      true,
    );
  };

  const detach = (): void => {
    stdin.off('data', onData);
    stdin.off('end', onEnd);
    stdin.off('close', onEnd);
    stdin.off('error', onStdinError);
    stdout.off('error', onStdoutError);
    // Pausing lets the process exit once nothing else keeps it alive; leave it to other readers.
    if (stdin.listenerCount('data') === 0) stdin.pause();
  };

  function finish(close: TransportClose, stdoutFailed: boolean): void {
    if (closed) return;
    closed = true;
    detach();
    // Frames sent before close still go out; the stream buffers them from here on.
    if (stdoutFailed) writer.discard();
    else writer.end();
    // A failed stream may report again; with no listener left that would crash the process.
    if (stdoutFailed) stdout.on('error', ignore);
    inbox.complete();
    if (close.error) log.warn({ reason: close.reason, err: close.error }, 'transport closed');
    else log.info({ reason: close.reason }, 'transport closed');
    closed$.next(close);
    closed$.complete();
  }

  stdin.on('data', onData);
  stdin.on('end', onEnd);
  stdin.on('close', onEnd);
  stdin.on('error', onStdinError);
  stdout.on('error', onStdoutError);
  // 'data' listeners start a paused stream in most cases, but not one paused explicitly.
  stdin.resume();
  log.info('transport opened');

  return {
    incoming$: inbox.values$,
    closed$: closed$.asObservable(),
    send(message: JsonRpcMessage | readonly JsonRpcMessage[]) {
      if (closed) {
        log.debug('send after close ignored');
        return;
      }
      const text = encodeOutgoing(message, log);
      if (text === undefined) return;
      if (log.isLevelEnabled('trace')) log.trace({ message }, 'message out');
      writer.write(text);
    },
    close(reason?: string) {
      finish({ reason: reason ?? 'closed locally' }, false);
    },
  };
}
