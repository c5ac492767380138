import { RxmcpError, RxmcpErrorCode } from '../../jsonrpc/errors';
/**
 * Server-Sent Events framing (the `text/event-stream` format of the HTML standard), shared by the
 * Streamable HTTP and the 2024-11-05 HTTP+SSE transports: encoding events on the server side and
 * an incremental parser for the client side.
 */

/** One server-sent event. */
export interface SseEvent {
  /** The `event:` field; absent means the default type, `message`. */
  readonly event?: string;
  /** The `data:` lines joined with `\n`; may be empty (a priming event). */
  readonly data: string;
  /** The `id:` field of this event, if it had one. */
  readonly id?: string;
  /** The `retry:` field of this event, in milliseconds, if it had a valid one. */
  readonly retry?: number;
}

/** What {@link encodeSseEvent} writes. Every field is optional; an empty object is a bare blank line. */
export interface SseEventFields {
  readonly event?: string;
  readonly data?: string;
  readonly id?: string;
  readonly retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Encodes one event as `text/event-stream` text, terminated by the blank line that dispatches it.
 * Multi-line data becomes several `data:` lines. Throws `RangeError` for an id or event name that
 * contains a line break or NUL (the format cannot carry them) and for a negative or fractional retry.
 */
export function encodeSseEvent(fields: SseEventFields): string {
  let text = '';
  if (fields.id !== undefined) {
    if (/[\r\n\0]/.test(fields.id)) throw new RangeError('an SSE event id cannot contain a line break or NUL');
    text += `id: ${fields.id}\n`;
  }
  if (fields.event !== undefined) {
    if (LINE_BREAK.test(fields.event)) throw new RangeError('an SSE event name cannot contain a line break');
    text += `event: ${fields.event}\n`;
  }
  if (fields.retry !== undefined) {
    if (!Number.isInteger(fields.retry) || fields.retry < 0)
      throw new RangeError('SSE retry must be a non-negative integer');
    text += `retry: ${fields.retry}\n`;
  }
  if (fields.data !== undefined) {
    for (const line of fields.data.split(LINE_BREAK)) text += `data: ${line}\n`;
  }
  return `${text}\n`;
}

/** The incremental parser made by {@link createSseParser}. */
export interface SseParser {
  /** Feeds decoded text; calls `onEvent` for each event completed by it. Chunks may split lines anywhere. */
  push(chunk: string): void;
  /**
   * Ends the input. An event whose blank line never came is discarded, as the standard says
   * (a stream cut mid-event must not deliver half an event).
   */
  end(): void;
  /**
   * The id of the last event completed (the value a reconnecting client sends as `Last-Event-ID`).
   * As the standard says, an `id:` counts once the blank line that ends its event arrives: an
   * event cut short never moves it.
   */
  readonly lastEventId: string | undefined;
  /** The last valid `retry:` value seen, in milliseconds. */
  readonly retryMs: number | undefined;
}

/** Options of {@link createSseParser}. */
export interface SseParserOptions {
  /**
   * The most characters one event may hold: its `data:` lines together, or any single unfinished
   * line. A stream that goes past it makes `push` throw {@link SseEventTooLargeError}. Default:
   * no bound.
   */
  readonly maxEventLength?: number;
}

/** Thrown by `push` when an event outgrows `maxEventLength`; the parser is then spent. */
export class SseEventTooLargeError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.SseEventTooLarge;
  constructor(readonly maxEventLength: number) {
    super(`a server-sent event exceeded ${maxEventLength} characters`);
    this.name = 'SseEventTooLargeError';
  }
}

/**
 * Creates an incremental `text/event-stream` parser. It follows the standard's interpretation
 * rules: LF, CR and CRLF line ends, a leading BOM, comment lines (`:`), fields without a colon,
 * one optional space after the colon, `id` values containing NUL ignored, `retry` only when all
 * digits. Events with no `data:` line are not dispatched, except that their `id`/`retry` fields
 * still update `lastEventId`/`retryMs`; events with an empty `data:` line are (priming events).
 * `lastEventId` moves when an event completes (its blank line), `retryMs` as soon as its line is read.
 * `onEvent` runs synchronously inside `push`; an exception it throws propagates to the caller.
 */
