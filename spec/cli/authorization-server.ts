import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// The authorization server the command's sign-in tests talk to.

/** The body of a request, as text. */
async function bodyOf(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}

/**
 * A minimal authorization server on 127.0.0.1: its metadata, dynamic registration, an authorization
 * endpoint that approves at once (redirecting with a code), and a token endpoint; it records what
 * reached the last two.
 */
export async function startAuthorizationServer() {
  const seen = { authorize: [] as URLSearchParams[], token: [] as URLSearchParams[] };
  let issuer = '';
  const server: Server = createHttpServer((req, res) => {
    void bodyOf(req).then((body) => {
      const url = new URL(req.url ?? '/', issuer);
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        json(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
        });
      } else if (url.pathname === '/register') json(201, { ...(JSON.parse(body) as object), client_id: 'cli-client' });
      else if (url.pathname === '/authorize') {
        seen.authorize.push(url.searchParams);
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', 'the-code');
        back.searchParams.set('state', url.searchParams.get('state')!);
        res.writeHead(302, { location: back.href }).end();
      } else if (url.pathname === '/token') {
        seen.token.push(new URLSearchParams(body));
        json(200, { access_token: 'token-1', token_type: 'Bearer', expires_in: 3600 });
      } else res.writeHead(404).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, seen, close: () => new Promise<void>((done) => server.close(() => done())) };
}
