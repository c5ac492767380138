import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type pino from 'pino';
import { ReplaySubject } from 'rxjs';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { encodeSseEvent } from '../framing/sse';
import type { InboundFrame, SendOptions, Transport, TransportClose } from '../transport';
import type { EventStore } from './event-store';

/**
 * The server side of one Streamable HTTP session (or, in stateless mode, of one POST), as handed
 * to `onSession`. Besides the {@link Transport} contract it lets a handler close the HTTP
 * connection of a request's SSE stream early, so that the client resumes it (2025-11-25 polling).
 */
export interface StreamableHttpServerTransport extends Transport {
  /** The `Mcp-Session-Id` of the session; `undefined` in stateless mode. */
  readonly sessionId: string | undefined;
  /** The revision the connection negotiated, once `setProtocolVersion` was called. */
  readonly protocolVersion: string | undefined;
  /**
   * Ends the HTTP response that carries the SSE stream of the request `requestId`, without ending
   * the stream (spec 2025-11-25: Transports → polling): the request goes on, and what it sends
   * next is kept in the event store until the client resumes with `GET` + `Last-Event-ID` after the
   * `retry` delay. Without an event store those messages are lost, so it is refused. Returns whether
   * a connection was closed.
   */
  closeRequestStream(requestId: RequestId): boolean;
  /** The same for the standalone GET stream; the client reconnects to it. */
  closeStandaloneStream(): boolean;
}

/** What the handler needs to build a session. Internal to the transport layer. */
export interface SessionOptions {
  readonly sessionId: string | undefined;
  readonly eventStore: EventStore | undefined;
  readonly retryMs: number;
  readonly maxBufferedBytes: number;
  readonly maxHeldMessages: number;
  /**
   * How long a POST's answer waits to be one JSON body: a response that is the first and last
   * message for its POST answers `application/json`; anything else first, or this much time passing,
   * opens the SSE stream. 0: always SSE at once. Infinity: no deadline.
   */
  readonly jsonWindowMs: number;
  readonly logger: pino.Logger;
  /** Responses with this id are swallowed (the synthetic initialize of stateless mode). */
  readonly swallowResponseId?: string;
  /** Called once, when the session closes. */
  readonly onClose: (close: TransportClose) => void;
  /** Called when the number of open HTTP responses changes. */
  readonly onConnectionsChange: (open: number) => void;
}

/** The handler's grip on a session. Internal to the transport layer. */
export interface Session {
  readonly transport: StreamableHttpServerTransport;
  /**
   * Serves a POST whose body was validated: prepares its answer (a JSON body or an SSE stream,
   * decided when its first message is ready; see `jsonWindowMs`), then delivers the frame.
   * Answers 202 when it carries no request, 409 for a request id that is already in flight.
   * `json` is the handler's `enableJsonResponse`: one JSON body whatever comes first.
   */
  post(
    res: ServerResponse,
    frame: JsonRpcMessage | JsonRpcMessage[],
    json: boolean,
    headers: Record<string, string>,
    requestHeaders?: IncomingHttpHeaders,
  ): void;
  /** Delivers frames that did not come from the client (the synthetic initialize of stateless mode). */
  inject(frame: JsonRpcMessage): void;
  /** Serves a GET: the standalone stream, or the resumption of a stream after `lastEventId`. */
  get(res: ServerResponse, lastEventId: string | undefined, headers: Record<string, string>): void;
  readonly closed: boolean;
}

interface Stream {
  readonly id: string;
  res: ServerResponse | undefined;
  /** Keys of the requests of this POST still waiting for their response. */
  readonly pending: Set<string>;
  /** Set in JSON-response mode: the responses collected so far and whether the POST was a batch. */
  readonly json?: { readonly batch: boolean; readonly responses: JsonRpcMessage[] };
  /** Set while the answer's content type is not decided yet: the headers to answer with. */
  undecided?: { readonly headers: Record<string, string>; timer?: NodeJS.Timeout };
  /** The HTTP headers of the POST, for the handlers of its requests. */
  readonly requestHeaders: IncomingHttpHeaders | undefined;
}

