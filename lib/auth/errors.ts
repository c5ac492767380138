import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
/** The errors of the authorization client. */

/**
 * Authorization could not be done: discovery found nothing usable, the authorization server
 * refused, a metadata document was forged or inconsistent, or a limit was reached. `code` is the
 * OAuth error code when the authorization server sent one (RFC 6749 §5.2).
 */
export class OAuthError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.OAuth;
  override readonly name: string = 'OAuthError';

  constructor(
    message: string,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
