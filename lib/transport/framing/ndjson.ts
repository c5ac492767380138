import { Observable } from '../../rx/rxjs';
import type { OperatorFunction } from '../../rx/rxjs';
import { MalformedFrame } from '../transport';
import { encodeMessage } from './encode';
import type { InboundFrame } from '../transport';

/**
 * The longest line the decoder buffers by default: 64 MiB. MCP messages of a few megabytes
 * (base64 images, large resources) are ordinary; a line far past this is a broken or hostile peer.
 */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** How much of a bad line a `MalformedFrame` keeps, for logs. */
const MALFORMED_TEXT_CHARS = 256;

const LF = 0x0a;
const CR = 0x0d;

/** Options for {@link createNdjsonDecoder}. */
export interface NdjsonDecoderOptions {
  /**
   * The longest line, in bytes and without its line ending, that the decoder accepts (default
   * {@link DEFAULT_MAX_LINE_BYTES}; `Infinity` for no limit). A longer line is not buffered: the
   * decoder emits one `MalformedFrame` for it as soon as it knows, drops its bytes up to the next
   * newline, and goes on with the line after. This keeps memory bounded and keeps the connection
   * alive: the connection answers a parse error, as for any other bad frame, instead of the
   * transport closing on a peer that may only have sent one oversized message.
   */
  readonly maxLineBytes?: number;
}

/**
 * An incremental newline-delimited JSON decoder: feed it byte chunks as they arrive, get a frame
 * for each complete line.
 */
export interface NdjsonDecoder {
  /**
   * Decodes one chunk and calls `emit` synchronously, in order, with a frame for each line the
   * chunk completes: the parsed value, or a `MalformedFrame` when the line is not JSON (or too
   * long). Empty and whitespace-only lines are skipped; a trailing `\r` is dropped. Never throws
   * for bad input. A string chunk is treated as its UTF-8 bytes.
   */
  push(chunk: Uint8Array | string, emit: (frame: InboundFrame) => void): void;
  /**
   * Ends the input: a last line without a newline is decoded as if it had one (a peer that exits
   * right after writing still gets its final message through). The decoder is reset and may be
   * reused.
   */
  end(emit: (frame: InboundFrame) => void): void;
  /** Bytes held for a line that has not ended yet. */
  readonly bufferedBytes: number;
}

/**
 * Parses the text of one frame: the value, or a `MalformedFrame` carrying the start of the text
 * and the parser's message. Returns `undefined` for an empty or whitespace-only text, which is no
 * frame at all. For transports whose framing already yields whole texts (WebSocket, SSE data).
 */
export function parseFrame(text: string): InboundFrame | undefined {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // Checked only on failure, so well-formed frames pay nothing for it.
    if (text.trim() === '') return undefined;
    return new MalformedFrame(text.slice(0, MALFORMED_TEXT_CHARS), (error as Error).message);
  }
}

/**
 * Encodes one message (or a batch array) as a frame: its JSON followed by `\n`.
 *
 * This is safe framing with no escaping step: `JSON.stringify` without an indent argument puts no
 * whitespace between tokens and escapes control characters (newline included) inside strings, so
 * the only 0x0A byte in the output is the terminator. Throws a `MessageEncodingError` for a value
 * JSON cannot write (see `encodeMessage`): a stream transport then sends nothing and stays open.
 */
export function encodeFrame(message: unknown): string {
  return encodeMessage(message) + '\n';
}

/**
 * Creates an incremental decoder for newline-delimited JSON (the stdio transport's framing).
 *
 * Newlines are found on the bytes (0x0A never occurs inside a multi-byte UTF-8 sequence), and only
 * complete lines are turned into text, so a character split across chunks is decoded whole. Bytes
 * of an unfinished line are kept as a list of chunks and joined once, when the line ends; each
 * byte is scanned once, so a message of many megabytes fed in small chunks costs linear time.
 * When a chunk holds many lines they are decoded to text in one call and split on the string.
 *
 * @example
 * const decoder = createNdjsonDecoder();
 * stream.on('data', (chunk: Buffer) => decoder.push(chunk, (frame) => inbox.push(frame)));
 * stream.on('end', () => decoder.end((frame) => inbox.push(frame)));
 */
