import type pino from 'pino';
import { ReplaySubject } from '../../../rx/rxjs';
import type { Observable } from '../../../rx/rxjs';
import { TransportError } from '../../../jsonrpc/errors';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/message';
import { encodeMessage } from '../../framing/encode';
import { createFrameInbox } from '../../framing/frame-inbox';
import { createDefaultRequester, socketTarget } from '../default-requester';
import type { HttpAnswer, HttpCall, HttpRequester, HttpRequestSpec } from '../http-requester';
import { MalformedFrame } from '../../transport';
import type { InboundFrame, SendOptions, TransportClose } from '../../transport';
import { SessionNotFoundError } from '../http-errors';
import { childLogger } from '../../../base/logger';
import { addHeaders, lowerCaseHeaders, standardHeadersOf } from './request-headers';
import { SseStreams } from './sse-streams';
import { keyOf } from '../../http/request-keys';
import type { SseHost } from './sse-streams';
import type { StreamableHttpClientTransport, StreamableHttpClientTransportOptions } from './transport-options';
import { ModernCalls } from './modern-calls';
import { DEFAULT_MAX_MESSAGE_LENGTH, readAnswer } from './answers';
import type { AnswerHost } from './answers';
import { ClientAuth } from './auth';
import { PostAcknowledgements } from './post-acknowledgements';
import { deleteSession } from './delete-session';
import { SessionRenewals } from './session-renewal';
import { OwedAnswers, parseEvent, unreachableError } from './owed-answers';
import type { Reconnection, RenewalHost } from './session-renewal';

/** One message or a batch, as `send` takes it. */
type Outgoing = JsonRpcMessage | readonly JsonRpcMessage[];

export { encodeHeaderValue } from './request-headers';
export type { ReconnectOptions } from './sse-streams';
export { STREAM_BROKEN } from './modern-calls';
export { REQUEST_OUTCOME_UNKNOWN } from './session-renewal';
export type { Reconnection } from './session-renewal';
export type { StreamableHttpClientTransport, StreamableHttpClientTransportOptions } from './transport-options';

const POST_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

const isRequest = (m: JsonRpcMessage): m is JsonRpcMessage & { id: RequestId; method: string } =>
  'method' in m && 'id' in m;

/**
 * Creates the client side of the Streamable HTTP transport (spec: Transports → Streamable HTTP).
 *
 * - Each `send` is one POST with `Accept: application/json, text/event-stream` and the extra
 *   headers of its `SendOptions`. POSTs run concurrently, except that a POST waits until earlier
 *   notification and response POSTs were acknowledged (so `notifications/initialized` reaches the
 *   server before later requests); order across concurrent requests is not kept.
 * - Handshake revisions (up to 2025-11-25): the session id and, once set, `MCP-Protocol-Version`
 *   go on every request. After `notifications/initialized` is accepted the standalone GET stream
 *   opens (405, 404 and other refusals of that first GET only mean there is none). A stream that
 *   ends before the responses it owes (or the GET stream, at any time) is resumed with GET +
 *   `Last-Event-ID` after the server's `retry:` delay (or the reconnect backoff), up to
 *   `maxRetries` consecutive failures. When the last of them failed before any HTTP answer
 *   (the server is gone), the transport closes with a `TransportError` naming the last failure,
 *   so every call in flight fails at once.
 * - 404 to a request that carried a session id: by default (`reinitialize`) a new session starts
 *   and `reconnected$` emits; the POSTs refused go again, requests a lost stream owed fail with
 *   {@link REQUEST_OUTCOME_UNKNOWN}. Else, it closes with {@link SessionNotFoundError}.
 * - Modern revisions (a request whose `_meta` names its revision, 2026-07-28 on): no session
 *   id, no GET, no resumption. The POST carries `MCP-Protocol-Version` from the `_meta`,
 *   `Mcp-Method`, and `Mcp-Name` for `tools/call`, `prompts/get` and `resources/read`. A response
 *   stream that ends before its response fails the request with -32000 and `data.streamBroken`,
 *   for the caller to re-issue it; `notifications/cancelled` for such a request closes its stream
 *   instead of being sent.
 * - An HTTP error to a POST that carried requests fails them with an error response (the server's
 *   JSON-RPC error, its `data` kept, when it sent one, else -32603 naming the status;
 *   `data.httpStatus`). A POST that cannot be made (network failure) closes with a `TransportError`.
 * - Requests go through a keep-alive undici pool of the transport's own on Node (through
 *   `node:http`/`node:https` when `options.agent` is given), through `globalThis.fetch` elsewhere
 *   (a browser), or through `options.fetch`. A GET or DELETE cut before any answer on a reused
 *   connection is sent again on another one; a POST never is.
 * - A message larger than `maxMessageLength` characters (a JSON body, or one SSE event's data;
 *   default 32 Mi) is not read further: the requests it answered fail with -32000 and
 *   `data.responseTooLarge`, and the transport goes on.
 * - `close()` aborts everything in flight, sends DELETE for a session (its answer is not awaited
 *   beyond 2 s), then emits `closed$`. Sending after close is a no-op.
 *
 * @example
 * const transport = createStreamableHttpClientTransport({ url: 'http://127.0.0.1:3000/mcp' });
 */
