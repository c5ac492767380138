/**
 * What an HTTP client transport asks of an authorization provider (`lib/auth` has the OAuth one):
 * the `Authorization` header for a request, and what to do about a 401 or 403 answer. Declared here
 * so that transports depend on the shape, not on the OAuth client.
 */

/** A 401 or 403 answer from the MCP server. */
export interface AuthChallengeAnswer {
  readonly status: number;
  /** The `WWW-Authenticate` header, when the answer had one. */
  readonly wwwAuthenticate: string | undefined;
  /** The protocol revision the request was made under, when known. */
  readonly protocolVersion: string | undefined;
  /** The `DPoP-Nonce` header (RFC 9449 §9), when the answer had one. */
  readonly dpopNonce?: string | undefined;
}

/** The request credentials are wanted for. */
export interface AuthRequest {
  readonly url: URL;
  readonly method: string;
}

/** Supplies credentials to an HTTP client transport. */
export interface AuthProvider {
  /**
   * The credential headers of one request (lower-case names): `authorization`, and `dpop` for a
   * proof-of-possession token; empty while there are no credentials.
   */
  headers(request: AuthRequest): Promise<Readonly<Record<string, string>>>;
  /**
   * The server refused a request for lack of authorization. Resolves true when new credentials
   * were obtained and the request should be sent again, false when the refusal stands; rejects
   * when authorization failed (the request then fails with that error).
   */
  challenged(serverUrl: URL, answer: AuthChallengeAnswer): Promise<boolean>;
  /** A request was accepted with the current credentials. */
  accepted?(): void;
}
