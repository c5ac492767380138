import type pino from 'pino';
import type { Agent as HttpAgent } from 'node:http';
import { ReplaySubject } from 'rxjs';
import { ErrorCode, TransportError } from '../../jsonrpc/errors';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { createSseParser } from '../framing/sse';
import { createFetchRequester, createNodeRequester } from './http-requester';
import type { HttpAnswer, HttpCall, HttpRequestSpec } from './http-requester';
import { MalformedFrame } from '../transport';
import type { InboundFrame, Transport, TransportClose } from '../transport';
import { SessionNotFoundError } from './http-errors';
import { childLogger } from '../../jsonrpc/logger';

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

/** Options of {@link createStreamableHttpClientTransport}. */
export interface StreamableHttpClientTransportOptions {
  /** The MCP endpoint, used exactly as given. */
  readonly url: string | URL;
  /** Sent with every request (for example `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A fetch to send the requests with: wrap one to add auth, tracing or a proxy. Without it the
   * transport uses `node:http`/`node:https` with a keep-alive agent of its own (for `http:` and
   * `https:` URLs); pass `fetch: globalThis.fetch` to use the global fetch instead.
   */
  readonly fetch?: typeof fetch;
  /**
   * The agent to send through when no `fetch` is given: an `https.Agent` with your TLS settings (a
   * private CA, a client certificate), a proxy agent, or connection limits. It is left open when
   * the transport closes. Default: a keep-alive agent of the transport's own, closed with it.
   * (The HTTP+SSE fallback of `createHttpClientTransport` goes through fetch and does not use it.)
   */
  readonly agent?: HttpAgent;
  readonly reconnect?: ReconnectOptions;
  /** Join an existing session instead of waiting for the initialize answer to name one. */
  readonly sessionId?: string;
  /** Open the standalone GET stream once `notifications/initialized` is accepted. Default true. */
  readonly openStandaloneStream?: boolean;
  /** Requests, status codes and reconnects at debug, peer mistakes at warn, messages at trace. Silent by default. */
  readonly logger?: pino.Logger;
  /**
   * Called instead of failing when the very first POST (an `initialize`, before any session) is
   * refused with 400, 404 or 405: the backwards-compatibility probe. The transport then stays
   * silent; the caller takes over (see `createHttpClientTransport`).
   */
  readonly onLegacyServer?: (initialize: JsonRpcMessage, status: number) => void;
}

/** The client side of Streamable HTTP. */
export interface StreamableHttpClientTransport extends Transport {
  /** The session the server assigned (from the initialize answer), if any. */
  readonly sessionId: string | undefined;
  /** The revision sent in `MCP-Protocol-Version`, once the connection set it. */
  readonly protocolVersion: string | undefined;
}

const POST_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
/** How long close waits for the answer to its DELETE. */
const DELETE_TIMEOUT_MS = 2000;

const keyOf = (id: RequestId): string => (typeof id === 'number' ? `n${id}` : `s${id}`);
const isRequest = (m: JsonRpcMessage): m is JsonRpcMessage & { id: RequestId; method: string } => 'method' in m && 'id' in m;

/**
 * Creates the client side of the Streamable HTTP transport (spec: Transports → Streamable HTTP).
 *
 * - Each `send` is one POST with `Accept: application/json, text/event-stream`, the session id
 *   and, once set, `MCP-Protocol-Version`. POSTs run concurrently, except that a POST waits until
 *   earlier notification and response POSTs were acknowledged (so `notifications/initialized`
 *   reaches the server before later requests); order across concurrent requests is not kept.
 * - Requests go through `node:http`/`node:https` on a keep-alive agent of the transport's own
 *   (its connections are closed with it), or through `options.fetch` when one is given. A request
 *   cut before any answer on a reused keep-alive connection is sent again on another one.
 * - Answers may be JSON or SSE. A 2xx body in answer to notifications only is ignored.
 * - After `notifications/initialized` is accepted it opens the standalone GET stream; 405, 404
 *   and other refusals of that first GET only mean there is none.
 * - A stream that ends before the responses it owes (or the GET stream, at any time) is resumed
 *   with GET + `Last-Event-ID` after the server's `retry:` delay (or the reconnect backoff), up to
 *   `maxRetries` consecutive failures.
 * - An HTTP error to a POST that carried requests fails those requests with an error response
 *   (the server's JSON-RPC error when it sent one, else -32603 naming the status; `data.httpStatus`).
 * - 404 to a request that carried a session id: closes with {@link SessionNotFoundError}; connect
 *   again with a new transport to start a new session. A POST that cannot be made (network
 *   failure) closes with a `TransportError`.
 * - `close()` aborts everything in flight, sends DELETE for the session (its answer is not
 *   awaited beyond 2 s), then emits `closed$`. Sending after close is a no-op.
 *
 * @example
 * const transport = createStreamableHttpClientTransport({ url: 'http://127.0.0.1:3000/mcp' });
 */
