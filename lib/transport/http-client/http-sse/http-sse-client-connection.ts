import type { EventSource } from 'eventsource';
import type * as EventSourceModule from 'eventsource';

// Loaded when an HTTP+SSE connection opens: a Streamable HTTP client that never falls back
// does not load it.
let eventSource: typeof EventSourceModule | undefined;
import type { ErrorEvent, FetchLike } from 'eventsource';
import type pino from 'pino';
import { ReplaySubject } from '../../../rx/rxjs';
import { ErrorCode, TransportError } from '../../../jsonrpc/errors';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/message';
import { encodeMessage } from '../../framing/encode';
import { createFrameInbox } from '../../framing/frame-inbox';
import { boundEventStream } from '../../framing/bounded-event-stream';
import { MalformedFrame } from '../../transport';
import type { InboundFrame, TransportClose } from '../../transport';
import { AuthorizationFailed } from './http-sse-client-auth';
import type { HttpSseClientAuth, SendWith } from './http-sse-client-auth';

/** What a {@link HttpSseClientConnection} is set up with. */
export interface HttpSseClientSettings {
  /** The fetch for the GET and the POSTs. */
  readonly fetch: typeof fetch;
  /** Sent with the GET and with every POST. */
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly log: pino.Logger;
  /** The most bytes one event of the stream may hold. */
  readonly maxMessageBytes: number;
  /** Credentials for the GET and the POSTs, when the server is protected. */
  readonly auth: HttpSseClientAuth | undefined;
}

type Outgoing = JsonRpcMessage | readonly JsonRpcMessage[];

/**
 * The state of an HTTP+SSE client transport: its SSE stream, the endpoint the server announced,
 * the messages waiting for it, and the POSTs. See `createHttpSseClientTransport` for the behaviour.
 */
export class HttpSseClientConnection {
  readonly inbox = createFrameInbox<InboundFrame>();
  readonly closed$ = new ReplaySubject<TransportClose>(1);
  private readonly abort = new AbortController();
  private readonly source: EventSource;
  private endpoint: URL | undefined;
  /** Messages sent before the endpoint was known, with their JSON. */
  private waiting: Array<[Outgoing, string]> = [];
  private closing = false;

