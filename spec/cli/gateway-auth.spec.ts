import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jose } from '../../lib/auth/jose';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { parseProxyConfig } from '../../lib/cli/config';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startInProcessProxy } from './in-process-proxy';
import type { InProcessProxy } from './in-process-proxy';
import { textOf } from './cli-process';

// The servers file's `auth`: who may call `rxmcp proxy --http`, an API key from the environment or
// JWTs checked against an authorization server's key set. The caller's credentials stay at the
// gateway: the HTTP upstream reports the headers it was sent, and none carries them.

const KEY = 'k3y-0f-the-gateway-0123456789';

/** An HTTP upstream whose `headers` tool answers with the request headers it received. */
async function headersUpstream(): Promise<RunningStreamableHttpServer> {
  const server = createServer({ name: 'remote', version: '1.0.0' });
  server.tool({ name: 'headers', handler: (_args, context) => textResult(JSON.stringify(context.headers ?? {})) });
  return startStreamableHttpServer({ server, port: 0 });
}

/** POSTs an initialize to `url` with `headers`. */
const initialize = (url: URL, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'spec', version: '1.0.0' } },
    }),
  });

/** The headers the upstream saw on a call through the gateway, as `client` made it. */
async function upstreamHeaders(client: McpClient): Promise<Record<string, unknown>> {
  return JSON.parse(textOf(await client.promises.callTool('remote_headers'))) as Record<string, unknown>;
}

let upstream: RunningStreamableHttpServer | undefined;
let gateway: InProcessProxy | undefined;
let client: McpClient | undefined;

afterEach(async () => {
  client?.close();
  await gateway?.stop();
  await upstream?.close();
  [client, gateway, upstream] = [undefined, undefined, undefined];
});