export function createStreamableHttpClientTransport(
  options: StreamableHttpClientTransportOptions,
): StreamableHttpClientTransport {
  return new StreamableHttpClient(options);
}

/** The transport; its SSE reading and resumption live in `SseStreams` (client-sse-streams.ts). */
class StreamableHttpClient implements StreamableHttpClientTransport, SseHost, AnswerHost, RenewalHost {
  readonly incoming$: Observable<InboundFrame>;
  readonly closed$: Observable<TransportClose>;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  readonly url: URL;
  readonly log: pino.Logger;
  readonly inbox = createFrameInbox<InboundFrame>();
  readonly streams: SseStreams;
  private readonly closedSubject = new ReplaySubject<TransportClose>(1);
  private readonly requester: HttpRequester;
  /** `options.headers` with lower-case names, made once: every request starts from a copy. */
  private readonly ownHeaders: Readonly<Record<string, string>>;
  /** Calls in flight (and bodies being read), aborted together on close; each has its own abort. */
  private readonly inFlight = new Set<HttpCall>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Requests sent whose response has not arrived on any stream. */
  readonly pending = new Set<string>();
  readonly maxMessageLength: number;
  readonly onHttpSseServer: StreamableHttpClientTransportOptions['onHttpSseServer'];
  private readonly authorization: ClientAuth | undefined;
  private readonly modern = new ModernCalls();
  closing = false;
  /** Whether the last handshake-defining message was modern: then notifications are not POSTed. */
  private modernMode = false;
  private initializeSent = false;
  /** Acknowledgements of earlier notification/response POSTs, which later POSTs wait for. */
  private readonly acknowledgements = new PostAcknowledgements();
  private readonly renewals = new SessionRenewals(this);
  private readonly owed: OwedAnswers;

  constructor(readonly options: StreamableHttpClientTransportOptions) {
    const target = socketTarget(new URL(options.url), options.socketPath);
    this.url = target.url;
    this.requester = createDefaultRequester(this.url, { ...options, socketPath: target.socketPath });
    this.ownHeaders = lowerCaseHeaders(options.headers);
    this.log = childLogger(options.logger, { component: 'transport', transport: 'streamable-http-client' });
    this.sessionId = options.sessionId;
    this.maxMessageLength = options.maxMessageLength ?? DEFAULT_MAX_MESSAGE_LENGTH;
    this.onHttpSseServer = options.onHttpSseServer;
    this.authorization = options.auth && new ClientAuth(options.auth, this);
    this.incoming$ = this.inbox.values$;
    this.closed$ = this.closedSubject.asObservable();
    this.streams = new SseStreams(this, options.reconnect ?? {});
    this.owed = new OwedAnswers(this, this.modern);
  }

  get reconnected$(): Observable<Reconnection> {
    return this.renewals.reconnected$;
  }

  setProtocolVersion(revision: string): void {
    this.protocolVersion = revision;
  }

  send(message: Outgoing, sendOptions?: SendOptions): void {
    if (this.closing) {
      this.log.debug('send after close ignored');
      return;
    }
    if (this.log.isLevelEnabled('trace')) this.log.trace({ message }, 'message out');
    if (!Array.isArray(message) && this.absorbCancellation(message as JsonRpcMessage)) return;
    const posted = this.post(message, lowerCaseHeaders(sendOptions?.headers), encodeMessage(message));
    // Sent as a new session opens (restoring what the lost one had): the requests it refused wait for it.
    if (this.renewals.restoring) this.renewals.restoring.push(posted);
  }

  close(reason = 'closed locally'): void {
    this.finish(reason, undefined, true);
  }

  /** Starts an HTTP call that close aborts. */
  call(spec: HttpRequestSpec): HttpCall {
    const made = this.requester.request(spec);
    this.inFlight.add(made);
    return made;
  }

  settled(made: HttpCall): void {
    this.inFlight.delete(made);
  }

  /** The headers of a handshake-revision request: ours, the session id and the protocol version. */
  headers(extra: Readonly<Record<string, string>>): Record<string, string> {
    return this.withSession(addHeaders(addHeaders({}, this.ownHeaders), extra));
  }

