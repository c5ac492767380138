import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AuthOutcome, AuthRefusal, RequestAuthenticator } from '../transport/http/request-auth';
import type { StreamableHttpServerOptions } from '../transport/http-server/streamable-http/streamable-http-server';

const NOT_READY: AuthRefusal = { status: 401, wwwAuthenticate: 'Bearer', description: 'the server is starting' };

/**
 * A cluster process's authenticator: checks each request's credentials once, when the request
 * reaches the cluster's endpoint (before anything is looked up, claimed or forwarded), and gives the
 * same outcome to the session handler that serves the request after it (scopes, the session's
 * caller). A forwarded request is checked again by the process it reaches: its token travels with
 * it, so no process takes another's word for who called.
 */
export class ClusterAuth implements RequestAuthenticator {
  private readonly outcomes = new WeakMap<IncomingHttpHeaders, Promise<AuthOutcome>>();
  private bound: RequestAuthenticator | undefined;
  /** What to give `startStreamableHttpServer` as its `auth` (it serves the protected resource metadata). */
  readonly forServer: StreamableHttpServerOptions['auth'];

  /** `given`: the `auth` of the serve options; one made from the endpoint URL is bound once it listens. */
  constructor(given: NonNullable<StreamableHttpServerOptions['auth']>) {
    if (typeof given === 'function') {
      this.forServer = (endpoint: URL) => (this.bound = given(endpoint));
    } else {
      this.bound = given;
      this.forServer = given;
    }
  }

  authenticate(headers: IncomingHttpHeaders): Promise<AuthOutcome> {
    let outcome = this.outcomes.get(headers);
    if (outcome === undefined) {
      outcome = this.bound ? this.bound.authenticate(headers) : Promise.resolve({ ok: false as const, ...NOT_READY });
      this.outcomes.set(headers, outcome);
    }
    return outcome;
  }

  serveMetadata(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    return this.bound?.serveMetadata(req, res, url) ?? false;
  }

  insufficientScope(scopes: readonly string[]): AuthRefusal {
    return this.bound?.insufficientScope(scopes) ?? NOT_READY;
  }
}
