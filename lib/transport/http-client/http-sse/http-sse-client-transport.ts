import type { AuthProvider } from '../auth-provider';
import type { Transport } from '../../transport';
import { childLogger } from '../../../base/logger';
import type { LoggerOption } from '../../../base/logger';
import { HttpSseClientAuth } from './http-sse-client-auth';
import { HttpSseClientConnection } from './http-sse-client-connection';

/** Options of {@link createHttpSseClientTransport}. */
export interface HttpSseClientTransportOptions {
  /** The SSE endpoint (for example `http://127.0.0.1:3000/sse`). */
  readonly url: string | URL;
  /** Sent with the GET and with every POST. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Credentials for a protected server, as the Streamable HTTP client takes them: the provider's
   * `Authorization` header (and DPoP proof) on the GET and on every POST, and a 401 or 403 given to
   * the provider, whose new credentials the refused request is sent again with, once.
   * `createOAuthClient` makes one.
   */
  readonly auth?: AuthProvider;
  /** The fetch to use for the GET and the POSTs; default the global one. */
  readonly fetch?: typeof fetch;
  /** Connection events at debug, peer mistakes at warn, messages at trace. Silent by default. */
  readonly logger?: LoggerOption;
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
 * - With `auth`, a 401 or 403 goes to the provider and the request is sent once more when it
 *   obtained new credentials. A provider that fails fails the POST's requests (`data.authorization`),
 *   or, for the stream's GET, closes the transport with a `TransportError` saying so.
 * - The stream failing or ending closes the transport (`TransportError`): reconnecting would make a
 *   new session on the server, so it is not attempted.
 * - `close()` closes the stream; `closed$` emits at once.
 */
export function createHttpSseClientTransport(options: HttpSseClientTransportOptions): Transport {
  const url = new URL(options.url);
  const connection = new HttpSseClientConnection(url, {
    fetch: options.fetch ?? fetch,
    headers: options.headers,
    log: childLogger(options.logger, { component: 'transport', transport: 'http-sse-client' }),
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    auth: options.auth && new HttpSseClientAuth(options.auth, url),
  });
  connection.listen();

  return {
    incoming$: connection.inbox.values$,
    closed$: connection.closed$.asObservable(),
    send(message) {
      connection.send(message);
    },
    close(reason = 'closed locally') {
      connection.finish(reason);
    },
  };
}
