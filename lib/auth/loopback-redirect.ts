/**
 * User interaction for a command-line or desktop client: a listener on a loopback port receives the
 * authorization server's redirect (RFC 8252 §7.3), so the user signs in with their browser and the
 * code comes back to the process. Only the redirect that carries the `state` of a sign-in under
 * way is taken: anything else that reaches the port (another local process guessing, a stale
 * browser tab) is answered 400 and the sign-in goes on waiting.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuthError } from './errors';

/** Options of {@link startLoopbackRedirect}. */
export interface LoopbackRedirectOptions {
  /** Shows the user the authorization URL: open a browser, or print it. */
  readonly open: (authorizationUrl: URL) => void | Promise<void>;
  /** The port to listen on; default 0 (any free port, registered with the client as it is). */
  readonly port?: number;
  /** The callback path; default `/callback`. */
  readonly path?: string;
  /** How long to wait for the user; default 5 minutes. */
  readonly timeoutMs?: number;
}

/** A loopback listener for redirects, to pass as `redirectUrl` and `authorize` of `createOAuthClient`. */
export interface LoopbackRedirect {
  readonly redirectUrl: string;
  /**
   * Shows the user `authorizationUrl` and resolves with the URL the browser was redirected to,
   * once a redirect carrying the authorization URL's own `state` arrives; rejects at once when the
   * authorization URL has no `state`, and after `timeoutMs` when no matching redirect came.
   */
  readonly authorize: (authorizationUrl: URL) => Promise<string>;
  /**
   * Resolves with the first redirect whose `state` is `state` (compared in constant time), without
   * showing anything: for a client that opens the browser itself. Rejects after `timeoutMs`.
   */
  waitFor(state: string): Promise<string>;
  /** Stops the listener; resolves once it is closed. */
  close(): Promise<void>;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Whether `candidate` equals `expected`, in a time that does not depend on where they differ. */
function sameState(candidate: string, expected: Buffer): boolean {
  return timingSafeEqual(digest(candidate), expected);
}

const PAGE_DONE =
  '<!doctype html><title>Signed in</title><p>You can close this window and return to the application.</p>';
const PAGE_MISMATCH =
  '<!doctype html><title>Sign-in not recognised</title><p>This response does not belong to a sign-in under way; it was ignored.</p>';

/** Starts the listener on 127.0.0.1; `close()` it once the client is done signing in. */
export async function startLoopbackRedirect(options: LoopbackRedirectOptions): Promise<LoopbackRedirect> {
  const path = options.path ?? '/callback';
  const timeoutMs = options.timeoutMs ?? 300_000;
  // The sign-ins under way, each with the digest of the state its redirect must carry.
  const waiting = new Set<{ readonly state: Buffer; readonly resolve: (url: string) => void }>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1`);
    if (req.method !== 'GET' || url.pathname !== path || waiting.size === 0) {
      res.writeHead(404).end();
      return;
    }
    const states = url.searchParams.getAll('state');
    // Every waiting sign-in is compared, so the time taken does not tell which one came close.
    let match: { readonly resolve: (url: string) => void } | undefined;
    if (states.length === 1) for (const entry of waiting) if (sameState(states[0]!, entry.state)) match ??= entry;
    const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };
    if (match === undefined) {
      res.writeHead(400, headers).end(PAGE_MISMATCH);
      return;
    }
    res.writeHead(200, headers).end(PAGE_DONE);
    match.resolve(`${redirectUrl}${url.search}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const redirectUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const waitFor = (state: string): Promise<string> => {
    if (state === '') return Promise.reject(new OAuthError('a redirect cannot be told apart without a state'));
    return new Promise<string>((resolve, reject) => {
      const entry = {
        state: digest(state),
        resolve: (url: string) => {
          waiting.delete(entry);
          clearTimeout(timer);
          resolve(url);
        },
      };
      const timer = setTimeout(() => {
        waiting.delete(entry);
        reject(new OAuthError('nobody completed the sign-in in time'));
      }, timeoutMs);
      timer.unref();
      waiting.add(entry);
    });
  };
  return {
    redirectUrl,
    waitFor,
    async authorize(authorizationUrl) {
      const state = authorizationUrl.searchParams.get('state');
      if (state === null || state === '')
        throw new OAuthError('the authorization URL has no state: its redirect could not be told from a forged one');
      const back = waitFor(state);
      back.catch(() => undefined);
      await options.open(authorizationUrl);
      return back;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
