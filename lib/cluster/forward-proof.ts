import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The header that proves a forwarded request comes from a process of the cluster: `<timestamp ms>.<hmac>`. */
export const PROOF_HEADER = 'x-rxmcp-forward-proof';
/** How far a proof's timestamp may be from the receiver's clock. */
export const PROOF_WINDOW_MS = 30_000;

/** What a forwarded request's proof covers. */
export interface ForwardedRequest {
  readonly method: string;
  readonly path: string;
  /** The session id it names ('' without one). */
  readonly sessionId: string;
  /** The process that forwarded it, and the process it is for. */
  readonly from: string;
  readonly owner: string;
  /** Its `Authorization` header ('' without one): a proof is not moved to another caller's request. */
  readonly authorization: string;
  /** The body as forwarded (the JSON text of the parsed body); undefined without one. */
  readonly body: unknown;
}

/**
 * Signs and checks the proof a forwarded request carries: an HMAC-SHA256, keyed by the cluster's
 * forwarding secret, over the request's method, path, session id, sender, addressee, credentials,
 * a timestamp and the SHA-256 of its body. A request that only claims to be forwarded (its headers
 * can be written by anyone who reaches a process's port) fails the check and is served as any other
 * request from outside. The proof says only that a peer routed the request: the owner still checks
 * the caller's token itself.
 */
export class ForwardProof {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = Buffer.from(secret, 'utf8');
  }

  /** The proof header's value for `request`, timestamped now. */
  sign(request: ForwardedRequest): string {
    const at = String(this.now());
    return `${at}.${this.mac(request, at).toString('base64url')}`;
  }

  /** Whether `headers` carry a valid, fresh proof for `request`. */
  verify(headers: IncomingHttpHeaders, request: ForwardedRequest): boolean {
    const value = headers[PROOF_HEADER];
    if (typeof value !== 'string') return false;
    const dot = value.indexOf('.');
    if (dot <= 0) return false;
    const at = value.slice(0, dot);
    const time = Number(at);
    if (!/^\d{1,16}$/.test(at) || Math.abs(this.now() - time) > PROOF_WINDOW_MS) return false;
    const given = Buffer.from(value.slice(dot + 1), 'base64url');
    const expected = this.mac(request, at);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(request: ForwardedRequest, at: string): Buffer {
    const bodyText = request.body === undefined ? '' : JSON.stringify(request.body);
    const digest = createHash('sha256').update(bodyText).digest('base64url');
    // JSON keeps the fields apart whatever characters they hold.
    const fields = [
      request.method,
      request.path,
      request.sessionId,
      request.from,
      request.owner,
      request.authorization,
      at,
      digest,
    ];
    return createHmac('sha256', this.key).update(JSON.stringify(fields)).digest();
  }
}

/** The fields of a request's proof, read from the request as it arrived (or as it is about to be sent). */
export function forwardedRequestOf(
  req: {
    readonly method?: string | undefined;
    readonly url?: string | undefined;
    readonly headers: IncomingHttpHeaders;
  },
  sessionId: string | undefined,
  from: string,
  owner: string,
  body: unknown,
): ForwardedRequest {
  const authorization = req.headers.authorization;
  return {
    method: req.method ?? '',
    path: req.url ?? '',
    sessionId: sessionId ?? '',
    from,
    owner,
    authorization: typeof authorization === 'string' ? authorization : '',
    body,
  };
}