export function createStreamableHttpClientTransport(options: StreamableHttpClientTransportOptions): StreamableHttpClientTransport {
  const url = new URL(options.url);
  const requester =
    options.fetch === undefined && (url.protocol === 'http:' || url.protocol === 'https:')
      ? createNodeRequester(url, options.agent)
      : createFetchRequester(url, options.fetch ?? fetch);
  const log = childLogger(options.logger, { component: 'transport', transport: 'streamable-http-client' });
  const initialDelayMs = options.reconnect?.initialDelayMs ?? 1000;
  const maxDelayMs = options.reconnect?.maxDelayMs ?? 30_000;
  const growFactor = options.reconnect?.growFactor ?? 1.5;
  const maxRetries = options.reconnect?.maxRetries ?? 2;
  const inbox = createFrameInbox<InboundFrame>();
  const closed$ = new ReplaySubject<TransportClose>(1);
  // Requests in flight (and bodies being read), aborted together on close. Each has its own abort:
  // a single shared signal would collect an abort listener per fetch, which fetch only drops when
  // the request is garbage collected.
  const inFlight = new Set<HttpCall>();
  const call = (spec: HttpRequestSpec): HttpCall => {
    const made = requester.request(spec);
    inFlight.add(made);
    return made;
  };
  const timers = new Set<NodeJS.Timeout>();
  let sessionId = options.sessionId;
  let protocolVersion: string | undefined;
  let closing = false;
  let firstPost = true;
  // Acknowledgements of earlier notification/response POSTs, which later POSTs wait for.
  let acknowledged: Promise<void> = Promise.resolve();
  let unacknowledged = 0;

  const headers = (extra: Readonly<Record<string, string>>): Record<string, string> => {
    const all: Record<string, string> = { ...options.headers, ...extra };
    if (sessionId !== undefined) all['mcp-session-id'] = sessionId;
    if (protocolVersion !== undefined) all['mcp-protocol-version'] = protocolVersion;
    return all;
  };

  const emit = (frame: InboundFrame): void => {
    if (closing) return;
    if (log.isLevelEnabled('trace')) log.trace({ message: frame }, 'message in');
    inbox.push(frame);
  };

  const emitText = (text: string): InboundFrame | undefined => {
    let frame: unknown;
    try {
      frame = JSON.parse(text) as unknown;
    } catch (error) {
      log.warn({ reason: (error as Error).message }, 'server sent an event that is not JSON');
      emit(new MalformedFrame(text.slice(0, 1000), (error as Error).message));
      return undefined;
    }
    emit(frame);
    return frame;
  };

  /** Fails the requests of a POST the server refused, so their callers hear about it at once. */
  const failRequests = (ids: readonly RequestId[], status: number, body: string): void => {
    let error: { code: number; message: string } | undefined;
    try {
      const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
      if (typeof parsed.error?.code === 'number' && typeof parsed.error.message === 'string') {
        error = { code: parsed.error.code, message: parsed.error.message };
      }
    } catch {
      // Not JSON: the status says enough.
    }
    for (const id of ids) {
      emit({
        jsonrpc: '2.0',
        id,
        error: {
          code: error?.code ?? ErrorCode.InternalError,
          message: `HTTP ${status}${error ? `: ${error.message}` : ''}`,
          data: { httpStatus: status },
        },
      });
    }
  };

  const later = (ms: number, job: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closing) job();
    }, ms);
    timers.add(timer);
  };

  const backoff = (attempt: number): number => Math.min(initialDelayMs * growFactor ** attempt, maxDelayMs);

  /**
   * Reads an SSE answer, emitting its messages and crossing off the responses in `owed`. Resolves
   * with the last event id and retry it saw, whether or not the stream ended cleanly.
   */
  async function readStream(response: HttpAnswer, owed: Set<string>): Promise<{ lastEventId?: string; retryMs?: number }> {
    const parser = createSseParser((event) => {
      if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return;
      const frame = emitText(event.data);
      const list = Array.isArray(frame) ? (frame as unknown[]) : [frame];
      for (const item of list) {
        const id = (item as { id?: unknown } | undefined)?.id;
        if (item && typeof item === 'object' && !('method' in item) && (typeof id === 'string' || typeof id === 'number')) {
          owed.delete(keyOf(id));
        }
      }
    });
    try {
      await response.read((text) => parser.push(text));
    } catch (error) {
      if (!closing) log.debug({ err: error }, 'SSE stream broke');
    }
    parser.end();
    return { lastEventId: parser.lastEventId, retryMs: parser.retryMs };
  }

  /**
   * What follows the end of an SSE stream: resume it when it still owes responses (or is the
   * standalone stream), after the server's retry or the backoff.
   */
  function afterStream(standalone: boolean, owed: Set<string>, lastEventId: string | undefined, retryMs: number | undefined, attempt: number): void {
    if (closing) return;
    if (!standalone && owed.size === 0) return;
    if (!standalone && lastEventId === undefined) {
      log.warn({ owed: owed.size }, 'stream ended before its responses and cannot be resumed (no event id)');
      return;
    }
    if (attempt >= maxRetries && attempt > 0) {
      log.warn({ standalone, attempts: attempt }, 'giving up on a stream after repeated failures');
      return;
    }
    const wait = retryMs ?? backoff(attempt);
    log.debug({ standalone, wait, lastEventId }, 'reconnecting SSE stream');
    later(wait, () => void get(standalone, owed, lastEventId, retryMs, attempt));
  }

  /** A GET: the standalone stream, or the resumption of a stream after `lastEventId`. */
  async function get(
    standalone: boolean,
    owed: Set<string>,
    lastEventId: string | undefined,
    retryMs: number | undefined,
    attempt: number,
    first = false,
    answered: () => void = () => undefined,
  ): Promise<void> {
    const extra: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId !== undefined) extra['last-event-id'] = lastEventId;
    // Held until the stream is read to its end, so that close aborts the body too.
    const made = call({ method: 'GET', headers: headers(extra) });
    try {
      await readGet(made, standalone, owed, lastEventId, retryMs, attempt, first, answered);
    } finally {
      inFlight.delete(made);
    }
  }

  async function readGet(
    made: HttpCall,
    standalone: boolean,
    owed: Set<string>,
    lastEventId: string | undefined,
    retryMs: number | undefined,
    attempt: number,
    first: boolean,
    answered: () => void,
  ): Promise<void> {
    let response: HttpAnswer;
    try {
      response = await made.answer;
      answered();
    } catch (error) {
      answered();
      if (closing) return;
      log.debug({ err: error }, 'GET failed');
      afterStream(standalone, owed, lastEventId, undefined, attempt + 1);
      return;
    }
    if (closing) return;
    log.debug({ status: response.status, lastEventId }, 'GET answered');
    if (!response.ok || !(response.header('content-type') ?? '').includes('text/event-stream')) {
      response.discard();
      if (response.status === 404 && sessionId !== undefined) {
        sessionGone();
        return;
      }
      // The first GET may be refused: the server offers no standalone stream (405; some servers answer 400, or 404 without sessions).
      if (first) return;
      afterStream(standalone, owed, lastEventId, undefined, attempt + 1);
      return;
    }
    const seen = await readStream(response, owed);
    afterStream(standalone, owed, seen.lastEventId ?? lastEventId, seen.retryMs ?? retryMs, 0);
  }

  function sessionGone(): void {
    const gone = sessionId as string;
    log.warn({ sessionId: gone }, 'session not found on the server');
    finish(`session ${gone} not found on the server (HTTP 404)`, new SessionNotFoundError(gone), false);
  }

  async function post(message: JsonRpcMessage | readonly JsonRpcMessage[]): Promise<void> {
    const list = Array.isArray(message) ? (message as JsonRpcMessage[]) : [message as JsonRpcMessage];
    const requests = list.filter(isRequest);
    const wasFirst = firstPost;
    firstPost = false;
    const before = acknowledged;
    // Whether an earlier acknowledgement is still awaited: when none is, the POST goes out at once.
    const wait = unacknowledged > 0;
    let done: () => void = () => undefined;
    if (requests.length === 0) {
      unacknowledged++;
      acknowledged = new Promise<void>((resolve) => {
        let once = false;
        done = () => {
          if (once) return;
          once = true;
          unacknowledged--;
          resolve();
        };
      });
    }
    let made: HttpCall | undefined;
    try {
      if (wait) await before;
      if (closing) return;
      made = call({ method: 'POST', headers: headers(POST_HEADERS), body: JSON.stringify(message) });
      const response = await made.answer;
      const assigned = response.header('mcp-session-id');
      if (assigned !== undefined && sessionId === undefined) sessionId = assigned;
      if (response.ok && list.some((m) => 'method' in m && m.method === 'notifications/initialized') && options.openStandaloneStream !== false) {
        // Later POSTs wait until the GET stream is answered (at most a moment), so that the server
        // sees the standalone stream open before the requests that follow the handshake.
        let answered: () => void = () => undefined;
        const opened = new Promise<void>((resolve) => (answered = resolve));
        void get(true, new Set(), undefined, undefined, 0, true, answered);
        void Promise.race([opened, new Promise<void>((resolve) => later(250, resolve))]).then(() => done());
      } else done();
      if (closing) return;
      log.debug({ status: response.status, requests: requests.length }, 'POST answered');
      await handleAnswer(response, list, requests, wasFirst);
    } catch (error) {
      done();
      if (closing) return;
      log.warn({ err: error }, 'POST failed');
      finish('POST failed', new TransportError(`POST to ${url.href} failed: ${(error as Error).message}`, { cause: error }), false);
    } finally {
      if (made) inFlight.delete(made);
    }
  }

  async function handleAnswer(response: HttpAnswer, list: JsonRpcMessage[], requests: Array<{ id: RequestId; method: string }>, wasFirst: boolean): Promise<void> {
    const type = response.header('content-type') ?? '';
    if (!response.ok) {
      const body = await response.text().catch(() => '');
      const initialize = requests.length === 1 && requests[0]?.method === 'initialize';
      if (wasFirst && initialize && options.onLegacyServer && [400, 404, 405].includes(response.status) && sessionId === undefined) {
        options.onLegacyServer(list[0] as JsonRpcMessage, response.status);
        return;
      }
      if (response.status === 404 && sessionId !== undefined) {
        sessionGone();
        return;
      }
      log.warn({ status: response.status, body: body.slice(0, 500) }, 'POST refused');
      failRequests(requests.map((r) => r.id), response.status, body);
      return;
    }
    if (requests.length === 0) {
      // Notifications and responses: 202 is the rule, but some servers answer 200 with a body; ignore it.
      response.discard();
      return;
    }
    if (type.includes('text/event-stream')) {
      const owed = new Set(requests.map((r) => keyOf(r.id)));
      const seen = await readStream(response, owed);
      afterStream(false, owed, seen.lastEventId, seen.retryMs, 0);
      return;
    }
    const body = await response.text();
    if (type.includes('application/json')) {
      if (body.trim() !== '') emitText(body);
      return;
    }
    log.warn({ status: response.status, type }, 'answer is neither JSON nor SSE');
    failRequests(requests.map((r) => r.id), response.status, body);
  }

  function finish(reason: string, error: Error | undefined, terminate: boolean): void {
    if (closing) return;
    closing = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    for (const made of inFlight) made.abort();
    inFlight.clear();
    const done = (): void => {
      requester.close();
      log.info({ reason }, 'transport closed');
      closed$.next(error ? { reason, error } : { reason });
      closed$.complete();
      inbox.complete();
    };
    if (!terminate || sessionId === undefined) {
      done();
      return;
    }
    // Spec: Transports → Session Management: a client that no longer needs the session SHOULD DELETE it.
    const deletion = requester.request({ method: 'DELETE', headers: headers({}) });
    const timeout = setTimeout(() => deletion.abort(), DELETE_TIMEOUT_MS);
    timeout.unref();
    deletion.answer
      .then((response) => {
        log.debug({ status: response.status }, 'DELETE answered');
        return response.text();
      })
      .catch((failure: unknown) => log.debug({ err: failure }, 'DELETE failed'))
      .finally(() => {
        clearTimeout(timeout);
        done();
      });
  }

  return {
    incoming$: inbox.values$,
    closed$: closed$.asObservable(),
    get sessionId() {
      return sessionId;
    },
    get protocolVersion() {
      return protocolVersion;
    },
    setProtocolVersion(revision) {
      protocolVersion = revision;
    },
    send(message) {
      if (closing) {
        log.debug('send after close ignored');
        return;
      }
      if (log.isLevelEnabled('trace')) log.trace({ message }, 'message out');
      void post(message);
    },
    close(reason = 'closed locally') {
      finish(reason, undefined, true);
    },
  };
}