  plainHeaders(extra: Readonly<Record<string, string>>): Record<string, string> {
    const all = addHeaders(addHeaders({}, this.ownHeaders), extra);
    if (this.authorization?.bearer !== undefined) all.authorization = this.authorization.bearer;
    return all;
  }

  reopenStandalone(): Promise<void> {
    if (this.options.openStandaloneStream === false) return Promise.resolve();
    return this.streams.openStandalone(this.options.standaloneStreamWaitMs ?? 2000);
  }

  /** Adds the session id, the protocol version and the credentials of a handshake-revision request. */
  private withSession(all: Record<string, string>): Record<string, string> {
    if (this.sessionId !== undefined) all['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== undefined) all['mcp-protocol-version'] = this.protocolVersion;
    if (this.authorization?.bearer !== undefined) all.authorization = this.authorization.bearer;
    return all;
  }

  emit(frame: InboundFrame): void {
    if (this.closing) return;
    if (this.log.isLevelEnabled('trace')) this.log.trace({ message: frame }, 'message in');
    if (Array.isArray(frame)) for (const item of frame as unknown[]) this.answered(item);
    else this.answered(frame);
    this.inbox.push(frame);
  }

  /** A response arrived: its request is no longer owed. */
  private answered(item: unknown): void {
    if (typeof item !== 'object' || item === null || 'method' in item) return;
    const id = (item as { id?: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const key = keyOf(id);
    this.pending.delete(key);
    this.modern.forget(key);
  }

  /** Parses and emits one message's text; returns the frame, or undefined when it was not JSON. */
  emitText(text: string): InboundFrame | undefined {
    const frame = parseEvent(text, this.log);
    this.emit(frame);
    return frame instanceof MalformedFrame ? undefined : frame;
  }

  later(ms: number, job: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closing) job();
    }, ms);
    this.timers.add(timer);
  }

  unreachable(cause: unknown, attempts: number): void {
    this.finish('the server stopped answering', unreachableError(this.url, cause, attempts), false);
  }

  /** The server answered 404 to `gone`; a stream of it owed `owed` (see `SessionRenewals.lost`). */
  sessionGone(gone: string, owed?: ReadonlySet<string>): void {
    if (this.options.reinitialize === false) this.failSession(gone);
    else this.renewals.lost(gone, owed);
  }
  outcomeUnknown(keys: ReadonlySet<string>, gone: string): void {
    this.renewals.outcomeUnknown(keys, gone);
  }
  /** Closes with `SessionNotFoundError`: the session is gone, and no new one is started. */
  failSession(gone: string): void {
    this.log.warn({ sessionId: gone, status: 404 }, 'the server no longer knows the session: it restarted or ended it');
    this.finish('the server ended or forgot the session (HTTP 404)', new SessionNotFoundError(gone), false);
  }

  /**
   * `notifications/cancelled` in a modern revision: closing the request's response stream is
   * the cancellation (Transports → Streamable HTTP → Cancellation), and such notifications are not
   * POSTed at all. True when the message was absorbed here.
   */
  private absorbCancellation(message: JsonRpcMessage): boolean {
    if (!('method' in message) || 'id' in message || message.method !== 'notifications/cancelled') return false;
    const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if ((typeof requestId === 'string' || typeof requestId === 'number') && this.modern.cancel(keyOf(requestId))) {
      this.pending.delete(keyOf(requestId));
      this.log.debug({ requestId }, 'modern request cancelled: its response stream is closed');
      return true;
    }
    return this.modernMode;
  }

  private postHeaders(
    list: readonly JsonRpcMessage[],
    extra: Record<string, string>,
  ): { headers: Record<string, string>; modern: boolean } {
    const standard = list.length === 1 ? standardHeadersOf(list[0] as JsonRpcMessage) : undefined;
    const headers = addHeaders(addHeaders(addHeaders({}, this.ownHeaders), POST_HEADERS), extra);
    if (standard === undefined) return { headers: this.withSession(headers), modern: false };
    // Modern revisions have no sessions: no session id, and the revision is the request's own.
    return { headers: addHeaders(headers, standard), modern: true };
  }

