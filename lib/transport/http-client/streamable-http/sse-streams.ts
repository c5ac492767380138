import type pino from 'pino';
import { createSseParser, SseEventTooLargeError } from '../../framing/sse';
import type { HttpAnswer, HttpCall, HttpRequestSpec } from '../http-requester';
import type { InboundFrame } from '../../transport';
import { keyOf } from '../../http/request-keys';

/**
 * The SSE side of the Streamable HTTP client in the handshake revisions (up to 2025-11-25):
 * reading answer streams, the standalone GET stream, and resuming a stream with `Last-Event-ID`.
 */

/** How a client transport retries a broken SSE stream. */
export interface ReconnectOptions {
  /** Wait before the first retry when the server sent no `retry:`; default 1000 ms. */
  readonly initialDelayMs?: number;
  /** The longest wait between retries; default 30 000 ms. */
  readonly maxDelayMs?: number;
  /** Each failed attempt multiplies the wait by this; default 1.5. */
  readonly growFactor?: number;
  /** Consecutive failed attempts before giving a stream up; default 2. */
  readonly maxRetries?: number;
}

/** What the streams need from their transport. */
export interface SseHost {
  readonly closing: boolean;
  readonly log: pino.Logger;
  readonly sessionId: string | undefined;
  /** Requests sent whose response has not arrived on any stream, by `keyOf` their id. */
  readonly pending: ReadonlySet<string>;
  /** The most characters one message (one event's data) may hold. */
  readonly maxMessageLength: number;
  /** Parses and emits one message's text; returns the frame, or undefined when it was not JSON. */
  emitText(text: string): InboundFrame | undefined;
  /** Runs `job` after `ms` unless the transport closed meanwhile. */
  later(ms: number, job: () => void): void;
  /** Starts an HTTP call that close aborts; `settled` forgets it. */
  call(spec: HttpRequestSpec): HttpCall;
  settled(made: HttpCall): void;
  /** The headers of a handshake-revision request. */
  headers(extra: Readonly<Record<string, string>>): Record<string, string>;
  /**
   * The server answered 404 to session `gone`; `owed` are the requests a stream of it still owed,
   * which may have run.
   */
  sessionGone(gone: string, owed?: ReadonlySet<string>): void;
  /** Fails the requests in `keys`, owed on a stream of the lost session `gone`: they may have run. */
  outcomeUnknown(keys: ReadonlySet<string>, gone: string): void;
  /**
   * Fails at once the requests (by `keyOf` their id) whose responses a stream owed and that no
   * stream can bring any more, so their callers do not wait for a timeout (#13).
   */
  failOwed(keys: ReadonlySet<string>, why: string, data?: Readonly<Record<string, unknown>>): void;
  /**
   * Reconnecting gave up because the server could not be reached at all (every attempt failed
   * before any HTTP answer): the transport closes with a `TransportError` naming `cause`, so
   * every call in flight fails at once, not only the ones this stream owed.
   */
  unreachable(cause: unknown, attempts: number): void;
}

/** Where a stream stands: what it still owes, and what it said of its events. */
export interface StreamState {
  readonly standalone: boolean;
  /** The session the stream belongs to: it is not resumed on another. */
  readonly session: string | undefined;
  readonly owed: Set<string>;
  readonly lastEventId?: string;
  readonly retryMs?: number;
  /** Consecutive failed attempts. */
  readonly attempt: number;
  /** The first GET of the standalone stream (which a server may refuse). */
  readonly first?: boolean;
  /** Called once the GET is answered (or failed). */
  readonly answered?: () => void;
  /** Why the last attempt failed: the network error, or the HTTP status of a refusal. */
  readonly failure?: { readonly error: unknown } | { readonly status: number };
}

/** What reading a stream saw. */
export interface StreamSeen {
  readonly lastEventId?: string;
  readonly retryMs?: number;
  /** An event outgrew `maxMessageLength`; the stream was cut there. */
  readonly tooLarge: boolean;
}

