import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { jose } from '../../lib/auth/jose';
import { createResourceServer, jwtVerifier } from '../../lib/auth/resource-server';
import { parseChallenges } from '../../lib/auth/www-authenticate';
import { connect } from '../../lib/client/client';
import { createServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import type { AuthProvider } from '../../lib/transport/http-client/auth-provider';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';

// A protected Streamable HTTP endpoint (`startStreamableHttpServer({ auth })`): metadata, challenges,
// the verified caller on each handler's context in sessions and in modern requests, scopes per
// tool, and sessions that stay with the user who opened them.

const ISSUER = 'https://as.example';
let running: RunningStreamableHttpServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start() {
  const { privateKey, publicKey } = await jose().generateKeyPair('ES256');
  const server = createServer({ name: 'protected', version: '1.0.0' });
  server.tool({
    name: 'whoami',
    description: 'Who called, as the context and the session see it.',
    handler: (_args, context) =>
      textResult(
        JSON.stringify({ context: context.auth?.subject ?? null, session: context.session?.auth?.subject ?? null }),
      ),
  });
  server.tool({
    name: 'header',
    description: 'Echoes the x-trace header of the request that carried the call.',
    handler: (_args, context) =>
      textResult(
        `${String(context.headers?.['x-trace'] ?? 'none')}${context.headers?.authorization ? ' with token' : ''}${context.headers?.['x-api-key'] ? ' with key' : ''}`,
      ),
  });
  server.tool({
    name: 'admin',
    description: 'Needs the admin scope.',
    inputSchema: z.object({}),
    scopes: ['mcp:admin'],
    handler: () => textResult('done'),
  });
  running = await startStreamableHttpServer({
    server,
    // Made once the server listens, from its endpoint URL: the resource and the tokens' audience.
    auth: (endpoint) =>
      createResourceServer({
        resource: endpoint.href,
        authorizationServers: [ISSUER],
        scopesSupported: ['mcp:read', 'mcp:admin'],
        verify: jwtVerifier({ keys: publicKey, issuer: ISSUER, audience: endpoint.href }),
      }),
  });
  const resource = running.url.href;
  const token = (sub: string, scope = 'mcp:read', aud = resource) =>
    new (jose().SignJWT)({ sub, scope, aud })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  return { url: running.url, token };
}

const fixed = (value: () => Promise<string>): AuthProvider => ({
  headers: async () => ({ authorization: `Bearer ${await value()}` }),
  challenged: () => Promise.resolve(false),
});

/** A client whose every request carries alice's token. */
const connectAsAlice = (
  url: URL,
  token: (sub: string) => Promise<string>,
  protocolVersion: '2025-11-25' | '2026-07-28',
) =>
  connect(createStreamableHttpClientTransport({ url, auth: fixed(() => token('alice')) }), {
    name: 'c',
    version: '1',
    protocolVersion,
  });

const post = (url: URL, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('startStreamableHttpServer({ auth })', () => {
  it('publishes its protected resource metadata and challenges a request without a token', async () => {
    const { url } = await start();
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ resource: url.href, authorization_servers: [ISSUER] });
    const refused = await post(url, initialize);
    expect(refused.status).toBe(401);
    expect(parseChallenges(refused.headers.get('www-authenticate')!)[0]).toEqual({
      scheme: 'bearer',
      params: { resource_metadata: new URL('/.well-known/oauth-protected-resource/mcp', url).href },
    });
  });

  it('refuses a token for another audience with invalid_token', async () => {
    const { url, token } = await start();
    const refused = await post(url, initialize, {
      authorization: `Bearer ${await token('alice', 'mcp:read', 'https://elsewhere.example/mcp')}`,
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it.each(['2025-11-25', '2026-07-28'] as const)(
    'gives each handler the verified caller (%s)',
    async (protocolVersion) => {
      const { url, token } = await start();
      const client = await connectAsAlice(url, token, protocolVersion);
      const result = await client.promises.callTool('whoami', {});
      const seen = JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
      expect(seen).toEqual(
        protocolVersion === '2026-07-28' ? { context: 'alice', session: null } : { context: 'alice', session: 'alice' },
      );
      await client.close();
    },
  );

  it('answers a call to a tool whose scope the token lacks 403 insufficient_scope, naming it', async () => {
    const { url, token } = await start();
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const call = (scope: string) =>
      token('alice', scope).then((t) =>
        post(
          url,
          { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin', arguments: {}, _meta: meta } },
          {
            authorization: `Bearer ${t}`,
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'admin',
          },
        ),
      );
    const refused = await call('mcp:read');
    expect(refused.status).toBe(403);
    expect(parseChallenges(refused.headers.get('www-authenticate')!)[0]!.params).toMatchObject({
      error: 'insufficient_scope',
      scope: 'mcp:read mcp:admin',
    });
    const allowed = await call('mcp:read mcp:admin');
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toMatch(/done/);
  });

  it("keeps a session with the user who opened it: another user's token is refused 403", async () => {
    const { url, token } = await start();
    const opened = await post(url, initialize, { authorization: `Bearer ${await token('alice')}` });
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id')!;
    const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
    const headers = (t: string) => ({
      authorization: `Bearer ${t}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    });
    expect((await post(url, ping, headers(await token('bob')))).status).toBe(403);
    expect((await post(url, ping, headers(await token('alice')))).status).toBe(200);
  });

  it.each(['2025-11-25', '2026-07-28'] as const)(
    'gives each handler the HTTP headers of its own request, credentials left out (%s)',
    async (protocolVersion) => {
      const { url, token } = await start();
      const client = await connectAsAlice(url, token, protocolVersion);
      const calls = ['a', 'b', 'c'].map((trace) =>
        client.promises.callTool('header', {}, { headers: { 'x-trace': trace, 'x-api-key': 'secret' } }),
      );
      const texts = (await Promise.all(calls)).map((result) => (result.content[0] as { text: string }).text);
      expect(texts).toEqual(['a', 'b', 'c']);
      await client.close();
    },
  );
});

describe('credentials and redirects', () => {
  it.each([
    ['node:http', {}],
    ['fetch', { fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, init) }],
  ])('never sends the Authorization header to another origin a server redirects to (%s)', async (stack, extra) => {
    const seen: Array<string | undefined> = [];
    const other = createHttpServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(404).end();
    });
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
    const redirecting = createHttpServer((_req, res) => {
      // localhost is another origin than 127.0.0.1.
      res.writeHead(307, { location: `http://localhost:${(other.address() as AddressInfo).port}/mcp` }).end();
    });
    await new Promise<void>((done) => redirecting.listen(0, '127.0.0.1', done));
    try {
      const failed = await connect(
        createStreamableHttpClientTransport({
          url: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/mcp`,
          auth: fixed(() => Promise.resolve('secret-token')),
          ...extra,
        }),
        { name: 'c', version: '1', protocolVersion: '2025-11-25' },
      ).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(Error);
      // fetch follows the redirect (without the header); node:http does not follow it at all.
      expect(seen.length > 0).toBe(stack === 'fetch');
      expect(seen.every((header) => header === undefined)).toBe(true);
    } finally {
      other.closeAllConnections();
      redirecting.closeAllConnections();
      await new Promise((done) => other.close(done));
      await new Promise((done) => redirecting.close(done));
    }
  });
});
