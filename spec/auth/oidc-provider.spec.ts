import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createOAuthClient } from '../../lib/auth/oauth-client';
import type { OAuthClientOptions } from '../../lib/auth/oauth-client';
import { createResourceServer, introspectionVerifier, jwtVerifier } from '../../lib/auth/resource-server';
import type { TokenVerifier } from '../../lib/auth/resource-server';
import { connect } from '../../lib/client/client';
import { createServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { createStreamableHttpHandler } from '../../lib/transport/http-server/streamable-http/streamable-http-handler';
import { serveHttp } from '../../examples/conformance/everything-server';

// End to end against a real authorization server (oidc-provider, in a child process): a client
// that signs in (authorization code + PKCE, dynamic registration, resource indicator), refreshes,
// or acts as a service (client credentials), calling a protected rxmcp server that verifies the
// JWT access tokens against the provider's key set, or by introspection.

const FIXTURE = resolve(__dirname, '../fixtures/oidc-provider.mjs');

let provider: ChildProcess | undefined;
let issuer = '';
let mcp: Server | undefined;

async function startProvider(env: Record<string, string> = {}): Promise<void> {
  provider = spawn(process.execPath, [FIXTURE], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const line = await new Promise<string>((done) => createInterface({ input: provider!.stdout! }).once('line', done));
  issuer = (JSON.parse(line) as { issuer: string }).issuer;
}

/** A protected MCP server: `whoami` answers with the caller's subject and scopes. */
async function startProtected(verify: (resource: string) => TokenVerifier, requiredScopes?: string[]) {
  mcp = createHttpServer();
  await new Promise<void>((done) => mcp!.listen(0, '127.0.0.1', done));
  const resource = `http://127.0.0.1:${(mcp.address() as AddressInfo).port}/mcp`;
  const server = createServer({ name: 'protected', version: '1.0.0' });
  let lastCaller: unknown;
  server.tool({ name: 'whoami', description: 'Who called.', handler: () => textResult(JSON.stringify(lastCaller)) });
  const handler = createStreamableHttpHandler({ server });
  const guard = createResourceServer({
    resource,
    authorizationServers: [issuer],
    scopesSupported: ['mcp:read', 'mcp:write'],
    ...(requiredScopes ? { requiredScopes } : {}),
    verify: verify(resource),
  });
  const refusals: number[] = [];
  mcp.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', resource);
    if (guard.serveMetadata(req, res, url)) return;
    void guard.authenticate(req.headers).then((outcome) => {
      if (!outcome.ok) {
        refusals.push(outcome.status);
        res.writeHead(outcome.status, {
          'www-authenticate': outcome.wwwAuthenticate,
          'content-type': 'application/json',
        });
        res.end(JSON.stringify({ error: outcome.error ?? 'unauthorized', error_description: outcome.description }));
        return;
      }
      lastCaller = { subject: outcome.info.subject, clientId: outcome.info.clientId, scopes: outcome.info.scopes };
      handler.handle(req, res);
    });
  });
  return { resource, refusals };
}

/** A user agent without a user: follows the provider's redirects, cookies kept, up to the redirect URI. */
function headlessBrowser(redirectUrl: string) {
  const cookies = new Map<string, string>();
  return async (start: URL): Promise<string> => {
    let url = start.href;
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const set of response.headers.getSetCookie()) {
        const [pair] = set.split(';');
        const at = pair!.indexOf('=');
        cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
      await response.arrayBuffer();
      const location = response.headers.get('location');
      if (location === null) throw new Error(`the provider answered ${response.status} without a redirect`);
      url = new URL(location, url).href;
      if (url.startsWith(redirectUrl)) return url;
    }
    throw new Error('too many redirects');
  };
}

const REDIRECT = 'http://127.0.0.1:9/callback';

function signIn(extra: Partial<OAuthClientOptions> = {}) {
  return createOAuthClient({
    redirectUrl: REDIRECT,
    authorize: headlessBrowser(REDIRECT),
    clientMetadata: { client_name: 'oidc test client' },
    ...extra,
  });
}

afterEach(async () => {
  await new Promise((done) => (mcp ? mcp.close(done) : done(undefined)));
  mcp?.closeAllConnections();
  mcp = undefined;
  provider?.kill('SIGTERM');
  provider = undefined;
});

const jwks = (resource: string) => jwtVerifier({ jwksUri: `${issuer}/jwks`, issuer, audience: resource });

