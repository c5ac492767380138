import { endJson, unrefTimer } from '../../http/http-exchange';
import type { HttpResponseLike } from '../../http/http-exchange';
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/message';
import { encodeMessage } from '../../framing/encode';
import { encodeSseEvent } from '../../framing/sse';
import type { SessionOptions } from './session-options';
import { answerError, openSse } from './session-stream';
import { idOfKey, keyOf } from '../../http/request-keys';
import type { Payload, SessionStream } from './session-stream';
import { WriteQueue } from './write-queue';
import { isBacklogged } from '../../transport';

/** What a session's streams need of the session: whether it is closed, and a way to close it. */
export interface StreamsHost {
  readonly closed: boolean;
  close(reason: string): void;
}

/** A standalone message sent while no GET stream was open. */
interface HeldMessage {
  readonly eventId: string | undefined;
  readonly payload: Payload;
}

/**
 * The streams of one session and the writing of messages to them: which stream a message belongs
 * to, whether a POST is answered with one JSON body or an SSE stream, event ids from the event
 * store, priming events, the messages held for the next GET, and the responses that carry them.
 */
export class SessionStreams {
  /** The standalone GET stream, registered while the session is open. */
  readonly standalone: SessionStream;
  /** The open streams by id, the standalone one included. */
  readonly byId = new Map<string, SessionStream>();
  /** The stream of each request still waiting for its response, by {@link keyOf} its id. */
  readonly byRequest = new Map<string, SessionStream>();
  /** Standalone messages sent while no GET stream is open, delivered to the next plain GET. */
  held: HeldMessage[] = [];
  /** The POST whose frame is being delivered: a reply without an id (a refused batch) belongs to it. */
  delivering: SessionStream | undefined;
  /** Writes go through one queue so that an asynchronous event store cannot reorder them. */
  readonly queue: WriteQueue;
  private count = 0;
  private openResponses = 0;

  /**
   * @param prefix Starts every stream id: stream ids name the session, so a `Last-Event-ID` from
   *   another session is refused.
   */
  constructor(
    readonly prefix: string,
    readonly options: SessionOptions,
    private readonly host: StreamsHost,
  ) {
    this.standalone = {
      id: `${prefix}0`,
      res: undefined,
      pending: new Set(),
      json: undefined,
      undecided: undefined,
      requestHeaders: undefined,
    };
    this.byId.set(this.standalone.id, this.standalone);
    this.queue = new WriteQueue(options.logger);
    this.count = options.firstStream ?? 0;
  }

  /**
   * Opens the stream that answers a POST carrying the requests `keys`: one JSON body in
   * JSON-response mode, undecided for `jsonWindowMs`, or an SSE stream at once.
   */
  openPost(
    res: HttpResponseLike,
    keys: readonly string[],
    batch: boolean,
    json: boolean,
    headers: Record<string, string>,
    requestHeaders: IncomingHttpHeaders | undefined,
  ): SessionStream {
    // Every field set here, unset ones to undefined: streams share one shape, and a spread in the
    // literal would make each a slow copy.
    const stream: SessionStream = {
      id: `${this.prefix}${++this.count}`,
      res: undefined,
      pending: new Set(keys),
      json: json ? { batch, responses: [], headers } : undefined,
      undecided: undefined,
      requestHeaders,
    };
    this.byId.set(stream.id, stream);
    for (const key of keys) this.byRequest.set(key, stream);
    this.attach(stream, res);
    if (json) return stream;
    const windowMs = this.options.jsonWindowMs;
    if (windowMs > 0) {
      stream.undecided = { headers, timer: undefined };
      if (Number.isFinite(windowMs)) {
        stream.undecided.timer = unrefTimer(setTimeout(() => this.decideSse(stream), windowMs));
      }
    } else {
      openSse(res, headers);
      this.prime(stream);
    }
    return stream;
  }

  /** Serves a plain GET: opens the standalone stream (409 when one is open) and sends what was held. */
  openStandalone(res: HttpResponseLike, headers: Record<string, string>): void {
    const standalone = this.standalone;
    if (standalone.res) {
      answerError(res, 409, headers, -32000, 'Conflict: a GET stream is already open for this session');
      return;
    }
    openSse(res, headers);
    this.attach(standalone, res);
    this.prime(standalone);
    const queued = this.held;
    this.held = [];
    this.queue.push(() => {
      for (const { eventId, payload } of queued) this.writeEvent(standalone, eventId, JSON.stringify(payload), true);
    });
  }

