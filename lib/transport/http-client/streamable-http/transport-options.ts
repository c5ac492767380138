/** The options and the interface of the Streamable HTTP client transport. */
import type { LoggerOption } from '../../../base/logger';
import type { Agent as HttpAgent } from 'node:http';
import type { JsonRpcMessage } from '../../../jsonrpc/message';
import type { Observable } from '../../../rx/rxjs';
import type { Transport } from '../../transport';
import type { Reconnection } from './session-renewal';
import type { ReconnectOptions } from './sse-streams';
import type { AuthProvider } from '../auth-provider';

/** Options of `createStreamableHttpClientTransport`. */
export interface StreamableHttpClientTransportOptions {
  /**
   * The MCP endpoint, used exactly as given. A server on a Unix socket or named pipe is
   * `http+unix://<socket path, percent-encoded>/<path>` (`http+unix://%2Frun%2Fmcp.sock/mcp`), as
   * `startStreamableHttpServer` gives it with `socketPath`; or give `socketPath` with an `http:` URL.
   */
  readonly url: string | URL;
  /**
   * Sends every request over this Unix socket (or Windows named pipe) instead of TCP; the URL's
   * host then only fills the Host header. Not with `fetch`, which has no way to reach a socket.
   */
  readonly socketPath?: string;
  /** Sent with every request (for example `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A fetch to send the requests with: wrap one to add auth, tracing or a proxy. Without it the
   * transport uses, on Node (for `http:` and `https:` URLs), a keep-alive connection pool of its
   * own from undici, the HTTP client Node's `fetch` is built on, without the `fetch` layer (or,
   * when an `agent` is given, `node:http`/`node:https`), and elsewhere (a browser)
   * `globalThis.fetch`; pass `fetch: globalThis.fetch` to use the global fetch on Node too.
   */
  readonly fetch?: typeof fetch;
  /**
   * An agent to send through with `node:http`/`node:https` when no `fetch` is given: an
   * `https.Agent` with your TLS settings (a private CA, a client certificate), a proxy agent, or
   * connection limits. It is left open when the transport closes. Default: none, and the
   * transport's own undici pool, closed with it. Giving a keep-alive agent is also the way to stay
   * on `node:http`, for instance under fake timers, which hold back the `queueMicrotask` and
   * `setImmediate` undici schedules its work with. (The HTTP+SSE fallback of
   * `createHttpClientTransport` goes through fetch and does not use it.)
   */
  readonly agent?: HttpAgent;
  readonly reconnect?: ReconnectOptions;
  /**
   * Credentials for a protected server: each request carries the provider's `Authorization`
   * header, and a 401 or 403 goes to the provider, whose new credentials the refused POST is sent
   * again with. `createOAuthClient` makes one that speaks MCP authorization (OAuth 2.1).
   */
  readonly auth?: AuthProvider;
  /**
   * The most characters the client reads for one message: a JSON answer's body, or the data of
   * one SSE event (a line that grows past it counts as soon as it does). A larger answer fails the
   * requests it was for with -32000 and `data.responseTooLarge`; the transport and its other
   * requests go on. Default 32 Mi characters (32 MiB of ASCII JSON).
   */
  readonly maxMessageLength?: number;
  /** Join an existing session instead of waiting for the initialize answer to name one. */
  readonly sessionId?: string;
  /**
   * Start a new session when the server answers 404 to ours (it restarted, or ended the session),
   * as the spec asks of a client (Transports → Session Management): the transport sends the
   * connection's `initialize` again without a session id, then `notifications/initialized`,
   * reopens the standalone stream, sends again the requests the server refused with the 404 (it
   * did not run them), fails those a stream of the lost session owed with `REQUEST_OUTCOME_UNKNOWN`
   * (they may have run: they are never sent again), and emits on `reconnected$`, where a client
   * made by `connect` restores its resource subscriptions and log level. Default true.
   *
   * It is an option of this transport rather than of `connect`: sessions, their ids and the 404
   * are Streamable HTTP's (stdio, WebSocket and the in-memory pair have none to lose), and the
   * connection above goes on through the change of session as through a reconnected stream.
   * `false`: the transport closes with `SessionNotFoundError` instead, and reconnecting is the
   * application's (a new transport, a new `connect`).
   */
  readonly reinitialize?: boolean;
  /** Open the standalone GET stream once `notifications/initialized` is accepted. Default true. */
  readonly openStandaloneStream?: boolean;
  /**
   * How long POSTs that follow `notifications/initialized` wait for the standalone GET stream to be
   * answered, so that the server sees it open before them. Default 2000 ms.
   */
  readonly standaloneStreamWaitMs?: number;
  /**
   * Requests, status codes and reconnects at debug, peer mistakes at warn, messages at trace: a
   * pino logger or a console-like one (`console`, which gets info and above). Silent by default.
   */
  readonly logger?: LoggerOption;
  /**
   * Called instead of failing when the first `initialize` POST (before any session) is refused
   * with 400, 404 or 405: the backwards-compatibility probe. The transport then stays silent; the
   * caller takes over (see `createHttpClientTransport`).
   */
  readonly onHttpSseServer?: (initialize: JsonRpcMessage, status: number) => void;
}

/** The client side of Streamable HTTP. */
export interface StreamableHttpClientTransport extends Transport {
  /** The session the server assigned (from the initialize answer), if any. */
  readonly sessionId: string | undefined;
  /** The revision sent in `MCP-Protocol-Version`, once the connection set it. */
  readonly protocolVersion: string | undefined;
  /**
   * Emits each time the transport started a new session in place of one the server forgot (see
   * `reinitialize`). Hot; completes when the transport closes.
   */
  readonly reconnected$: Observable<Reconnection>;
}