  private async post(message: Outgoing, extra: Record<string, string>, body = encodeMessage(message)): Promise<void> {
    // A new session is being started: what follows goes on it.
    if (this.renewals.renewing && !(await this.renewals.renewing)) return;
    const list = Array.isArray(message) ? (message as JsonRpcMessage[]) : [message as JsonRpcMessage];
    const requests = list.filter(isRequest);
    const { headers, modern } = this.postHeaders(list, extra);
    const firstInitialize = !this.initializeSent && requests.length === 1 && requests[0]?.method === 'initialize';
    if (modern) this.modernMode = true;
    else if (requests.some((r) => r.method === 'initialize')) {
      this.modernMode = false;
      this.initializeSent = true;
      this.renewals.remember(requests.find((r) => r.method === 'initialize') as JsonRpcMessage);
    }
    for (const r of requests) this.pending.add(keyOf(r.id));
    // An earlier acknowledgement still awaited: when none is, the POST goes out at once.
    const before = this.acknowledgements.awaited();
    const done = requests.length === 0 ? this.acknowledgements.count() : () => undefined;
    const tracked = modern ? this.modern.track(keyOf((requests[0] as { id: RequestId }).id)) : undefined;
    let made: HttpCall | undefined;
    try {
      if (before) await before;
      if (this.closing || tracked?.cancelled) return;
      if (this.authorization) await this.authorization.authorize(headers);
      if (this.closing || tracked?.cancelled) return;
      made = this.call({ method: 'POST', headers, body });
      if (tracked) tracked.made = made;
      const response = await made.answer;
      if (this.authorization && (response.status === 401 || response.status === 403)) {
        const verdict = await this.authorization.reauthorize(response, headers, requests);
        if (verdict !== 'refused') {
          done();
          // The server refused the POST before running anything: sending it again is safe.
          if (verdict === 'retry' && !this.closing) void this.post(message, extra);
          return;
        }
      } else if (this.authorization && response.ok) this.authorization.accepted();
      if (!modern) this.adoptSession(response, list, done);
      else done();
      if (this.closing) return;
      this.log.debug({ status: response.status, requests: requests.length }, 'POST answered');
      const session = headers['mcp-session-id'];
      // True only for a 404 to a POST that carried a session: that session is gone.
      const gone = await readAnswer(this, response, { list, requests, firstInitialize, modern, session });
      if (gone && session !== undefined) {
        const again = (messages: JsonRpcMessage | JsonRpcMessage[]) => void this.post(messages, extra);
        await this.renewals.refused(session, requests, again, this.options.reinitialize !== false);
      }
    } catch (error) {
      done();
      if (this.closing || this.wasCancelled(requests, modern)) return;
      this.log.warn({ err: error }, 'POST failed');
      // A connection cut under the POST (reset, broken pipe) fails only its requests: the server
      // may have read them, so they are not sent again (#13), and the transport goes on.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || code === 'EPIPE') {
        if (modern) this.brokenStream(requests.map((r) => r.id));
        else for (const r of requests) this.owed.cutRequest(r.id, code);
        return;
      }
      this.finish(
        'POST failed',
        new TransportError(`POST to ${this.url.href} failed: ${(error as Error).message}`, { cause: error }),
        false,
      );
    } finally {
      if (made) this.settled(made);
    }
  }

  private wasCancelled(requests: ReadonlyArray<{ id: RequestId }>, modern: boolean): boolean {
    return modern && requests.length === 1 && !this.pending.has(keyOf((requests[0] as { id: RequestId }).id));
  }

  /** Handshake revisions: keeps the session the server names; opens the standalone stream after `initialized`. */
  private adoptSession(response: HttpAnswer, list: readonly JsonRpcMessage[], done: () => void): void {
    const assigned = response.header('mcp-session-id');
    if (assigned !== undefined && this.sessionId === undefined) this.sessionId = assigned;
    const initialized = list.some((m) => 'method' in m && m.method === 'notifications/initialized');
    if (!response.ok || !initialized || this.options.openStandaloneStream === false) {
      done();
      return;
    }
    // Later POSTs wait until the GET stream is answered (within a bound), so that the server sees
    // the standalone stream open before the requests that follow the handshake.
    void this.streams.openStandalone(this.options.standaloneStreamWaitMs ?? 2000).then(done);
  }

  failOwed(keys: ReadonlySet<string>, why: string, data?: Readonly<Record<string, unknown>>): void {
    this.owed.failOwed(keys, why, data);
  }
  brokenStream(ids: readonly RequestId[]): void {
    this.owed.brokenStream(ids);
  }
  failRequests(ids: readonly RequestId[], status: number, body: string): void {
    this.owed.failRequests(ids, status, body);
  }
  failNotMcp(ids: readonly RequestId[], status: number, type: string, why?: string): void {
    this.owed.failNotMcp(ids, status, type, why);
  }

  finish(reason: string, error: Error | undefined, terminate: boolean): void {
    if (this.closing) return;
    this.closing = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const made of this.inFlight) made.abort();
    this.inFlight.clear();
    const done = (): void => {
      this.renewals.complete();
      this.requester.close();
      this.log.info({ reason }, 'transport closed');
      this.closedSubject.next(error ? { reason, error } : { reason });
      this.closedSubject.complete();
      this.inbox.complete();
    };
    if (!terminate || this.sessionId === undefined) {
      done();
      return;
    }
    deleteSession(this.requester, this.headers({}), this.log, done);
  }
}
