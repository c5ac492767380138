/**
 * An OAuth-protected server: every request must carry a bearer token (a JWT) that your
 * authorization server issued for this server, and the `whoami` tool also needs the scope `mcp:read`.
 *
 *   ISSUER=https://auth.example.com node dist/examples/protected-server.js
 *
 * Environment: ISSUER, the authorization server's issuer URL (required); JWKS_URI, where its signing
 * keys are published (default ${ISSUER}/jwks); PORT (default 0: a free port). It prints its URL.
 * Without a token a request is answered 401 with a WWW-Authenticate header that points the client to
 * the protected resource metadata (served beside the endpoint), where it finds the issuer.
 */
import { createResourceServer, createServer, jwtVerifier, startStreamableHttpServer, textResult } from 'rxmcp';

const issuer = process.env.ISSUER;
if (!issuer) {
  process.stderr.write(
    'protected-server: set ISSUER to your authorization server (for example https://auth.example.com)\n',
  );
  process.exit(2);
}
const jwksUri = process.env.JWKS_URI ?? `${issuer.replace(/\/$/, '')}/jwks`;

const server = createServer({ name: 'protected-example', version: '1.0.0' });

// Any valid token may list tools; only a token with the scope mcp:read may call this one
// (another gets 403 insufficient_scope, naming the scope). The verified caller is context.auth.
server.tool({
  name: 'whoami',
  description: 'Says who called.',
  scopes: ['mcp:read'],
  handler: (_args, context) => textResult(`hello ${context.auth?.subject ?? 'stranger'}`),
});

void startStreamableHttpServer({
  server,
  host: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  // Called once the server listens: its endpoint URL is the resource, and the audience a token must have.
  auth: (endpoint) =>
    createResourceServer({
      resource: endpoint.href,
      authorizationServers: [issuer],
      scopesSupported: ['mcp:read'],
      verify: jwtVerifier({ jwksUri, issuer, audience: endpoint.href }),
    }),
}).then((running) => {
  process.stdout.write(`protected-example at ${running.url.href} (tokens from ${issuer})\n`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
});
