import { ReplaySubject } from '../../rx/rxjs';
import type { Observable, Subscription } from '../../rx/rxjs';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { createHttpSseClientTransport } from './http-sse/http-sse-client-transport';
import type { InboundFrame, SendOptions, Transport, TransportClose } from '../transport';
import { createStreamableHttpClientTransport } from './streamable-http/streamable-http-client-transport';
import type { StreamableHttpClientTransportOptions } from './streamable-http/streamable-http-client-transport';
import type { Reconnection } from './streamable-http/session-renewal';
import { childLogger } from '../../base/logger';

/** Options of {@link createHttpClientTransport}. */
export interface HttpClientTransportOptions extends Omit<StreamableHttpClientTransportOptions, 'onHttpSseServer'> {
  /** Where to open the old transport's SSE stream when falling back; default `url` itself (as the spec says). */
  readonly sseUrl?: string | URL;
}

/** A client transport that speaks Streamable HTTP, or HTTP+SSE with a server that predates it. */
export interface HttpClientTransport extends Transport {
  /** Which transport is in use: `streamable-http` until (and unless) the fallback happens. */
  readonly kind: 'streamable-http' | 'http-sse';
  readonly sessionId: string | undefined;
  /** Each new session the Streamable HTTP transport opened after a 404 (see its `reinitialize`). */
  readonly reconnected$: Observable<Reconnection>;
}

/**
 * Creates a client transport for an HTTP server of unknown age (spec: Transports → Backwards
 * Compatibility): it POSTs `initialize` as Streamable HTTP, and when that first POST is refused
 * with 400, 404 or 405 it opens the 2024-11-05 HTTP+SSE transport at the same URL (or `sseUrl`),
 * sends the initialize there, and uses it from then on. Otherwise it is exactly
 * `createStreamableHttpClientTransport`. Hot like the transports it wraps; `close()` closes the
 * one in use.
 */
export function createHttpClientTransport(options: HttpClientTransportOptions): HttpClientTransport {
  const log = childLogger(options.logger, { component: 'transport', transport: 'http-client' });
  const inbox = createFrameInbox<InboundFrame>();
  const closed$ = new ReplaySubject<TransportClose>(1);
  let kind: HttpClientTransport['kind'] = 'streamable-http';
  let subscriptions: Subscription[] = [];
  let closed = false;

  const adopt = (transport: Transport): void => {
    subscriptions = [
      transport.incoming$.subscribe((frame) => inbox.push(frame)),
      transport.closed$.subscribe((close) => {
        if (closed) return;
        closed = true;
        closed$.next(close);
        closed$.complete();
        inbox.complete();
      }),
    ];
  };

  const streamable = createStreamableHttpClientTransport({
    ...options,
    onHttpSseServer: (initialize: JsonRpcMessage, status: number) => {
      log.info({ status }, 'server refused Streamable HTTP: falling back to HTTP+SSE');
      for (const subscription of subscriptions) subscription.unsubscribe();
      active.close('falling back to HTTP+SSE');
      kind = 'http-sse';
      active = createHttpSseClientTransport({
        url: options.sseUrl ?? options.url,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        // The same credentials: a protected server that speaks only HTTP+SSE asks for them too.
        ...(options.auth ? { auth: options.auth } : {}),
        // As a pino logger, which the HTTP+SSE transport takes (a console-like one is adapted).
        ...(options.logger ? { logger: childLogger(options.logger, {}) } : {}),
      });
      adopt(active);
      active.send(initialize);
    },
  });
  let active: Transport = streamable;
  adopt(active);

  return {
    reconnected$: streamable.reconnected$,
    incoming$: inbox.values$,
    closed$: closed$.asObservable(),
    get kind() {
      return kind;
    },
    get sessionId() {
      return active.sessionId;
    },
    send(message: JsonRpcMessage | readonly JsonRpcMessage[], sendOptions?: SendOptions) {
      active.send(message, sendOptions);
    },
    close(reason?: string) {
      active.close(reason);
    },
    setProtocolVersion(revision: string) {
      active.setProtocolVersion?.(revision);
    },
  };
}