/** The SSE side of the handshake revisions: reading streams, the standalone GET, resumption. */
export class SseStreams {
  private readonly parserOptions: { readonly maxEventLength: number };
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly growFactor: number;
  private readonly maxRetries: number;

  constructor(
    private readonly client: SseHost,
    reconnect: ReconnectOptions,
  ) {
    this.initialDelayMs = reconnect.initialDelayMs ?? 1000;
    this.maxDelayMs = reconnect.maxDelayMs ?? 30_000;
    this.growFactor = reconnect.growFactor ?? 1.5;
    this.maxRetries = reconnect.maxRetries ?? 2;
    this.parserOptions = { maxEventLength: client.maxMessageLength };
  }

  /**
   * Reads an SSE answer, emitting its messages and crossing off the responses in `owed`. Resolves
   * with the last event id and retry it saw, whether or not the stream ended cleanly.
   */
  async read(response: HttpAnswer, owed: Set<string>): Promise<StreamSeen> {
    const parser = createSseParser((event) => {
      if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return;
      const frame = this.client.emitText(event.data);
      for (const item of Array.isArray(frame) ? (frame as unknown[]) : [frame]) {
        const id = (item as { id?: unknown } | undefined)?.id;
        if (
          item &&
          typeof item === 'object' &&
          !('method' in item) &&
          (typeof id === 'string' || typeof id === 'number')
        ) {
          owed.delete(keyOf(id));
        }
      }
    }, this.parserOptions);
    let tooLarge = false;
    try {
      await response.read((text) => parser.push(text));
    } catch (error) {
      tooLarge = error instanceof SseEventTooLargeError;
      if (!this.client.closing && !tooLarge) this.client.log.debug({ err: error }, 'SSE stream broke');
    }
    parser.end();
    return { lastEventId: parser.lastEventId, retryMs: parser.retryMs, tooLarge };
  }

  /**
   * Fails the requests a stream owed when one of its events outgrew `maxMessageLength`: resuming
   * would only replay that event, so the stream is not resumed (#13).
   */
  failTooLarge(owed: ReadonlySet<string>): void {
    const max = this.client.maxMessageLength;
    this.client.log.warn({ maxMessageLength: max }, 'a message from the server exceeded maxMessageLength');
    this.client.failOwed(owed, `the response exceeded the client's maxMessageLength (${max} characters)`, {
      responseTooLarge: true,
      maxMessageLength: max,
    });
  }

  /**
   * What follows the end of an SSE stream: resume it when it still owes responses that arrived
   * nowhere else (or is the standalone stream), after the server's retry or the backoff.
   */
  afterStream(state: StreamState): void {
    const { client } = this;
    if (client.closing) return;
    for (const key of state.owed) if (!client.pending.has(key)) state.owed.delete(key);
    if (!state.standalone && state.owed.size === 0) return;
    if (!state.standalone && state.lastEventId === undefined) {
      client.log.warn(
        { owed: state.owed.size },
        'stream ended before its responses and cannot be resumed (no event id)',
      );
      client.failOwed(state.owed, 'the response stream ended before the response and cannot be resumed (no event id)');
      return;
    }
    if (state.attempt >= this.maxRetries && state.attempt > 0) {
      this.giveUp(state);
      return;
    }
    const wait = state.retryMs ?? Math.min(this.initialDelayMs * this.growFactor ** state.attempt, this.maxDelayMs);
    client.log.debug({ standalone: state.standalone, wait, lastEventId: state.lastEventId }, 'reconnecting SSE stream');
    client.later(wait, () => void this.get({ ...state, first: false, answered: undefined }));
  }