  constructor(
    private readonly url: URL,
    private readonly settings: HttpSseClientSettings,
  ) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    eventSource ??= require('eventsource') as typeof EventSourceModule;
    this.source = new eventSource.EventSource(url, { fetch: this.boundedFetch() });
  }

  /** Listens to the stream's `endpoint`, `message` and `error` events. */
  listen(): void {
    this.source.addEventListener('endpoint', (event) => this.onEndpoint(event.data));
    this.source.addEventListener('message', (event) => this.onMessage(event.data));
    this.source.addEventListener('error', (event) => this.onError(event));
  }

  /** POSTs one message or batch, or holds it until the endpoint is known; ignored once closing. */
  send(message: Outgoing): void {
    if (this.closing) return;
    if (this.settings.log.isLevelEnabled('trace')) this.settings.log.trace({ message }, 'message out');
    // A message JSON cannot write throws here, before anything is posted or queued.
    const body = encodeMessage(message);
    if (this.endpoint) void this.post(message, body);
    else this.waiting.push([message, body]);
  }

  /** Closes the transport, once: the stream, the POSTs under way, and `closed$`. */
  finish(reason: string, error?: Error): void {
    if (this.closing) return;
    this.closing = true;
    this.source.close();
    // On a failed stream the EventSource arms its reconnect timer after dispatching 'error' (where
    // this may run); closing again once that handler returned clears the timer.
    queueMicrotask(() => this.source.close());
    this.abort.abort();
    this.waiting = [];
    this.settings.log.info({ reason }, 'transport closed');
    this.closed$.next(error ? { reason, error } : { reason });
    this.closed$.complete();
    this.inbox.complete();
  }

  // The fetch of the stream: with credentials when the server is protected, and a byte counter on
  // its way to the EventSource's parser, which has no bound.
  private boundedFetch(): FetchLike {
    const { fetch: doFetch, headers, maxMessageBytes, auth } = this.settings;
    return (input, init) => {
      const send: SendWith = (credentials) =>
        doFetch(input, { ...init, headers: { ...headers, ...init.headers, ...credentials } } as RequestInit);
      const answered = auth
        ? auth.send(this.url, 'GET', send).catch((error: unknown) => this.refused(error))
        : send({});
      return answered.then((response) =>
        boundEventStream(response, maxMessageBytes, () =>
          queueMicrotask(() =>
            this.finish(
              'event too large',
              new TransportError(`the server sent an event larger than maxMessageBytes (${maxMessageBytes} bytes)`),
            ),
          ),
        ),
      );
    };
  }

  // The provider failed to authorize the stream: the transport closes with its error.
  private refused(error: unknown): never {
    if (error instanceof AuthorizationFailed) queueMicrotask(() => this.finish('authorization failed', error));
    throw error;
  }

  private async post(message: Outgoing, body: string): Promise<void> {
    const { settings } = this;
    const endpoint = this.endpoint as URL;
    const send: SendWith = (credentials) =>
      settings.fetch(endpoint, {
        method: 'POST',
        headers: { ...settings.headers, ...credentials, 'content-type': 'application/json' },
        body,
        signal: this.abort.signal,
      });
    try {
      const response = settings.auth ? await settings.auth.send(endpoint, 'POST', send) : await send({});
      await response.body?.cancel().catch(() => undefined);
      if (!response.ok && !this.closing) {
        settings.log.warn({ status: response.status }, 'POST refused');
        this.failRequests(message, `HTTP ${response.status}`, { httpStatus: response.status });
      }
    } catch (error) {
      if (this.closing) return;
      if (error instanceof AuthorizationFailed) {
        // As the Streamable HTTP client does: the requests fail, the transport goes on.
        settings.log.warn({ reason: error.message }, 'authorization failed');
        this.failRequests(message, error.message, { authorization: true });
        return;
      }
      this.finish(
        'POST failed',
        new TransportError(`POST to ${String(this.endpoint)} failed: ${(error as Error).message}`, { cause: error }),
      );
    }
  }

  // Answers each request of a refused POST with an error response saying why (`data`: the HTTP status, ...).
  private failRequests(message: Outgoing, why: string, data: Readonly<Record<string, unknown>>): void {
    const list = Array.isArray(message) ? (message as JsonRpcMessage[]) : [message as JsonRpcMessage];
    for (const item of list) {
      if (!('method' in item) || !('id' in item)) continue;
      this.inbox.push({
        jsonrpc: '2.0',
        id: item.id as RequestId,
        error: { code: ErrorCode.InternalError, message: why, data },
      });
    }
  }

  private onEndpoint(data: string): void {
    const { url } = this;
    let next: URL;
    try {
      next = new URL(data, url);
    } catch {
      this.finish('bad endpoint event', new TransportError(`endpoint event is not a URL: ${data}`));
      return;
    }
    if (next.origin !== url.origin) {
      this.finish(
        'bad endpoint event',
        new TransportError(`endpoint ${next.href} is not on the origin of ${url.href}`),
      );
      return;
    }
    this.endpoint = next;
    this.settings.log.debug({ endpoint: next.href }, 'endpoint received');
    const queued = this.waiting;
    this.waiting = [];
    for (const [message, body] of queued) void this.post(message, body);
  }

  private onMessage(data: string): void {
    if (this.closing) return;
    const { log } = this.settings;
    let frame: unknown;
    try {
      frame = JSON.parse(data) as unknown;
    } catch (error) {
      log.warn({ reason: (error as Error).message }, 'server sent an event that is not JSON');
      this.inbox.push(new MalformedFrame(data.slice(0, 1000), (error as Error).message));
      return;
    }
    if (log.isLevelEnabled('trace')) log.trace({ message: frame }, 'message in');
    this.inbox.push(frame);
  }

  private onError(event: ErrorEvent): void {
    if (this.closing) return;
    const detail = event.code !== undefined ? `HTTP ${event.code}` : (event.message ?? 'stream ended');
    this.settings.log.debug({ detail }, 'SSE stream failed');
    this.finish(`SSE stream failed: ${detail}`, new TransportError(`SSE stream ${this.url.href} failed: ${detail}`));
  }
}