describe('the servers file\'s "auth"', () => {
  it('refuses a file whose API key variable is unset or short, or that names two kinds', () => {
    const file = (auth: unknown) => JSON.stringify({ mcpServers: { a: { command: 'x' } }, auth });
    expect(() => parseProxyConfig('s.json', file({ apiKey: { env: 'GATEWAY_KEY' } }), {})).toThrow(
      's.json: "auth.apiKey": the environment variable GATEWAY_KEY is not set',
    );
    expect(() =>
      parseProxyConfig('s.json', file({ apiKey: { env: 'GATEWAY_KEY' } }), { GATEWAY_KEY: 'short' }),
    ).toThrow(/shorter than 16 characters/);
    const jwt = { resource: 'https://g/mcp', issuer: 'https://as', jwksUri: 'https://as/jwks' };
    expect(() => parseProxyConfig('s.json', file({ apiKey: { env: 'K' }, jwt }), { K: KEY })).toThrow(
      /exactly one of "apiKey", "jwt" and "introspection"/,
    );
    expect(() => parseProxyConfig('s.json', file({ jwt: { ...jwt, jwks: 'x' } }), {})).toThrow(
      /unknown key "auth.jwt.jwks"/,
    );
    const parsed = parseProxyConfig('s.json', file({ apiKey: { env: 'K', subject: 'ci', scopes: ['read'] } }), {
      K: KEY,
    });
    expect(parsed.auth).toEqual({ kind: 'apiKey', env: 'K', key: KEY, subject: 'ci', scopes: ['read'] });
  });

  it('with an API key: 401 without it or with a wrong one, served with it; the upstream never sees it', async () => {
    upstream = await headersUpstream();
    gateway = await startInProcessProxy(
      { mcpServers: { remote: { url: upstream.url.href } }, auth: { apiKey: { env: 'GATEWAY_KEY' } } },
      { GATEWAY_KEY: KEY },
    );
    expect(gateway.stderr()).toContain('callers need an API key (GATEWAY_KEY)');
    expect(gateway.stderr()).not.toContain(KEY);

    const none = await initialize(gateway.url);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="rxmcp"');
    const wrong = await initialize(gateway.url, { authorization: `Bearer ${KEY}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer realm="rxmcp", error="invalid_token"/);
    expect((await initialize(gateway.url, { 'x-api-key': 'nope' })).status).toBe(401);
    expect((await initialize(gateway.url, { 'x-api-key': KEY })).status).toBe(200);
    // The operations endpoints' /metrics takes the key too; /healthz answers anyone.
    expect((await fetch(new URL('/metrics', gateway.url))).status).toBe(401);
    expect((await fetch(new URL('/healthz', gateway.url))).status).toBe(200);

    const transport = createStreamableHttpClientTransport({
      url: gateway.url,
      headers: { authorization: `Bearer ${KEY}`, 'x-api-key': KEY },
    });
    client = await connect(transport, { name: 'spec', version: '1.0.0', protocolVersion: '2025-11-25' });
    const seen = await upstreamHeaders(client);
    expect(seen['user-agent'] ?? seen['content-type']).toBeDefined();
    expect(seen).not.toHaveProperty('authorization');
    expect(seen).not.toHaveProperty('x-api-key');
    expect(JSON.stringify(seen)).not.toContain(KEY);
  });

  it('lets a scraper read /metrics with the token of metrics.tokenEnv, and no one else', async () => {
    upstream = await headersUpstream();
    const config = {
      mcpServers: { remote: { url: upstream.url.href } },
      auth: { apiKey: { env: 'GATEWAY_KEY' } },
      metrics: { tokenEnv: 'METRICS_TOKEN' },
    };
    expect(() => parseProxyConfig('s.json', JSON.stringify(config), { GATEWAY_KEY: KEY })).toThrow(
      's.json: "metrics.tokenEnv": the environment variable METRICS_TOKEN is not set',
    );
    gateway = await startInProcessProxy(config, { GATEWAY_KEY: KEY, METRICS_TOKEN: 'scraper-token' });
    const metrics = (token?: string) =>
      fetch(new URL('/metrics', gateway!.url), token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const scraped = await metrics('scraper-token');
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('mcp_upstream_up{upstream="remote"} 1\n');
    expect((await metrics()).status).toBe(401);
    expect((await metrics('wrong')).status).toBe(401);
  });

  describe('with JWTs of an authorization server', () => {
    let keys: Server;
    let issuer: string;
    let sign: (claims: { aud: string; sub?: string }) => Promise<string>;
    const resource = 'http://gateway.test/mcp';

    beforeAll(async () => {
      const { publicKey, privateKey } = await jose().generateKeyPair('ES256');
      const jwk = { ...(await jose().exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
      keys = createHttpServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
      );
      await new Promise<void>((done) => keys.listen(0, '127.0.0.1', done));
      issuer = `http://127.0.0.1:${(keys.address() as AddressInfo).port}`;
      sign = ({ aud, sub = 'alice' }) =>
        new (jose().SignJWT)({ scope: 'mcp' })
          .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
          .setIssuer(issuer)
          .setAudience(aud)
          .setSubject(sub)
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(privateKey);
    });
    afterAll(() => new Promise((done) => keys.close(done)));

    it('challenges with its metadata, refuses a token for another resource, serves a good one, passes none upstream', async () => {
      upstream = await headersUpstream();
      gateway = await startInProcessProxy(
        {
          mcpServers: { remote: { url: upstream.url.href } },
          auth: { jwt: { resource, issuer: '${ISSUER}', jwksUri: '${ISSUER}/jwks', requiredScopes: ['mcp'] } },
        },
        { ISSUER: issuer },
      );
      const none = await initialize(gateway.url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toContain(
        'resource_metadata="http://gateway.test/.well-known/oauth-protected-resource/mcp"',
      );
      const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', gateway.url));
      expect(await metadata.json()).toMatchObject({ resource, authorization_servers: [issuer] });
      const elsewhere = await initialize(gateway.url, {
        authorization: `Bearer ${await sign({ aud: 'https://other/mcp' })}`,
      });
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.headers.get('www-authenticate')).toContain('error="invalid_token"');

      const token = await sign({ aud: resource });
      const transport = createStreamableHttpClientTransport({
        url: gateway.url,
        headers: { authorization: `Bearer ${token}` },
      });
      client = await connect(transport, { name: 'spec', version: '1.0.0', protocolVersion: '2025-11-25' });
      const seen = await upstreamHeaders(client);
      expect(seen).not.toHaveProperty('authorization');
      expect(JSON.stringify(seen)).not.toContain(token);
    });
  });
});