  /**
   * Gives a stream up after `maxRetries` failed attempts. When the last one got no HTTP answer the
   * server is gone, and the transport closes: every call in flight fails now rather than at its
   * timeout. A server that answered with an HTTP error is there but will not resume the stream:
   * only the requests the stream owed fail.
   */
  private giveUp(state: StreamState): void {
    const { client } = this;
    const { failure, attempt } = state;
    client.log.warn(
      {
        standalone: state.standalone,
        attempts: attempt,
        err: failure && 'error' in failure ? failure.error : undefined,
      },
      'giving up on a stream after repeated failures',
    );
    if (failure && 'error' in failure) {
      client.unreachable(failure.error, attempt);
      return;
    }
    const answered = failure ? ` (the server answered HTTP ${failure.status})` : '';
    client.failOwed(state.owed, `resuming the response stream failed ${attempt} times${answered}`);
  }

  /**
   * Opens the standalone GET stream; resolves once the server answered it, or after `waitMs`,
   * whichever comes first (the stream itself goes on).
   */
  openStandalone(waitMs: number): Promise<void> {
    let answered: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (answered = resolve));
    const session = this.client.sessionId;
    void this.get({ standalone: true, session, owed: new Set(), attempt: 0, first: true, answered });
    const bound = new Promise<void>((resolve) => this.client.later(waitMs, resolve));
    return Promise.race([opened, bound]);
  }

  /** A GET: the standalone stream, or the resumption of a stream after `lastEventId`. */
  async get(state: StreamState): Promise<void> {
    if (state.session !== this.client.sessionId) {
      // The session was lost (and another one started): what the stream owed may have run.
      state.answered?.();
      if (state.session !== undefined) this.client.outcomeUnknown(state.owed, state.session);
      return;
    }
    const extra: Record<string, string> = { accept: 'text/event-stream' };
    if (state.lastEventId !== undefined) extra['last-event-id'] = state.lastEventId;
    // Held until the stream is read to its end, so that close aborts the body too.
    const made = this.client.call({ method: 'GET', headers: this.client.headers(extra) });
    try {
      await this.readGet(made, state);
    } finally {
      this.client.settled(made);
    }
  }

  private async readGet(made: HttpCall, state: StreamState): Promise<void> {
    const { client } = this;
    let response: HttpAnswer;
    try {
      response = await made.answer;
    } catch (error) {
      state.answered?.();
      if (client.closing) return;
      client.log.debug({ err: error }, 'GET failed');
      this.afterStream({ ...state, retryMs: undefined, attempt: state.attempt + 1, failure: { error } });
      return;
    }
    state.answered?.();
    if (client.closing) return;
    client.log.debug({ status: response.status, lastEventId: state.lastEventId }, 'GET answered');
    if (response.status === 204) {
      // The server has nothing more for this stream (as for an EventSource): it is not resumed again.
      response.discard();
      client.failOwed(state.owed, 'the server ended the response stream without the response (HTTP 204)');
      return;
    }
    if (!response.ok || !(response.header('content-type') ?? '').includes('text/event-stream')) {
      response.discard();
      if (response.status === 404 && state.session !== undefined) {
        client.sessionGone(state.session, state.owed);
        return;
      }
      // The first GET may be refused: the server offers no standalone stream (405; some servers answer 400, or 404 without sessions).
      if (state.first) return;
      if (response.status === 400 && state.standalone && state.lastEventId !== undefined) {
        // The server no longer has the last event seen (its store keeps a bounded number): a new
        // GET stream, rather than none, with what was sent since that event lost.
        client.log.warn(
          { lastEventId: state.lastEventId },
          'the server cannot resume the GET stream from its last event: opening a new one (messages sent meanwhile are lost)',
        );
        void this.get({ ...state, lastEventId: undefined, retryMs: undefined, attempt: 0, answered: undefined });
        return;
      }
      this.afterStream({
        ...state,
        retryMs: undefined,
        attempt: state.attempt + 1,
        failure: { status: response.status },
      });
      return;
    }
    const seen = await this.read(response, state.owed);
    if (seen.tooLarge) {
      this.failTooLarge(state.owed);
      return;
    }
    this.afterStream({
      ...state,
      lastEventId: seen.lastEventId ?? state.lastEventId,
      retryMs: seen.retryMs ?? state.retryMs,
      attempt: 0,
    });
  }
}
