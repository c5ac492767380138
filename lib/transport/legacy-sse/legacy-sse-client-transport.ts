import { EventSource } from 'eventsource';
import type { FetchLike } from 'eventsource';
import type pino from 'pino';
import { ReplaySubject } from 'rxjs';
import { ErrorCode, TransportError } from '../../jsonrpc/errors';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { boundEventStream } from '../framing/bounded-event-stream';
import { MalformedFrame } from '../transport';
import type { InboundFrame, Transport, TransportClose } from '../transport';
import { childLogger } from '../../jsonrpc/logger';

/** Options of {@link createLegacySseClientTransport}. */
export interface LegacySseClientTransportOptions {
  /** The SSE endpoint (for example `http://127.0.0.1:3000/sse`). */
  readonly url: string | URL;
  /** Sent with the GET and with every POST. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The fetch to use for the GET and the POSTs; default the global one. */
  readonly fetch?: typeof fetch;
  /** Connection events at debug, peer mistakes at warn, messages at trace. Silent by default. */
  readonly logger?: pino.Logger;
  /**
   * The most bytes one event of the stream may hold; a larger one closes the transport with a
   * `TransportError` instead of being buffered. Default 32 MiB.
   */
  readonly maxMessageBytes?: number;
}

/** The default bound on one event of the stream. */
const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/**
 * Creates the client side of the deprecated HTTP+SSE transport (spec 2024-11-05: Transports →
 * HTTP with SSE). It opens the SSE stream at once; messages sent before the server's `endpoint`
 * event wait for it, then go out as POSTs to that endpoint (which must have the stream's origin).
 *
 * - `message` events become frames (`MalformedFrame` when not JSON).
 * - A POST refused with an HTTP error fails the requests it carried with an error response
 *   (`data.httpStatus`); a POST that cannot be made closes the transport with a `TransportError`.
 * - The stream failing or ending closes the transport (`TransportError`): reconnecting would make a
 *   new session on the server, so it is not attempted.
 * - `close()` closes the stream; `closed$` emits at once.
 */
export function createLegacySseClientTransport(options: LegacySseClientTransportOptions): Transport {
  const url = new URL(options.url);
  const doFetch = options.fetch ?? fetch;
  const log = childLogger(options.logger, { component: 'transport', transport: 'legacy-sse-client' });
  const inbox = createFrameInbox<InboundFrame>();
  const closed$ = new ReplaySubject<TransportClose>(1);
  const abort = new AbortController();
  let endpoint: URL | undefined;
  let waiting: Array<JsonRpcMessage | readonly JsonRpcMessage[]> = [];
  let closing = false;

  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  // The stream passes a byte counter on its way to the EventSource's parser, which has no bound.
  const sseFetch: FetchLike = (input, init) =>
    doFetch(input, { ...init, headers: { ...options.headers, ...init.headers } } as RequestInit).then((response) =>
      boundEventStream(response, maxMessageBytes, () =>
        queueMicrotask(() =>
          finish(
            'event too large',
            new TransportError(`the server sent an event larger than maxMessageBytes (${maxMessageBytes} bytes)`),
          ),
        ),
      ),
    );
  const source = new EventSource(url, { fetch: sseFetch });

  const finish = (reason: string, error?: Error): void => {
    if (closing) return;
    closing = true;
    source.close();
    // On a failed stream the EventSource arms its reconnect timer after dispatching 'error' (where
    // this may run); closing again once that handler returned clears the timer.
    queueMicrotask(() => source.close());
    abort.abort();
    waiting = [];
    log.info({ reason }, 'transport closed');
    closed$.next(error ? { reason, error } : { reason });
    closed$.complete();
    inbox.complete();
  };

  const failRequests = (message: JsonRpcMessage | readonly JsonRpcMessage[], status: number): void => {
    const list = Array.isArray(message) ? (message as JsonRpcMessage[]) : [message as JsonRpcMessage];
    for (const item of list) {
      if (!('method' in item) || !('id' in item)) continue;
      inbox.push({
        jsonrpc: '2.0',
        id: item.id as RequestId,
        error: { code: ErrorCode.InternalError, message: `HTTP ${status}`, data: { httpStatus: status } },
      });
    }
  };

  const post = async (message: JsonRpcMessage | readonly JsonRpcMessage[]): Promise<void> => {
    try {
      const response = await doFetch(endpoint as URL, {
        method: 'POST',
        headers: { ...options.headers, 'content-type': 'application/json' },
        body: JSON.stringify(message),
        signal: abort.signal,
      });
      await response.body?.cancel().catch(() => undefined);
      if (!response.ok && !closing) {
        log.warn({ status: response.status }, 'POST refused');
        failRequests(message, response.status);
      }
    } catch (error) {
      if (closing) return;
      finish(
        'POST failed',
        new TransportError(`POST to ${String(endpoint)} failed: ${(error as Error).message}`, { cause: error }),
      );
    }
  };

  source.addEventListener('endpoint', (event) => {
    let next: URL;
    try {
      next = new URL(event.data, url);
    } catch {
      finish('bad endpoint event', new TransportError(`endpoint event is not a URL: ${event.data}`));
      return;
    }
    if (next.origin !== url.origin) {
      finish('bad endpoint event', new TransportError(`endpoint ${next.href} is not on the origin of ${url.href}`));
      return;
    }
    endpoint = next;
    log.debug({ endpoint: next.href }, 'endpoint received');
    const queued = waiting;
    waiting = [];
    for (const message of queued) void post(message);
  });
  source.addEventListener('message', (event) => {
    if (closing) return;
    let frame: unknown;
    try {
      frame = JSON.parse(event.data) as unknown;
    } catch (error) {
      log.warn({ reason: (error as Error).message }, 'server sent an event that is not JSON');
      inbox.push(new MalformedFrame(event.data.slice(0, 1000), (error as Error).message));
      return;
    }
    if (log.isLevelEnabled('trace')) log.trace({ message: frame }, 'message in');
    inbox.push(frame);
  });
  source.addEventListener('error', (event) => {
    if (closing) return;
    const detail = event.code !== undefined ? `HTTP ${event.code}` : (event.message ?? 'stream ended');
    log.debug({ detail }, 'SSE stream failed');
    finish(`SSE stream failed: ${detail}`, new TransportError(`SSE stream ${url.href} failed: ${detail}`));
  });

  return {
    incoming$: inbox.values$,
    closed$: closed$.asObservable(),
    send(message) {
      if (closing) return;
      if (log.isLevelEnabled('trace')) log.trace({ message }, 'message out');
      if (endpoint) void post(message);
      else waiting.push(message);
    },
    close(reason = 'closed locally') {
      finish(reason);
    },
  };
}
