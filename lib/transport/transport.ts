import type { Observable } from '../rx/rxjs';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/message';

/**
 * A frame that arrived but is not JSON. The connection answers it with a -32700 parse error and
 * goes on; transports emit it on `incoming$` instead of failing the stream.
 */
export class MalformedFrame {
  constructor(
    /** The raw text, cut to a sane length for logs. */
    readonly text: string,
    /** What the JSON parser said. */
    readonly reason: string,
  ) {}
}

/** What a transport emits for each inbound frame: a parsed JSON value, or a frame that was not JSON. */
export type InboundFrame = unknown;

/** Why and how a transport closed. */
export interface TransportClose {
  /** A short description: 'closed locally', 'peer closed', 'process exited with code 1', ... */
  readonly reason: string;
  /** Set when the close was caused by a failure. */
  readonly error?: Error | undefined;
}

/** Hints a transport may use when it sends; transports that have one channel ignore them. */
export interface SendOptions {
  /**
   * The inbound request this message belongs to: its response, or a progress/log notification or
   * a server-to-client request sent while handling it. Streamable HTTP routes such messages onto
   * that request's response stream.
   */
  readonly relatedRequestId?: RequestId | undefined;
  /**
   * Extra HTTP headers for the POST that carries this message (Streamable HTTP clients only), such
   * as the `Mcp-Param-*` headers a modern revision mirrors from tool arguments.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * The peer may miss this message (a partial tool result: the final result is the whole answer).
   * A transport whose peer has fallen behind (a quarter of its buffer limit waiting) skips it rather than buffer it,
   * so that a fast producer and a slow reader cost the sender a bounded buffer, not the stream.
   */
  readonly droppable?: boolean | undefined;
}

/**
 * Whether `buffered` bytes waiting for a peer are enough to skip a droppable message: a quarter of
 * the most the transport lets wait (past which it drops the peer's stream or connection).
 */
export function isBacklogged(buffered: number, maxBufferedBytes: number): boolean {
  return buffered > maxBufferedBytes / 4;
}

/**
 * The contract every transport implements: a stream of incoming frames, a way to send, a close
 * signal. Framing lives inside the transport; above it, everything is parsed JSON values.
 */
export interface Transport {
  /**
   * Hot stream of inbound frames, in arrival order: parsed JSON values (objects, or arrays for a
   * batch) and `MalformedFrame` for text that was not JSON. Frames that arrive before the first
   * subscriber are buffered for it. Completes when the transport closes; never errors (failures
   * are reported on `closed$`).
   */
  readonly incoming$: Observable<InboundFrame>;
  /**
   * Emits once, then completes, when the transport has closed for any reason (local `close()`,
   * the peer going away, an I/O failure). Late subscribers still get the value.
   */
  readonly closed$: Observable<TransportClose>;
  /**
   * Sends one message or a batch. Fire and forget: a write that fails closes the transport with a
   * `TransportError`. Sending after close is a no-op. A message JSON cannot write (a cycle, a
   * `BigInt`, nesting too deep) throws a `MessageEncodingError` from here, with nothing sent, and
   * the transport goes on (see `encodeMessage`); a transport that carries values, not JSON (the
   * in-memory pair), sends it as it is.
   */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: SendOptions): void;
  /** Closes the transport; idempotent. `closed$` emits once the close is complete. */
  close(reason?: string): void;
  /** The session this transport belongs to, where the transport has sessions (Streamable HTTP). */
  readonly sessionId?: string | undefined;
  /**
   * Who the peer is, as a protected HTTP endpoint verified it: the credentials of the latest request
   * on this transport (Streamable HTTP with `auth`).
   */
  readonly auth?: AuthInfo | undefined;
  /** The HTTP headers of the request that carried the peer's request `requestId`, while it is in flight (HTTP transports). */
  requestHeaders?(requestId: RequestId): Readonly<Record<string, string | string[] | undefined>> | undefined;
  /** Told the negotiated revision once initialize completes (Streamable HTTP sends it as a header). */
  setProtocolVersion?(revision: string): void;
  /**
   * A server-side transport whose session is already initialized (the sessionless mode of Streamable
   * HTTP, where each POST is a session of its own): the session starts operating as if this
   * `initialize` and its `notifications/initialized` had been exchanged, with no handshake run.
   */
  readonly impliedInitialize?: ImpliedInitialize | undefined;
}