type Payload = JsonRpcMessage | readonly JsonRpcMessage[];

const keyOf = (id: RequestId): string => (typeof id === 'number' ? `n${id}` : `s${id}`);

function isResponse(message: JsonRpcMessage): boolean {
  return !('method' in message);
}

const NO_IDS: ReadonlyArray<RequestId | null> = [];

function responseIds(payload: Payload): ReadonlyArray<RequestId | null> {
  if (!Array.isArray(payload)) {
    const single = payload as JsonRpcMessage;
    return isResponse(single) ? [(single as { id: RequestId | null }).id] : NO_IDS;
  }
  return (payload as readonly JsonRpcMessage[])
    .filter(isResponse)
    .map((message) => (message as { id: RequestId | null }).id);
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
};

/** Creates one session. Internal to the transport layer: the handler owns it. */
export function createSession(options: SessionOptions): Session {
  const { sessionId, eventStore, retryMs, logger: log } = options;
  const inbox = createFrameInbox<InboundFrame>();
  const closed$ = new ReplaySubject<TransportClose>(1);
  // Stream ids name the session so a Last-Event-ID from another session is refused. Without a
  // session id they need to be unique only where an event store keeps them.
  const streamPrefix = `${sessionId ?? (eventStore ? globalThis.crypto.randomUUID() : 'stateless')}~`;
  const standalone: Stream = { id: `${streamPrefix}0`, res: undefined, pending: new Set(), requestHeaders: undefined };
  const streams = new Map<string, Stream>([[standalone.id, standalone]]);
  const byRequest = new Map<string, Stream>();
  // Standalone messages sent while no GET stream is open, delivered to the next plain GET.
  let held: Array<{ readonly eventId: string | undefined; readonly payload: Payload }> = [];
  let streamCount = 0;
  let openResponses = 0;
  let closed = false;
  // The POST whose frame is being delivered: a reply without an id (a refused batch) belongs to it.
  let delivering: Stream | undefined;

  // Writes go through one queue so that an asynchronous event store cannot reorder them.
  let tail: Promise<void> | undefined;
  const serial = (job: () => void | Promise<void>): void => {
    const run = (): void | Promise<void> => {
      try {
        return job();
      } catch (error) {
        log.error({ err: error }, 'stream write failed');
        return undefined;
      }
    };
    if (tail) {
      tail = tail.then(run).catch((error: unknown) => log.error({ err: error }, 'stream write failed'));
      return;
    }
    const result = run();
    if (result instanceof Promise) {
      const mine: Promise<void> = result
        .catch((error: unknown) => log.error({ err: error }, 'event store failed'))
        .finally(() => {
          if (tail === mine) tail = undefined;
        });
      tail = mine;
    }
  };

  const countResponses = (delta: number): void => {
    openResponses += delta;
    options.onConnectionsChange(openResponses);
  };

  const attach = (stream: Stream, res: ServerResponse): void => {
    stream.res = res;
    countResponses(1);
    res.on('close', () => {
      countResponses(-1);
      if (stream.res !== res) return;
      stream.res = undefined;
      if (res.writableFinished) return;
      log.debug({ stream: stream.id }, 'client disconnected from stream');
      // Stateless: nobody can resume, so the work for this POST is abandoned.
      if (sessionId === undefined && !closed) close('client disconnected');
    });
  };

  const openSse = (res: ServerResponse, headers: Record<string, string>): void => {
    res.writeHead(200, { ...SSE_HEADERS, ...headers });
    res.flushHeaders();
  };

  /** Writes one event; `bounded` output (a replay, held messages) is exempt from the slow-reader limit. */
  const writeEvent = (stream: Stream, eventId: string | undefined, data: string, bounded = false): void => {
    const res = stream.res;
    if (!res || res.writableEnded) return;
    res.write(
      encodeSseEvent(eventId === undefined ? { event: 'message', data } : { id: eventId, event: 'message', data }),
    );
    if (!bounded && res.writableLength > options.maxBufferedBytes) {
      // A reader this slow would make us buffer without bound; drop it, it can resume from the store.
      log.warn({ stream: stream.id, buffered: res.writableLength }, 'slow reader: closing its stream');
      stream.res = undefined;
      res.destroy();
    }
  };

  const prime = (stream: Stream): void => {
    if (!eventStore) return;
    serial(() => {
      const stored = eventStore.storeEvent(stream.id, null);
      const write = (eventId: string): void => {
        const res = stream.res;
        if (res && !res.writableEnded) res.write(encodeSseEvent({ id: eventId, retry: retryMs, data: '' }));
      };
      return stored instanceof Promise ? stored.then(write) : write(stored);
    });
  };

  const deliver = (stream: Stream, payload: Payload): void => {
    if (stream.json) {
      stream.json.responses.push(...(Array.isArray(payload) ? payload : [payload as JsonRpcMessage]));
      return;
    }
    const data = JSON.stringify(payload);
    serial(() => {
      const write = (eventId: string | undefined): void => {
        if (stream.res) writeEvent(stream, eventId, data);
        else if (stream === standalone) {
          held.push({ eventId, payload });
          if (held.length > options.maxHeldMessages) {
            held.shift();
            log.warn({ max: options.maxHeldMessages }, 'no GET stream open: oldest held message dropped');
          }
        } else if (!eventStore)
          log.warn({ stream: stream.id }, 'stream has no connection and no event store: message dropped');
      };
      if (!eventStore) return write(undefined);
      const stored = eventStore.storeEvent(stream.id, payload);
      return stored instanceof Promise ? stored.then(write) : write(stored);
    });
  };

  // JSON mode writes its headers at the end; keep the ones the handler asked for until then.
  const pendingHeaders = new WeakMap<Stream, Record<string, string>>();

  const finish = (stream: Stream): void => {
    streams.delete(stream.id);
    serial(() => {
      const res = stream.res;
      if (!res || res.writableEnded) return;
      if (stream.json) {
        const { batch, responses } = stream.json;
        res.writeHead(200, { 'content-type': 'application/json', ...pendingHeaders.get(stream) });
        res.end(JSON.stringify(batch ? responses : responses[0]));
      } else res.end();
    });
    if (sessionId === undefined && streams.size === 1) serial(() => close('request complete'));
  };

  const route = (ids: ReadonlyArray<RequestId | null>, relatedRequestId: RequestId | undefined): Stream | undefined => {
    for (const id of ids) {
      if (id === null) continue;
      const stream = byRequest.get(keyOf(id));
      if (stream) return stream;
    }
    if (ids.length > 0 && ids.every((id) => id === null) && delivering) return delivering;
    if (relatedRequestId !== undefined) {
      const stream = byRequest.get(keyOf(relatedRequestId));
      // A JSON answer carries responses only; the rest goes to the standalone stream.
      if (stream && !stream.json) return stream;
    }
    return undefined;
  };

  function send(message: Payload, sendOptions?: SendOptions): void {
    if (closed) {
      log.debug('send after close ignored');
      return;
    }
    if (options.swallowResponseId !== undefined && !Array.isArray(message)) {
      const single = message as JsonRpcMessage;
      if (isResponse(single) && (single as { id: unknown }).id === options.swallowResponseId) return;
    }
    if (log.isLevelEnabled('trace')) log.trace({ message }, 'message out');
    const ids = responseIds(message);
    const stream = route(ids, sendOptions?.relatedRequestId) ?? standalone;
    if (stream === standalone) {
      deliver(stream, message);
      return;
    }
    if (ids.length > 0 && ids.every((id) => id === null)) {
      // A refusal of the whole POST (a batch the revision does not allow): it answers every request.
      for (const key of stream.pending) byRequest.delete(key);
      stream.pending.clear();
    }
    for (const id of ids) {
      if (id === null) continue;
      const key = keyOf(id);
      if (stream.pending.delete(key)) byRequest.delete(key);
    }
    const last = stream.pending.size === 0;
    if (stream.undecided) {
      if (last) {
        answerJson(stream, message);
        return;
      }
      // Something comes before the response: the answer is a stream.
      openStream(stream);
    }
    deliver(stream, message);
    if (last) finish(stream);
  }

  /**
   * Answers an undecided POST with its one message as an `application/json` body: the same JSON
   * its SSE event would have carried. Spec: Transports → Sending Messages to the Server, 5.
   */
  function answerJson(stream: Stream, message: Payload): void {
    const { headers, timer } = stream.undecided as NonNullable<Stream['undecided']>;
    if (timer) clearTimeout(timer);
    stream.undecided = undefined;
    streams.delete(stream.id);
    const body = JSON.stringify(message);
    serial(() => {
      const res = stream.res;
      if (!res || res.writableEnded) return;
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(body);
    });
    if (sessionId === undefined && streams.size === 1) serial(() => close('request complete'));
  }

  /** Decides an undecided POST's answer for SSE: sends the headers and the priming event. */
  function openStream(stream: Stream): void {
    const undecided = stream.undecided;
    if (!undecided) return;
    if (undecided.timer) clearTimeout(undecided.timer);
    stream.undecided = undefined;
    const res = stream.res;
    if (!res || res.headersSent) return;
    openSse(res, undecided.headers);
    prime(stream);
  }

  function close(reason = 'closed locally'): void {
    if (closed) return;
    closed = true;
    session.closed = true;
    for (const stream of streams.values()) {
      if (stream.undecided?.timer) clearTimeout(stream.undecided.timer);
      const res = stream.res;
      stream.res = undefined;
      if (res && !res.writableEnded) {
        if (res.headersSent) res.end();
        else
          res.writeHead(404, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32000, message: `Session closed: ${reason}` },
            }),
          );
      }
    }
    streams.clear();
    byRequest.clear();
    held = [];
    log.info({ reason }, 'session closed');
    // Nobody can resume this session's streams now: its events go (#13).
    if (eventStore?.forgetSession)
      void Promise.resolve(eventStore.forgetSession(streamPrefix)).catch((error: unknown) =>
        log.error({ err: error }, 'event store failed to forget a session'),
      );
    const event = { reason };
    // closed$ first, so that a connection learns the reason before incoming$ completes.
    closed$.next(event);
    closed$.complete();
    inbox.complete();
    options.onClose(event);
  }

  // Plain data properties, no getters: V8 gives every object literal whose accessor closes over
  // fresh state a map of its own, and the map transitions then keep this whole closure (the
  // session) alive through minor collections; with a session per stateless POST that promoted
  // every session to the old generation and made each scavenge slow.
  const transport: { -readonly [K in keyof StreamableHttpServerTransport]: StreamableHttpServerTransport[K] } = {
    incoming$: inbox.values$,
    closed$: closed$.asObservable(),
    sessionId,
    protocolVersion: undefined,
    send,
    close,
    setProtocolVersion(revision) {
      transport.protocolVersion = revision;
    },
    closeRequestStream(requestId) {
      const stream = byRequest.get(keyOf(requestId));
      if (!stream || !eventStore || stream.json) return false;
      // The client resumes from the priming event: the answer must be a stream.
      openStream(stream);
      return detach(stream);
    },
    closeStandaloneStream() {
      return eventStore !== undefined && detach(standalone);
    },
    requestHeaders: (requestId) => byRequest.get(keyOf(requestId))?.requestHeaders,
  };

  function detach(stream: Stream): boolean {
    const res = stream.res;
    if (!res) return false;
    stream.res = undefined;
    serial(() => {
      if (res.writableEnded) return;
      res.write(encodeSseEvent({ retry: retryMs }));
      res.end();
    });
    return true;
  }

  const session: { -readonly [K in keyof Session]: Session[K] } = {
    transport,
    closed: false,
    inject: (frame) => inbox.push(frame),
    post(res, frame, json, headers, requestHeaders) {
      const list = Array.isArray(frame) ? frame : [frame];
      const requests = list.filter((m) => 'method' in m && 'id' in m) as Array<{ id: RequestId }>;
      const keys = requests.map((r) => keyOf(r.id));
      if (keys.some((key) => byRequest.has(key)) || (keys.length > 1 && new Set(keys).size !== keys.length)) {
        res.writeHead(409, { 'content-type': 'application/json', ...headers }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32600, message: 'Invalid request: a request with this id is already in flight' },
          }),
        );
        return;
      }
      if (keys.length === 0) {
        res.writeHead(202, headers).end();
        inbox.push(frame);
        if (sessionId === undefined) setImmediate(() => close('request complete'));
        return;
      }
      const stream: Stream = {
        id: `${streamPrefix}${++streamCount}`,
        res: undefined,
        pending: new Set(keys),
        ...(json ? { json: { batch: Array.isArray(frame), responses: [] } } : {}),
        requestHeaders,
      };
      streams.set(stream.id, stream);
      for (const key of keys) byRequest.set(key, stream);
      attach(stream, res);
      if (json) pendingHeaders.set(stream, headers);
      else if (options.jsonWindowMs > 0) {
        stream.undecided = { headers };
        if (Number.isFinite(options.jsonWindowMs)) {
          const timer = setTimeout(() => openStream(stream), options.jsonWindowMs);
          timer.unref();
          stream.undecided.timer = timer;
        }
      } else {
        openSse(res, headers);
        prime(stream);
      }
      if (log.isLevelEnabled('trace')) log.trace({ message: frame }, 'message in');
      delivering = stream;
      try {
        inbox.push(frame);
      } finally {
        delivering = undefined;
      }
    },
    get(res, lastEventId, headers) {
      if (lastEventId === undefined || !eventStore) {
        if (standalone.res) {
          res.writeHead(409, { 'content-type': 'application/json', ...headers }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32000, message: 'Conflict: a GET stream is already open for this session' },
            }),
          );
          return;
        }
        openSse(res, headers);
        attach(standalone, res);
        prime(standalone);
        const queued = held;
        held = [];
        serial(() => {
          for (const { eventId, payload } of queued) writeEvent(standalone, eventId, JSON.stringify(payload), true);
        });
        return;
      }
      serial(() => resume(res, lastEventId, headers));
    },
  };
  return session;

  function resume(res: ServerResponse, lastEventId: string, headers: Record<string, string>): void | Promise<void> {
    const replayed: Array<{ eventId: string; payload: Payload }> = [];
    const replay = (eventStore as EventStore).replayAfter(lastEventId, (eventId, payload) =>
      replayed.push({ eventId, payload }),
    );
    const finishResume = (streamId: string | undefined): void => {
      if (closed) return;
      if (streamId === undefined || !streamId.startsWith(streamPrefix)) {
        res.writeHead(400, { 'content-type': 'application/json', ...headers }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32000, message: 'Bad Request: unknown Last-Event-ID' },
          }),
        );
        return;
      }
      openSse(res, headers);
      const live = streams.get(streamId);
      // The resumed stream replaces its previous connection, if one is somehow still open.
      if (live?.res) live.res.end();
      const target: Stream = live ?? { id: streamId, res: undefined, pending: new Set(), requestHeaders: undefined };
      attach(target, res);
      if (target === standalone) held = [];
      for (const { eventId, payload } of replayed) writeEvent(target, eventId, JSON.stringify(payload), true);
      log.debug({ stream: streamId, replayed: replayed.length }, 'stream resumed');
      // A stream that already ended has nothing more to say.
      if (!live && !res.writableEnded) res.end();
    };
    return replay instanceof Promise ? replay.then(finishResume) : finishResume(replay);
  }
}