  /** Makes `res` carry `stream`, and counts it among the session's open responses while it is open. */
  attach(stream: SessionStream, res: HttpResponseLike): void {
    stream.res = res;
    this.countResponses(1);
    res.on('close', () => {
      this.countResponses(-1);
      if (stream.res !== res) return;
      stream.res = undefined;
      if (res.writableFinished) return;
      this.options.logger.debug({ stream: stream.id }, 'client disconnected from stream');
      // Modern: nobody can resume, so the work for this POST is abandoned.
      if (this.options.sessionId === undefined && !this.host.closed) this.host.close('client disconnected');
    });
  }

  /**
   * Sends a message on the stream it belongs to, and ends that stream after its last response. A
   * `droppable` message is skipped while its stream's reader is behind (`SendOptions.droppable`).
   */
  dispatch(
    message: Payload,
    ids: ReadonlyArray<RequestId | null>,
    relatedRequestId: RequestId | undefined,
    droppable = false,
  ): void {
    const stream = this.route(ids, relatedRequestId) ?? this.standalone;
    if (droppable && stream.res && isBacklogged(stream.res.writableLength, this.options.maxBufferedBytes)) return;
    // A message JSON cannot write throws here, before any stream is touched (see `encodeMessage`).
    const data = encodeMessage(message);
    if (stream === this.standalone) {
      this.deliver(stream, message, data);
      return;
    }
    if (ids.length > 0 && ids.every((id) => id === null)) {
      // A refusal of the whole POST (a batch the revision does not allow): it answers every request.
      for (const key of stream.pending) this.byRequest.delete(key);
      stream.pending.clear();
    }
    for (const id of ids) {
      if (id === null) continue;
      const key = keyOf(id);
      if (stream.pending.delete(key)) this.byRequest.delete(key);
    }
    const last = stream.pending.size === 0;
    if (stream.undecided) {
      if (last) {
        this.answerJson(stream, data);
        return;
      }
      // Something comes before the response: the answer is a stream.
      this.decideSse(stream);
    }
    this.deliver(stream, message, data);
    if (last) this.finish(stream);
  }

  /** Decides an undecided POST's answer for SSE: sends the headers and the priming event. */
  decideSse(stream: SessionStream): void {
    const undecided = stream.undecided;
    if (!undecided) return;
    if (undecided.timer) clearTimeout(undecided.timer);
    stream.undecided = undefined;
    const res = stream.res;
    if (!res || res.headersSent) return;
    openSse(res, undecided.headers);
    this.prime(stream);
  }

  /** Ends the HTTP response of a request's stream, not the stream (polling); see `closeRequestStream`. */
  closeRequestStream(requestId: RequestId): boolean {
    const stream = this.byRequest.get(keyOf(requestId));
    if (!stream || !this.options.eventStore || stream.json) return false;
    // The client resumes from the priming event: the answer must be a stream.
    this.decideSse(stream);
    return this.detach(stream);
  }

  /** The same for the standalone stream. */
  closeStandaloneStream(): boolean {
    return this.options.eventStore !== undefined && this.detach(this.standalone);
  }

  /** Writes one event; `bounded` output (a replay, held messages) is exempt from the slow-reader limit. */
  writeEvent(stream: SessionStream, eventId: string | undefined, data: string, bounded = false): void {
    const res = stream.res;
    if (!res || res.writableEnded) return;
    res.write(
      encodeSseEvent(eventId === undefined ? { event: 'message', data } : { id: eventId, event: 'message', data }),
    );
    if (!bounded && res.writableLength > this.options.maxBufferedBytes) {
      // A reader this slow would make us buffer without bound; drop it, it can resume from the store.
      this.options.logger.warn({ stream: stream.id, buffered: res.writableLength }, 'slow reader: closing its stream');
      stream.res = undefined;
      res.destroy();
    }
  }

  /**
   * Ends every response of the session (404 for a POST not answered yet) and forgets its streams
   * and held messages.
   */
  closeAll(reason: string): void {
    for (const stream of this.byId.values()) {
      // A POST answered in full is ended by its finish job, once its last response is written.
      if (stream !== this.standalone && stream.pending.size === 0 && !stream.undecided) continue;
      if (stream.undecided?.timer) clearTimeout(stream.undecided.timer);
      const res = stream.res;
      stream.res = undefined;
      if (res && !res.writableEnded) {
        if (res.headersSent) res.end();
        else answerError(res, 404, {}, -32000, `Session closed: ${reason}`);
      }
    }
    this.byId.clear();
    this.byRequest.clear();
    this.held = [];
  }

  private countResponses(delta: number): void {
    this.openResponses += delta;
    this.options.onConnectionsChange(this.openResponses);
  }

