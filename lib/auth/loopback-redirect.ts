/**
 * User interaction for a command-line or desktop client: a listener on a loopback port receives the
 * authorization server's redirect (RFC 8252 §7.3), so the user signs in with their browser and the
 * code comes back to the process.
 */
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
  readonly authorize: (authorizationUrl: URL) => Promise<string>;
  close(): Promise<void>;
}

/** Starts the listener on 127.0.0.1; `close()` it once the client is done signing in. */
export async function startLoopbackRedirect(options: LoopbackRedirectOptions): Promise<LoopbackRedirect> {
  const path = options.path ?? '/callback';
  let waiting: { resolve: (url: string) => void } | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1`);
    if (req.method !== 'GET' || url.pathname !== path || waiting === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end('<!doctype html><title>Signed in</title><p>You can close this window and return to the application.</p>');
    waiting.resolve(`${redirectUrl}${url.search}`);
    waiting = undefined;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const redirectUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return {
    redirectUrl,
    async authorize(authorizationUrl) {
      const back = new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new OAuthError('nobody completed the sign-in in time')),
          options.timeoutMs ?? 300_000,
        );
        timer.unref();
        waiting = {
          resolve: (url) => {
            clearTimeout(timer);
            resolve(url);
          },
        };
      });
      await options.open(authorizationUrl);
      return back;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
