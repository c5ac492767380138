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

/**
 * Creates an incremental `text/event-stream` parser. It follows the standard's interpretation
 * rules: LF, CR and CRLF line ends, a leading BOM, comment lines (`:`), fields without a colon,
 * one optional space after the colon, `id` values containing NUL ignored, `retry` only when all
 * digits. Events with no `data:` line are not dispatched, except that their `id`/`retry` fields
 * still update `lastEventId`/`retryMs`; events with an empty `data:` line are (priming events).
 * `lastEventId` moves when an event completes (its blank line), `retryMs` as soon as its line is read.
 * `onEvent` runs synchronously inside `push`; an exception it throws propagates to the caller.
 */
export function createSseParser(onEvent: (event: SseEvent) => void): SseParser {
  let buffer = '';
  let started = false;
  // A CR at the very end of a chunk may be the first half of a CRLF split across chunks.
  let pendingCr = false;
  let data: string[] = [];
  let hasData = false;
  let eventName: string | undefined;
  let eventId: string | undefined;
  let eventRetry: number | undefined;
  // The standard's "last event ID buffer": set by `id:` lines, committed when an event completes.
  let idBuffer: string | undefined;

  const dispatch = (): void => {
    parser.lastEventId = idBuffer;
    if (hasData) {
      const event: { event?: string; data: string; id?: string; retry?: number } = { data: data.join('\n') };
      if (eventName !== undefined && eventName !== '') event.event = eventName;
      if (eventId !== undefined) event.id = eventId;
      if (eventRetry !== undefined) event.retry = eventRetry;
      data = [];
      hasData = false;
      eventName = eventId = eventRetry = undefined;
      onEvent(event);
      return;
    }
    eventName = eventId = eventRetry = undefined;
  };

  const line = (text: string): void => {
    if (text === '') {
      dispatch();
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        data.push(value);
        hasData = true;
        return;
      case 'event':
        eventName = value;
        return;
      case 'id':
        if (!value.includes('\0')) idBuffer = eventId = value;
        return;
      case 'retry':
        if (/^\d+$/.test(value)) parser.retryMs = eventRetry = Number(value);
        return;
      default:
        return;
    }
  };

  const parser: { -readonly [K in keyof SseParser]: SseParser[K] } = {
    push(chunk) {
      if (chunk === '') return;
      if (!started) {
        started = true;
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      }
      if (pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
      pendingCr = false;
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
        line(buffer === '' ? text.slice(start, end) : buffer + text.slice(start, end));
        buffer = '';
        if (end === cr && cr + 1 === text.length) pendingCr = true;
        start = end === cr && text.charCodeAt(cr + 1) === 10 ? end + 2 : end + 1;
      }
      text = text.slice(start);
      if (text !== '') buffer = buffer === '' ? text : buffer + text;
    },
    end() {
      idBuffer = parser.lastEventId;
      buffer = '';
      data = [];
      hasData = false;
      eventName = eventId = eventRetry = undefined;
    },
    // Data properties rather than getters: a getter closing over fresh state gives each parser a
    // V8 map of its own, which keeps the parser's state alive through minor collections.
    lastEventId: undefined,
    retryMs: undefined,
  };
  return parser;
}
