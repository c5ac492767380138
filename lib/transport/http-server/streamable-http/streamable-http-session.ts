import type { HttpResponseLike } from '../../http/http-exchange';
import type { IncomingHttpHeaders } from 'node:http';
import { ReplaySubject } from '../../../rx/rxjs';
import type { Observable } from '../../../rx/rxjs';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/message';
import { createFrameInbox } from '../../framing/frame-inbox';
import type { ImpliedInitialize, InboundFrame, SendOptions, Transport, TransportClose } from '../../transport';
import { resumeStream } from './resume-stream';
import type { SessionOptions } from './session-options';
import { answerError, responseIds } from './session-stream';
import { keyOf } from '../../http/request-keys';
import type { Payload } from './session-stream';
import { SessionStreams } from './session-streams';
import type { StreamsHost } from './session-streams';

export type { SessionOptions } from './session-options';

/**
 * The server side of one Streamable HTTP session (or, in sessionless mode, of one POST), as handed
 * to `onSession`. Besides the {@link Transport} contract it lets a handler close the HTTP
 * connection of a request's SSE stream early, so that the client resumes it (2025-11-25 polling).
 */
export interface StreamableHttpServerTransport extends Transport {
  /** The `Mcp-Session-Id` of the session; `undefined` in sessionless mode. */
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
    res: HttpResponseLike,
    frame: JsonRpcMessage | JsonRpcMessage[],
    json: boolean,
    headers: Record<string, string>,
    requestHeaders?: IncomingHttpHeaders,
  ): void;
  /** Serves a GET: the standalone stream, or the resumption of a stream after `lastEventId`. */
  get(res: HttpResponseLike, lastEventId: string | undefined, headers: Record<string, string>): void;
  readonly closed: boolean;
}

/** Creates one session. Internal to the transport layer: the handler owns it. */
export function createSession(options: SessionOptions): Session {
  return new ServerSession(options);
}

/** A session: its inbound frames, its streams (see {@link SessionStreams}) and its closing. */
class ServerSession implements Session, StreamsHost {
  readonly transport: SessionTransport;
  closed = false;
  readonly inbox = createFrameInbox<InboundFrame>();
  readonly closedSubject = new ReplaySubject<TransportClose>(1);
  readonly streams: SessionStreams;

  constructor(readonly options: SessionOptions) {
    const { sessionId, eventStore } = options;
    // Stream ids name the session so a Last-Event-ID from another session is refused. Without a
    // session id they need to be unique only where an event store keeps them.
    const prefix = `${sessionId ?? (eventStore ? globalThis.crypto.randomUUID() : 'sessionless')}~`;
    this.streams = new SessionStreams(prefix, options, this);
    this.transport = new SessionTransport(this);
  }

  send(message: Payload, sendOptions?: SendOptions): void {
    const log = this.options.logger;
    if (this.closed) {
      log.debug('send after close ignored');
      return;
    }
    if (log.isLevelEnabled('trace')) log.trace({ message }, 'message out');
    this.streams.dispatch(message, responseIds(message), sendOptions?.relatedRequestId, sendOptions?.droppable);
  }

  close(reason = 'closed locally'): void {
    if (this.closed) return;
    this.closed = true;
    this.streams.closeAll(reason);
    const { logger: log, eventStore } = this.options;
    log.info({ reason }, 'session closed');
    // Nobody can resume this session's streams now: its events go (#13).
    if (eventStore?.forgetSession)
      void Promise.resolve(eventStore.forgetSession(this.streams.prefix)).catch((error: unknown) =>
        log.error({ err: error }, 'event store failed to forget a session'),
      );
    const event = { reason };
    // closed$ first, so that a connection learns the reason before incoming$ completes.
    this.closedSubject.next(event);
    this.closedSubject.complete();
    this.inbox.complete();
    this.options.onClose(event);
  }

  post(
    res: HttpResponseLike,
    frame: JsonRpcMessage | JsonRpcMessage[],
    json: boolean,
    headers: Record<string, string>,
    requestHeaders?: IncomingHttpHeaders,
  ): void {
    const list = Array.isArray(frame) ? frame : [frame];
    const requests = list.filter((m) => 'method' in m && 'id' in m) as Array<{ id: RequestId }>;
    const keys = requests.map((r) => keyOf(r.id));
    const byRequest = this.streams.byRequest;
    if (keys.some((key) => byRequest.has(key)) || (keys.length > 1 && new Set(keys).size !== keys.length)) {
      answerError(res, 409, headers, -32600, 'Invalid request: a request with this id is already in flight');
      return;
    }
    if (keys.length === 0) {
      res.writeHead(202, headers).end();
      this.inbox.push(frame);
      if (this.options.sessionId === undefined) setTimeout(() => this.close('request complete'), 0);
      return;
    }
    const stream = this.streams.openPost(res, keys, Array.isArray(frame), json, headers, requestHeaders);
    const log = this.options.logger;
    if (log.isLevelEnabled('trace')) log.trace({ message: frame }, 'message in');
    this.streams.delivering = stream;
    try {
      this.inbox.push(frame);
    } finally {
      this.streams.delivering = undefined;
    }
  }

  get(res: HttpResponseLike, lastEventId: string | undefined, headers: Record<string, string>): void {
    if (lastEventId === undefined || !this.options.eventStore) {
      this.streams.openStandalone(res, headers);
      return;
    }
    this.streams.queue.push(() => resumeStream(this.streams, this, res, lastEventId, headers));
  }
}

/**
 * The transport a session hands to `onSession`. Its state is plain data properties, no getters:
 * an object literal whose accessor closes over fresh state gets a V8 map of its own, whose
 * transitions keep the session alive through minor collections (one session per sessionless POST).
 */
class SessionTransport implements StreamableHttpServerTransport {
  readonly incoming$: Observable<InboundFrame>;
  readonly closed$: Observable<TransportClose>;
  readonly sessionId: string | undefined;
  readonly impliedInitialize: ImpliedInitialize | undefined;
  protocolVersion: string | undefined = undefined;

  constructor(private readonly session: ServerSession) {
    this.incoming$ = session.inbox.values$;
    this.closed$ = session.closedSubject.asObservable();
    this.sessionId = session.options.sessionId;
    this.impliedInitialize = session.options.impliedInitialize;
  }

  send(message: Payload, sendOptions?: SendOptions): void {
    this.session.send(message, sendOptions);
  }

  close(reason?: string): void {
    this.session.close(reason);
  }

  setProtocolVersion(revision: string): void {
    this.protocolVersion = revision;
  }

  closeRequestStream(requestId: RequestId): boolean {
    return this.session.streams.closeRequestStream(requestId);
  }

  closeStandaloneStream(): boolean {
    return this.session.streams.closeStandaloneStream();
  }

  requestHeaders(requestId: RequestId): IncomingHttpHeaders | undefined {
    return this.session.streams.byRequest.get(keyOf(requestId))?.requestHeaders;
  }
}
