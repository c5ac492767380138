/**
 * What the HTTP server transports ask of a resource server (`lib/auth` has the OAuth one): who made
 * a request, or the refusal to answer it with, and the protected resource metadata to publish.
 * Declared here so that transports depend on the shape, not on the token verification.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** Who made a request, as the resource server verified it. The token itself is not kept. */
export interface AuthInfo {
  /** The resource owner (`sub`), when the token names one. */
  readonly subject?: string;
  /** The OAuth client the token was issued to. */
  readonly clientId?: string;
  readonly scopes: readonly string[];
  /** Seconds since the epoch when the token expires, when known. */
  readonly expiresAt?: number;
  /** Every claim of the token (or of its introspection), for what the fields above leave out. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** A request the resource server refuses: the status and `WWW-Authenticate` challenge to answer with. */
export interface AuthRefusal {
  readonly status: 401 | 403;
  readonly wwwAuthenticate: string;
  /** `invalid_token`, `insufficient_scope`, or `invalid_request`; absent when no credentials came. */
  readonly error?: string;
  readonly description: string;
}

/** The outcome of checking one request's credentials. */
export type AuthOutcome = { readonly ok: true; readonly info: AuthInfo } | ({ readonly ok: false } & AuthRefusal);

/** Checks the credentials of requests to a protected MCP endpoint. */
export interface RequestAuthenticator {
  /** Checks a request's `Authorization` header. Never rejects: a failure is a refusal. */
  authenticate(headers: IncomingHttpHeaders): Promise<AuthOutcome>;
  /**
   * Answers a GET for the protected resource metadata (RFC 9728) when `url` is where it is
   * published; false for any other request.
   */
  serveMetadata(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
  /** The refusal for a request that needs `scopes` its token lacks (403 `insufficient_scope`). */
  insufficientScope(scopes: readonly string[]): AuthRefusal;
}
