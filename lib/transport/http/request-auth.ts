/**
 * What the HTTP server transports ask of a resource server (`lib/auth` has the OAuth one): who made
 * a request, or the refusal to answer it with, and the protected resource metadata to publish.
 * Declared here so that transports depend on the shape, not on the token verification.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../transport';
import type { HttpRequestLike, HttpResponseLike } from './http-exchange';

export type { AuthInfo } from '../transport';

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

/** The verified caller of each request a protected endpoint let through, for the parts that serve it. */
export const verifiedCallers = new WeakMap<HttpRequestLike, AuthInfo>();

/**
 * Checks a request's credentials with `auth`, then runs `next`; a refused request is answered with
 * its status, its `WWW-Authenticate` challenge and an OAuth error body (RFC 6750 §3).
 */
export function guardRequest(
  auth: RequestAuthenticator,
  req: HttpRequestLike,
  res: HttpResponseLike,
  next: () => void,
): void {
  void auth.authenticate(req.headers).then(
    (outcome) => {
      if (outcome.ok) {
        verifiedCallers.set(req, outcome.info);
        next();
      } else answerRefusal(res, outcome);
    },
    () =>
      answerRefusal(res, {
        status: 401,
        wwwAuthenticate: 'Bearer',
        error: 'invalid_token',
        description: 'the token could not be checked',
      }),
  );
}

/** Answers a request the resource server refused. */
export function answerRefusal(res: HttpResponseLike, refusal: AuthRefusal): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ error: refusal.error ?? 'unauthorized', error_description: refusal.description });
  res.writeHead(refusal.status, { 'www-authenticate': refusal.wwwAuthenticate, 'content-type': 'application/json' });
  res.end(body);
}
