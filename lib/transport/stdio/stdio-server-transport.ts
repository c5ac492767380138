import type { JsonRpcMessage } from '../../jsonrpc/message';
import { StdioServerConnection } from './stdio-server-connection';
import type { SendOptions, Transport } from '../transport';
import { childLogger } from '../../base/logger';
import type { LoggerOption } from '../../base/logger';

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
  readonly logger?: LoggerOption;
}

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
  const log = childLogger(options.logger, { component: 'transport', transport: 'stdio-server' });
  const connection = new StdioServerConnection(
    options.stdin ?? process.stdin,
    options.stdout ?? process.stdout,
    log,
    options.maxLineBytes,
  );
  connection.attach();
  log.info('transport opened');

  return {
    incoming$: connection.inbox.values$,
    closed$: connection.closed$.asObservable(),
    send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: SendOptions) {
      connection.send(message, options?.droppable);
    },
    close(reason?: string) {
      connection.finish({ reason: reason ?? 'closed locally' }, false);
    },
  };
}