describe('authorization against oidc-provider', () => {
  it('signs a user in with authorization code + PKCE and calls the protected server as that user', async () => {
    await startProvider();
    const { resource, refusals } = await startProtected(jwks);
    const oauth = signIn();
    const client = await connect(createStreamableHttpClientTransport({ url: resource, auth: oauth }), {
      name: 'c',
      version: '1',
      protocolVersion: '2025-11-25',
    });
    const result = await client.promises.callTool('whoami', {});
    const caller = JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
    expect(caller).toMatchObject({ subject: 'alice', scopes: ['mcp:read', 'mcp:write'] });
    expect(typeof caller.clientId).toBe('string');
    expect(refusals).toEqual([401]);
    expect(oauth.tokens?.refresh_token).toBeDefined();
    await client.close();
  }, 30_000);

  it('refreshes an expired access token without signing in again', async () => {
    await startProvider({ ACCESS_TOKEN_TTL: '1' });
    const { resource, refusals } = await startProtected(jwks);
    const authorizations: URL[] = [];
    const browser = headlessBrowser(REDIRECT);
    const oauth = signIn({ authorize: (url) => (authorizations.push(url), browser(url)) });
    const client = await connect(createStreamableHttpClientTransport({ url: resource, auth: oauth }), {
      name: 'c',
      version: '1',
      protocolVersion: '2025-11-25',
    });
    const first = oauth.tokens?.access_token;
    await new Promise((done) => setTimeout(done, 1500));
    await client.promises.callTool('whoami', {});
    expect(oauth.tokens?.access_token).not.toBe(first);
    expect(authorizations).toHaveLength(1);
    expect(refusals.length).toBeLessThanOrEqual(2);
    await client.close();
  }, 30_000);

  it('lets a service call with client credentials, verified by introspection', async () => {
    await startProvider({ ACCESS_TOKEN_FORMAT: 'opaque' });
    const { resource } = await startProtected((audience) =>
      introspectionVerifier({
        endpoint: `${issuer}/token/introspection`,
        clientId: 'service',
        clientSecret: 'service-secret',
        audience,
      }),
    );
    const oauth = createOAuthClient({
      grant: 'client_credentials',
      client: { client_id: 'service', client_secret: 'service-secret' },
      scope: 'mcp:read',
    });
    const client = await connect(createStreamableHttpClientTransport({ url: resource, auth: oauth }), {
      name: 'svc',
      version: '1',
      protocolVersion: '2025-11-25',
    });
    const result = await client.promises.callTool('whoami', {});
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({
      clientId: 'service',
      scopes: ['mcp:read'],
    });
    await client.close();
  }, 30_000);

  it('refuses a token issued for another resource, and one without the required scope (403)', async () => {
    await startProvider();
    const { resource, refusals } = await startProtected(jwks, ['mcp:write']);
    const service = (scope: string) =>
      createOAuthClient({
        grant: 'client_credentials',
        client: { client_id: 'service', client_secret: 'service-secret' },
        scope,
        maxAttempts: 2,
      });
    // mcp:read only: 403 insufficient_scope; asking again with client credentials cannot add mcp:write.
    const refused = await connect(createStreamableHttpClientTransport({ url: resource, auth: service('mcp:read') }), {
      name: 'svc',
      version: '1',
      protocolVersion: '2025-11-25',
    }).catch((error: unknown) => error as Error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/authorization failed/);
    expect(refusals).toContain(403);

    // A token for another resource: the provider issues it with that audience, and this server refuses it.
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'mcp:write',
      resource: 'http://127.0.0.1:1/other',
    });
    const issued = (await (
      await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${btoa('service:service-secret')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body,
      })
    ).json()) as { access_token: string };
    const answer = await fetch(resource, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${issued.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  }, 30_000);

  it('protects the example server (--auth): a client signs in and calls it; without a token it gets 401', async () => {
    await startProvider();
    const example = await serveHttp(0, { issuer, scopes: ['mcp:read'] });
    try {
      const anonymous = await fetch(example.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(anonymous.status).toBe(401);
      const client = await connect(createStreamableHttpClientTransport({ url: example.url, auth: signIn() }), {
        name: 'c',
        version: '1',
      });
      const sum = await client.promises.callTool('add', { a: 2, b: 40 });
      expect(sum.content).toEqual([{ type: 'text', text: '42' }]);
      await client.close();
    } finally {
      await example.close();
    }
  }, 30_000);
});
