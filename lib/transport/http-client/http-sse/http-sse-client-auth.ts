/**
 * The HTTP+SSE client's side of authorization: the provider's credentials on the stream's GET and
 * on each POST, and a 401 or 403 answered by asking the provider, once per request, for new ones.
 */
import { RxmcpErrorCode, TransportError } from '../../../jsonrpc/errors';
import type { AuthProvider } from '../auth-provider';

/**
 * The provider failed to authorize (it rejected): a `TransportError` to the user, told apart
 * inside the transport from a request that could not be made.
 */
export class AuthorizationFailed extends TransportError {
  override readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.AuthorizationFailed;
}

/** Sends one request with the credential headers given. */
export type SendWith = (credentials: Readonly<Record<string, string>>) => Promise<Response>;

/** Authorization for one HTTP+SSE client transport. */
export class HttpSseClientAuth {
  /** @param serverUrl The server as the user named it (the SSE URL): where a challenge sends discovery. */
  constructor(
    private readonly provider: AuthProvider,
    private readonly serverUrl: URL,
  ) {}

  /**
   * Sends a request with the provider's credentials for `method` on `url`. A 401 or 403 goes to
   * the provider's `challenged`; when it obtained new credentials the request is sent once more
   * with them (the refused one ran nothing on the server), else the refusal is the answer. Rejects
   * with {@link AuthorizationFailed} when the provider does, or with `send`'s own failure.
   */
  async send(url: URL, method: string, send: SendWith): Promise<Response> {
    let response = await send(await this.credentials(url, method));
    if (response.status === 401 || response.status === 403) {
      if (!(await this.challenged(response))) return response;
      await response.body?.cancel().catch(() => undefined);
      response = await send(await this.credentials(url, method));
    }
    if (response.ok) this.provider.accepted?.();
    return response;
  }

  private async credentials(url: URL, method: string): Promise<Readonly<Record<string, string>>> {
    try {
      return await this.provider.headers({ url, method });
    } catch (error) {
      throw new AuthorizationFailed(`authorization failed: ${(error as Error).message}`, { cause: error });
    }
  }

  private async challenged(response: Response): Promise<boolean> {
    try {
      return await this.provider.challenged(this.serverUrl, {
        status: response.status,
        wwwAuthenticate: response.headers.get('www-authenticate') ?? undefined,
        // The HTTP+SSE transport carries no protocol version header.
        protocolVersion: undefined,
        dpopNonce: response.headers.get('dpop-nonce') ?? undefined,
      });
    } catch (error) {
      await response.body?.cancel().catch(() => undefined);
      throw new AuthorizationFailed(`authorization failed: ${(error as Error).message}`, { cause: error });
    }
  }
}