/** The `initialize` a session is taken to have opened with (see `Transport.impliedInitialize`). */
export interface ImpliedInitialize {
  readonly protocolVersion: string;
  readonly capabilities: Record<string, unknown>;
  readonly clientInfo: Record<string, unknown>;
}

/**
 * One request of a modern revision (2026-07-28 on) served with no connection: the answer and
 * whatever the server sends about the request before it (progress, log messages, the
 * notifications of a `subscriptions/listen` stream). Streamable HTTP makes one per POST.
 */
export interface ModernExchange {
  /** The request's HTTP headers, lower-cased, where it came over HTTP. */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** Who made the request, where a protected endpoint verified its credentials. */
  readonly auth?: AuthInfo | undefined;
  /**
   * A notification about the request; the exchange stays open. A `droppable` one may be skipped
   * when the client reads too slowly (see `SendOptions.droppable`).
   */
  notify(message: JsonRpcMessage, options?: { readonly droppable?: boolean }): void;
  /**
   * The response, which ends the exchange. `httpStatus` is set when the request was refused
   * before it reached a handler (400 for a malformed or unsupported request, 404 for an unknown
   * method), as Streamable HTTP answers those.
   */
  respond(message: JsonRpcMessage, httpStatus?: number): void;
}

/**
 * What serves modern requests one by one; a server offers one (`McpServer.modern`). The
 * Streamable HTTP handler hands it every POST of a modern revision.
 */
export interface ModernReceiver {
  /**
   * Serves one message. For a request, `exchange.respond` is called once unless the returned
   * function is called first (the client went away), which cancels the work and sends nothing
   * more. A notification is absorbed and nothing is sent.
   */
  serve(message: JsonRpcMessage, exchange: ModernExchange): () => void;
}

/** Who made a request, as a protected endpoint verified it. The token itself is not kept. */
export interface AuthInfo {
  /** The resource owner (`sub`), when the token names one. */
  readonly subject?: string | undefined;
  /** The OAuth client the token was issued to. */
  readonly clientId?: string | undefined;
  readonly scopes: readonly string[];
  /** Seconds since the epoch when the token expires, when known. */
  readonly expiresAt?: number | undefined;
  /** Every claim of the token (or of its introspection), for what the fields above leave out. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * The principal a verified caller is known by: its token's issuer with the resource owner (`sub`),
 * else the issuer with the OAuth client (`client_id`). Everything kept for a caller is bound to it:
 * sessions on every transport and process, `requestState`, tasks, caches, subscriptions and listen
 * streams, event replay. Undefined for a request no `auth` checked.
 *
 * Two tokens of one user from one issuer share a principal whatever their scopes; the same `sub`
 * from another issuer is another principal, and so is a client's own token (no `sub`) beside its
 * user's. A token that names neither is refused by the resource server (`createResourceServer`);
 * an `AuthInfo` made elsewhere without either gets a principal no token can share.
 */
export function principalOf(auth: AuthInfo | undefined): string | undefined {
  if (auth === undefined) return undefined;
  const known = principals.get(auth);
  if (known !== undefined) return known;
  const issuer = typeof auth.claims.iss === 'string' ? auth.claims.iss : '';
  const principal =
    auth.subject !== undefined
      ? JSON.stringify([issuer, 'sub', auth.subject])
      : auth.clientId !== undefined
        ? JSON.stringify([issuer, 'client', auth.clientId])
        : JSON.stringify([issuer, 'unnamed', (unnamed += 1)]);
  principals.set(auth, principal);
  return principal;
}

/** Each verified caller's principal, worked out once. */
const principals = new WeakMap<AuthInfo, string>();
/** A counter that keeps callers with neither `sub` nor `client_id` apart. */
let unnamed = 0;
