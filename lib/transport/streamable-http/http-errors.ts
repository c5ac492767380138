import { TransportError } from '../../jsonrpc/errors';

/**
 * The server answered 404 to a request that carried our `Mcp-Session-Id`: it ended the session
 * (spec: Transports → Session Management). The client transport closes with this error (a
 * `TransportError`); start a new session by connecting again with a new transport, which sends a
 * new `initialize` without a session id.
 */
export class SessionNotFoundError extends TransportError {
  override readonly name: string = 'SessionNotFoundError';

  constructor(readonly sessionId: string) {
    super(`The server no longer knows session ${sessionId} (HTTP 404): start a new session with initialize`);
  }
}