export function createNdjsonDecoder(options: NdjsonDecoderOptions = {}): NdjsonDecoder {
  return new NdjsonLineDecoder(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
}

class NdjsonLineDecoder implements NdjsonDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  // True while dropping the rest of a line already reported as too long.
  private discarding = false;

  constructor(private readonly maxLineBytes: number) {}

  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  push(input: Uint8Array | string, emit: (frame: InboundFrame) => void): void {
    const chunk = typeof input === 'string' ? Buffer.from(input, 'utf8') : toBuffer(input);
    let start = 0;

    if (this.pendingBytes > 0 || this.discarding) {
      // Finish the line started in earlier chunks; scan only the new bytes for its end.
      const nl = chunk.indexOf(LF);
      if (nl === -1) {
        this.keep(chunk, emit);
        return;
      }
      if (this.discarding) {
        this.discarding = false;
      } else {
        const total = this.pendingBytes + nl;
        this.pending.push(chunk.subarray(0, nl));
        const line = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending, total);
        this.pending = [];
        this.pendingBytes = 0;
        this.emitText(line.toString('utf8'), total, emit);
      }
      start = nl + 1;
    }

    // A chunk usually ends a line: look at its last byte before searching backwards.
    const last = chunk.length > 0 && chunk[chunk.length - 1] === LF ? chunk.length - 1 : chunk.lastIndexOf(LF);
    if (last >= start) {
      // Every line up to `last` is complete: decode them in one call, then split the text.
      if (last > start) this.emitLines(chunk.toString('utf8', start, last), emit);
      start = last + 1;
    }
    if (start < chunk.length) this.keep(start === 0 ? chunk : chunk.subarray(start), emit);
  }

  end(emit: (frame: InboundFrame) => void): void {
    if (this.pendingBytes > 0) {
      const line =
        this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending, this.pendingBytes);
      const bytes = this.pendingBytes;
      this.pending = [];
      this.pendingBytes = 0;
      this.emitText(line.toString('utf8'), bytes, emit);
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
  }

  // Holds the bytes of an unfinished line, or reports it once it passes the limit.
  private keep(bytes: Buffer, emit: (frame: InboundFrame) => void): void {
    if (this.discarding) return;
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > this.maxLineBytes) {
      const head = headOf(this.pending.length > 0 ? this.pending : [bytes]);
      emit(this.tooLong(this.pendingBytes, head));
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      return;
    }
    this.pending.push(bytes);
  }

  // Emits frames for `text`, which holds whole lines separated by '\n' and no final '\n'.
  private emitLines(text: string, emit: (frame: InboundFrame) => void): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      const line = nl === -1 ? (start === 0 ? text : text.slice(start)) : text.slice(start, nl);
      if (line.length > 0) {
        // A UTF-16 unit is at most 3 UTF-8 bytes: only count bytes when the limit could be near.
        const bytes = line.length * 3 <= this.maxLineBytes ? line.length : Buffer.byteLength(line);
        this.emitText(line, bytes, emit);
      }
      if (nl === -1) return;
      start = nl + 1;
    }
  }

  // Emits the frame for one complete line of text (no '\n'; may end in '\r').
  private emitText(text: string, byteLength: number, emit: (frame: InboundFrame) => void): void {
    const end = text.charCodeAt(text.length - 1) === CR ? text.length - 1 : text.length;
    if (end === 0) return;
    if (byteLength - (text.length - end) > this.maxLineBytes) {
      emit(this.tooLong(byteLength, text.slice(0, MALFORMED_TEXT_CHARS)));
      return;
    }
    const frame = parseFrame(end === text.length ? text : text.slice(0, end));
    if (frame !== undefined) emit(frame);
  }

  private tooLong(bytes: number, head: string): MalformedFrame {
    return new MalformedFrame(
      head.slice(0, MALFORMED_TEXT_CHARS),
      `line of ${bytes} or more bytes exceeds the limit of ${this.maxLineBytes} bytes`,
    );
  }
}

/**
 * An operator that decodes a stream of byte chunks into frames, with the same rules as
 * {@link createNdjsonDecoder}. Cold: each subscriber gets its own decoder. When the source
 * completes, a last line without a newline is decoded before completing; unsubscribing drops any
 * partial line.
 */
export function decodeNdjson(options: NdjsonDecoderOptions = {}): OperatorFunction<Uint8Array | string, InboundFrame> {
  return (source) =>
    new Observable<InboundFrame>((subscriber) => {
      const decoder = createNdjsonDecoder(options);
      const emit = (frame: InboundFrame): void => subscriber.next(frame);
      return source.subscribe({
        next: (chunk) => decoder.push(chunk, emit),
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          decoder.end(emit);
          subscriber.complete();
        },
      });
    });
}

// The first bytes of a line held in pieces, as text for a MalformedFrame.
function headOf(chunks: readonly Buffer[]): string {
  const parts: Buffer[] = [];
  let length = 0;
  for (const chunk of chunks) {
    if (length >= MALFORMED_TEXT_CHARS) break;
    parts.push(chunk);
    length += chunk.length;
  }
  return Buffer.concat(parts).toString('utf8', 0, MALFORMED_TEXT_CHARS);
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