  /** Writes a stream's priming event (its first id, and the `retry` delay), when there is an event store. */
  private prime(stream: SessionStream): void {
    const { eventStore, retryMs } = this.options;
    if (!eventStore) return;
    this.queue.push(() => {
      const stored = eventStore.storeEvent(stream.id, null);
      const write = (eventId: string): void => {
        const res = stream.res;
        if (res && !res.writableEnded) res.write(encodeSseEvent({ id: eventId, retry: retryMs, data: '' }));
      };
      const requests =
        eventStore.storeRequests && stream !== this.standalone
          ? eventStore.storeRequests(stream.id, [...stream.pending].map(idOfKey))
          : undefined;
      if (requests instanceof Promise) return Promise.all([stored, requests]).then(([eventId]) => write(eventId));
      return stored instanceof Promise ? stored.then(write) : write(stored);
    });
  }

  private deliver(stream: SessionStream, payload: Payload, data: string): void {
    if (stream.json) {
      // The body is joined from each response's JSON at the end (a batch's items one by one).
      if (!Array.isArray(payload)) stream.json.responses.push(data);
      else for (const item of payload as JsonRpcMessage[]) stream.json.responses.push(encodeMessage(item));
      return;
    }
    const eventStore = this.options.eventStore;
    this.queue.push(() => {
      const write = (eventId: string | undefined): void => {
        if (stream.res) this.writeEvent(stream, eventId, data);
        else if (stream === this.standalone) this.hold(eventId, payload);
        else if (!eventStore)
          this.options.logger.warn(
            { stream: stream.id },
            'stream has no connection and no event store: message dropped',
          );
      };
      if (!eventStore) return write(undefined);
      const stored = eventStore.storeEvent(stream.id, payload);
      return stored instanceof Promise ? stored.then(write) : write(stored);
    });
  }

  /** Keeps a standalone message for the next GET, dropping the oldest past `maxHeldMessages`. */
  private hold(eventId: string | undefined, payload: Payload): void {
    const max = this.options.maxHeldMessages;
    this.held.push({ eventId, payload });
    if (this.held.length > max) {
      this.held.shift();
      this.options.logger.warn({ max }, 'no GET stream open: oldest held message dropped');
    }
  }

  /**
   * Ends a POST's answer after its last response: the SSE stream, or the one JSON body. The stream
   * stays known until the writes queued before this (its last response's storing) are done: a
   * resumption already waiting on its replay finds it live and gets that response, where it would
   * otherwise take it for a stream a stopped process left owing one.
   */
  private finish(stream: SessionStream): void {
    this.queue.push(() => {
      this.byId.delete(stream.id);
      const res = stream.res;
      if (!res || res.writableEnded) return;
      if (stream.json) {
        const { batch, responses, headers } = stream.json;
        endJson(res, 200, batch ? `[${responses.join(',')}]` : responses[0]!, headers);
      } else res.end();
    });
    this.closeWhenAnswered();
  }

  /**
   * Answers an undecided POST with its one message as an `application/json` body: the same JSON
   * its SSE event would have carried. Spec: Transports → Sending Messages to the Server, 5.
   */
  private answerJson(stream: SessionStream, body: string): void {
    const { headers, timer } = stream.undecided as NonNullable<SessionStream['undecided']>;
    if (timer) clearTimeout(timer);
    stream.undecided = undefined;
    this.byId.delete(stream.id);
    this.queue.push(() => {
      const res = stream.res;
      if (!res || res.writableEnded) return;
      endJson(res, 200, body, headers);
    });
    this.closeWhenAnswered();
  }

  /** Modern: the session closes once its POST is answered (only the standalone stream is left). */
  private closeWhenAnswered(): void {
    if (this.options.sessionId !== undefined) return;
    this.queue.push(() => {
      if (this.byId.size === 1) this.host.close('request complete');
    });
  }

  private route(
    ids: ReadonlyArray<RequestId | null>,
    relatedRequestId: RequestId | undefined,
  ): SessionStream | undefined {
    for (const id of ids) {
      if (id === null) continue;
      const stream = this.byRequest.get(keyOf(id));
      if (stream) return stream;
    }
    if (ids.length > 0 && ids.every((id) => id === null) && this.delivering) return this.delivering;
    if (relatedRequestId !== undefined) {
      const stream = this.byRequest.get(keyOf(relatedRequestId));
      // A JSON answer carries responses only; the rest goes to the standalone stream.
      if (stream && !stream.json) return stream;
    }
    return undefined;
  }

  /** Ends the response carrying `stream` with a `retry` hint, leaving the stream open for resumption. */
  private detach(stream: SessionStream): boolean {
    const res = stream.res;
    if (!res) return false;
    stream.res = undefined;
    this.queue.push(() => {
      if (res.writableEnded) return;
      res.write(encodeSseEvent({ retry: this.options.retryMs }));
      res.end();
    });
    return true;
  }
}
