/**
 * The Streamable HTTP client's side of authorization: the provider's `Authorization` header on each
 * request, and a 401 or 403 turned into new credentials and a retry, a refusal, or failed requests.
 */
import type pino from 'pino';
import type { RequestId } from '../../../jsonrpc/message';
import type { AuthProvider } from '../auth-provider';
import type { HttpAnswer } from '../http-requester';
import { keyOf } from '../../http/request-keys';

/** What authorization needs from the client transport. */
export interface AuthHost {
  readonly url: URL;
  readonly log: pino.Logger;
  failOwed(keys: ReadonlySet<string>, why: string, data?: Readonly<Record<string, unknown>>): void;
}

/** What to do with a POST the server refused with 401 or 403. */
export type AuthVerdict = 'retry' | 'refused' | 'failed';

/** Authorization for one client transport. */
export class ClientAuth {
  /** The last `Authorization` value the provider gave, also sent on GET and DELETE requests. */
  bearer: string | undefined;

  constructor(
    private readonly provider: AuthProvider,
    private readonly host: AuthHost,
  ) {}

  /** Puts the provider's credentials on a POST. */
  async authorize(headers: Record<string, string>): Promise<void> {
    const credentials = await this.provider.headers({ url: this.host.url, method: 'POST' });
    Object.assign(headers, credentials);
    // A bearer token also goes on GET and DELETE; a proof-bound one would need a proof of their own.
    const value = credentials.authorization;
    this.bearer = value !== undefined && /^bearer /i.test(value) ? value : undefined;
  }

  accepted(): void {
    this.provider.accepted?.();
  }

  /**
   * A 401 or 403 to a POST: the provider obtains new credentials (`retry`), lets the refusal stand
   * (`refused`: the answer is then read as any refusal), or fails, which fails the POST's requests.
   */
  async reauthorize(
    response: HttpAnswer,
    headers: Readonly<Record<string, string>>,
    requests: ReadonlyArray<{ id: RequestId }>,
  ): Promise<AuthVerdict> {
    try {
      const again = await this.provider.challenged(this.host.url, {
        status: response.status,
        wwwAuthenticate: response.header('www-authenticate'),
        protocolVersion: headers['mcp-protocol-version'],
        dpopNonce: response.header('dpop-nonce'),
      });
      if (!again) return 'refused';
      response.discard();
      return 'retry';
    } catch (error) {
      response.discard();
      const reason = (error as Error).message;
      this.host.log.warn({ reason }, 'authorization failed');
      const owed = new Set(requests.map((r) => keyOf(r.id)));
      this.host.failOwed(owed, `authorization failed: ${reason}`, { authorization: true });
      return 'failed';
    }
  }
}
