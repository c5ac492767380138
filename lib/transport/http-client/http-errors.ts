import { RxmcpErrorCode } from '../../jsonrpc/errors';
import { TransportError } from '../../jsonrpc/errors';

/**
 * The server answered 404 to a request that carried our `Mcp-Session-Id`: it no longer knows the
 * session, because it restarted (sessions live in its memory) or ended the session (spec:
 * Transports → Session Management). The client transport closes with this error (a
 * `TransportError`), and the calls in flight fail with a `ConnectionClosedError` that carries it.
 * To go on, reconnect: connect again with a new transport, which sends a new `initialize` without
 * a session id.
 */
export class SessionNotFoundError extends TransportError {
  override readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.SessionNotFound;
  override readonly name: string = 'SessionNotFoundError';
  /** The HTTP status the server answered. */
  readonly status = 404;

  constructor(readonly sessionId: string) {
    super(
      `The server no longer knows this session (HTTP 404 Not Found for session ${sessionId}): it restarted, ` +
        'or it ended the session. Reconnect to start a new session: connect again with a new transport.',
    );
  }
}
