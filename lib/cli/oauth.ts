/**
 * Authorization for `rxmcp connect` and the HTTP upstreams of `rxmcp proxy`: an `AuthProvider` that, only once the server first answers
 * 401, opens a loopback redirect listener (http://127.0.0.1:<port>/callback), prints the
 * authorization URL for the user to open, and runs the OAuth client's authorization code flow with
 * PKCE; or, with `grant: 'client_credentials'`, obtains a token for the client itself, no user
 * and no listener. Tokens stay in memory, for this process only, unless `storage` keeps them.
 */
import { createOAuthClient } from '../auth/oauth-client';
import type { OAuthClient, OAuthClientOptions } from '../auth/oauth-client';
import type { OAuthClientInformation, OAuthStorage } from '../auth/storage';
import { startLoopbackRedirect } from '../auth/loopback-redirect';
import type { LoopbackRedirect, LoopbackRedirectOptions } from '../auth/loopback-redirect';
import type { AuthChallengeAnswer, AuthProvider, AuthRequest } from '../transport/http-client/auth-provider';

/** Options of {@link createCliAuth}. */
export interface CliAuthOptions {
  /** The loopback port of the redirect; 0 picks a free one. */
  readonly callbackPort: number;
  /** Shows the user the authorization URL (the command prints it to stderr). */
  readonly show: (authorizationUrl: URL) => void;
  /** How long to wait for the user to sign in. Default 5 minutes. */
  readonly timeoutMs?: number;
  /** The name the client registers under. Default `rxmcp connect`. */
  readonly clientName?: string;
  /** For tests: the fetch the OAuth client talks to the authorization server with. */
  readonly fetch?: typeof fetch;
  /** `client_credentials`: the client's own token, with `client`; no user signs in. Default the authorization code. */
  readonly grant?: 'authorization_code' | 'client_credentials';
  /** A client registered beforehand. Default: registered dynamically. */
  readonly client?: OAuthClientInformation;
  /** The scopes to ask for. Default: those the server's challenge names. */
  readonly scope?: string;
  /** Where tokens and registrations are kept (a file, to survive restarts). Default: in memory. */
  readonly storage?: OAuthStorage;
}

/** The provider, with what it opened to close. */
export interface CliAuth extends AuthProvider {
  /** Whether a sign-in is under way (asked for, not yet finished or failed). */
  readonly signingIn: boolean;
  /** Stops the loopback listener, if one was started. */
  close(): Promise<void>;
}

/** A provider that starts signing in only when a server asks for it. */
export function createCliAuth(options: CliAuthOptions): CliAuth {
  let started: Promise<{ client: OAuthClient; redirect?: LoopbackRedirect }> | undefined;
  let client: OAuthClient | undefined;
  const common: OAuthClientOptions = {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.client ? { client: options.client } : {}),
    ...(options.scope !== undefined ? { scope: options.scope } : {}),
    ...(options.storage ? { storage: options.storage } : {}),
  };
  const start = async () => {
    if (options.grant === 'client_credentials') {
      client = createOAuthClient({ ...common, grant: 'client_credentials' });
      return { client };
    }
    const redirectOptions: LoopbackRedirectOptions = {
      port: options.callbackPort,
      open: (url) => options.show(url),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    };
    const redirect = await startLoopbackRedirect(redirectOptions);
    const clientOptions: OAuthClientOptions = {
      redirectUrl: redirect.redirectUrl,
      authorize: (url) => redirect.authorize(url),
      clientMetadata: { client_name: options.clientName ?? 'rxmcp connect' },
      ...common,
    };
    client = createOAuthClient(clientOptions);
    return { client, redirect };
  };
  let signing = 0;
  return {
    headers: (request: AuthRequest) => (client ? client.headers(request) : Promise.resolve({})),
    async challenged(serverUrl: URL, answer: AuthChallengeAnswer) {
      // A listener that could not start (its port taken) is tried again at the next challenge.
      started ??= start().catch((error: unknown) => {
        started = undefined;
        throw error;
      });
      signing++;
      try {
        return await (await started).client.challenged(serverUrl, answer);
      } finally {
        signing--;
      }
    },
    get signingIn() {
      return signing > 0;
    },
    accepted: () => client?.accepted?.(),
    async close() {
      const running = await started?.catch(() => undefined);
      await running?.redirect?.close();
    },
  };
}