export function createSseParser(onEvent: (event: SseEvent) => void, options: SseParserOptions = {}): SseParser {
  return new IncrementalSseParser(onEvent, options.maxEventLength ?? Infinity);
}

/** The parser's state: the unfinished line, the event being read, and the standard's id buffer. */
class IncrementalSseParser implements SseParser {
  // Data properties rather than getters over private state: one V8 map for every parser.
  lastEventId: string | undefined = undefined;
  retryMs: number | undefined = undefined;
  private buffer = '';
  private started = false;
  // A CR at the very end of a chunk may be the first half of a CRLF split across chunks.
  private pendingCr = false;
  private data: string[] = [];
  private hasData = false;
  /** Characters of `data` so far, with the line feeds that will join them. */
  private dataLength = 0;
  private eventName: string | undefined = undefined;
  private eventId: string | undefined = undefined;
  private eventRetry: number | undefined = undefined;
  // The standard's "last event ID buffer": set by `id:` lines, committed when an event completes.
  private idBuffer: string | undefined = undefined;

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly maxEventLength: number,
  ) {}

  push(chunk: string): void {
    if (chunk === '') return;
    if (!this.started) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    if (this.pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.pendingCr = false;
    // Only the new text can hold a line end: `buffer` is an unfinished line (a long data line
    // arriving in many chunks is scanned once, not once per chunk).
    let text = chunk;
    let start = 0;
    // Positions of the next LF and CR, searched again only once passed (-1: none left).
    let lf = -2;
    let cr = -2;
    for (;;) {
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      const buffered = this.buffer;
      this.buffer = '';
      this.line(buffered === '' ? text.slice(start, end) : buffered + text.slice(start, end));
      if (end === cr && cr + 1 === text.length) this.pendingCr = true;
      start = end === cr && text.charCodeAt(cr + 1) === 10 ? end + 2 : end + 1;
    }
    text = text.slice(start);
    if (text === '') return;
    this.buffer = this.buffer === '' ? text : this.buffer + text;
    if (this.buffer.length + this.dataLength > this.maxEventLength)
      throw new SseEventTooLargeError(this.maxEventLength);
  }

  end(): void {
    this.idBuffer = this.lastEventId;
    this.buffer = '';
    this.clearEvent();
  }

  private line(text: string): void {
    if (text === '') {
      this.dispatch();
      return;
    }
    if (text.charCodeAt(0) === 58 /* : */) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    switch (field) {
      case 'data':
        this.dataLength += value.length + 1;
        if (this.dataLength > this.maxEventLength + 1) throw new SseEventTooLargeError(this.maxEventLength);
        this.data.push(value);
        this.hasData = true;
        return;
      case 'event':
        this.eventName = value;
        return;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = this.eventId = value;
        return;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = this.eventRetry = Number(value);
        return;
      default:
        return;
    }
  }

  private dispatch(): void {
    this.lastEventId = this.idBuffer;
    if (!this.hasData) {
      this.eventName = this.eventId = this.eventRetry = undefined;
      return;
    }
    const event: { event?: string; data: string; id?: string; retry?: number } = { data: this.data.join('\n') };
    if (this.eventName !== undefined && this.eventName !== '') event.event = this.eventName;
    if (this.eventId !== undefined) event.id = this.eventId;
    if (this.eventRetry !== undefined) event.retry = this.eventRetry;
    this.clearEvent();
    this.onEvent(event);
  }

  private clearEvent(): void {
    this.data = [];
    this.hasData = false;
    this.dataLength = 0;
    this.eventName = this.eventId = this.eventRetry = undefined;
  }
}
