import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createResourceServer, InvalidTokenError } from '../../lib/auth/resource-server';
import { parseProxyConfig } from '../../lib/cli/config';
import { defaultTokenFile } from '../../lib/cli/upstream-oauth';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startAuthorizationServer } from './authorization-server';
import { textOf } from './cli-process';
import { launchInProcessProxy, startInProcessProxy } from './in-process-proxy';
import type { InProcessProxy, LaunchedProxy } from './in-process-proxy';

// A URL upstream's `oauth`: the gateway signs in to a protected server through a real authorization
// server on 127.0.0.1 (its metadata, registration, authorize and token endpoints), keeps the tokens
// in the named file, and a restart reuses them without signing in again.

type AuthorizationServer = Awaited<ReturnType<typeof startAuthorizationServer>>;

/** A server that takes only `token-1` of `issuer`, with a `whoami` tool. */
function protectedUpstream(issuer: string): Promise<RunningStreamableHttpServer> {
  const server = createServer({ name: 'crm', version: '1.0.0' });
  server.tool({ name: 'whoami', handler: (_args, context) => textResult(context.auth?.subject ?? 'nobody') });
  return startStreamableHttpServer({
    server,
    port: 0,
    auth: (endpoint) =>
      createResourceServer({
        resource: endpoint.href,
        authorizationServers: [issuer],
        verify: (token) =>
          token === 'token-1'
            ? Promise.resolve({ subject: 'gateway-user', scopes: [], claims: {} })
            : Promise.reject(new InvalidTokenError('unknown token')),
      }),
  });
}

describe('a URL upstream with "oauth"', () => {
  let authorization: AuthorizationServer;
  let upstream: RunningStreamableHttpServer;
  let folder: string;
  let gateway: InProcessProxy | LaunchedProxy | undefined;
  let client: McpClient | undefined;

  beforeEach(async () => {
    authorization = await startAuthorizationServer();
    upstream = await protectedUpstream(authorization.issuer);
    folder = mkdtempSync(join(tmpdir(), 'rxmcp-oauth-'));
  });
  afterEach(async () => {
    client?.close();
    await gateway?.stop();
    await upstream.close();
    await authorization.close();
    rmSync(folder, { recursive: true, force: true });
    [client, gateway] = [undefined, undefined];
  });

  const whoami = async (url: URL) => {
    client = await connect(createStreamableHttpClientTransport({ url }), {
      name: 'spec',
      version: '1.0.0',
      protocolVersion: '2025-11-25',
    });
    const answer = textOf(await client.promises.callTool('crm_whoami'));
    client.close();
    client = undefined;
    return answer;
  };

  it('signs in once through the printed URL, keeps the tokens in the file, and reuses them after a restart', async () => {
    const tokenFile = join(folder, 'state', 'tokens.json');
    const config = { mcpServers: { crm: { url: upstream.url.href, oauth: { tokenFile, scopes: ['crm.read'] } } } };
    const first = launchInProcessProxy(config);
    gateway = first;
    const [, signIn] = await first.stderrMatch(/crm asks you to sign in: open (\S+)\n/);
    // The user's browser: the authorization server approves and redirects to the loopback listener.
    expect((await fetch(signIn!)).status).toBe(200);
    expect(await whoami(await first.serving)).toBe('gateway-user');
    expect(authorization.seen.authorize).toHaveLength(1);
    expect(authorization.seen.authorize[0]!.get('scope')).toBe('crm.read');
    expect(authorization.seen.token).toHaveLength(1);
    const kept = JSON.parse(readFileSync(tokenFile, 'utf8')) as Record<string, { tokens?: { access_token: string } }>;
    expect(Object.values(kept).map((record) => record.tokens?.access_token)).toEqual(['token-1']);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    await first.stop();

    gateway = await startInProcessProxy(config);
    expect(await whoami(gateway.url)).toBe('gateway-user');
    expect(gateway.stderr()).not.toContain('asks you to sign in');
    expect(authorization.seen.authorize).toHaveLength(1);
    expect(authorization.seen.token).toHaveLength(1);
  });

  it("with client credentials, obtains the gateway's own token with no sign-in", async () => {
    const config = {
      mcpServers: {
        crm: {
          url: upstream.url.href,
          oauth: {
            grant: 'client_credentials',
            clientId: 'gateway',
            clientSecret: '${CRM_SECRET}',
            tokenFile: 'tokens.json',
          },
        },
      },
    };
    gateway = await startInProcessProxy(config, { CRM_SECRET: 'the-secret' });
    expect(await whoami(gateway.url)).toBe('gateway-user');
    expect(gateway.stderr()).not.toContain('asks you to sign in');
    expect(authorization.seen.authorize).toHaveLength(0);
    const [request] = authorization.seen.token;
    expect(request!.get('grant_type')).toBe('client_credentials');
    expect(request!.get('resource')).toBe(upstream.url.href);
    // A relative tokenFile is taken from the servers file's folder.
    expect(readFileSync(join(gateway.file, '..', 'tokens.json'), 'utf8')).toContain('token-1');
  });

  it('is refused where it cannot work, and keeps tokens in the state folder by default', () => {
    const parse = (entry: unknown, env: Record<string, string> = {}) =>
      parseProxyConfig('/srv/gw/servers.json', JSON.stringify({ mcpServers: { crm: entry } }), env);
    expect(() => parse({ url: 'http://h/mcp', type: 'sse', oauth: {} })).toThrow(/"oauth" needs Streamable HTTP/);
    expect(() => parse({ url: 'http://h/mcp', oauth: { clientSecret: 's' } })).toThrow(/needs "oauth.clientId"/);
    expect(() => parse({ url: 'http://h/mcp', oauth: { grant: 'client_credentials' } })).toThrow(
      /"client_credentials" needs "clientId" and "clientSecret"/,
    );
    expect(() => parse({ command: 'x', oauth: {} })).toThrow(/unknown key "oauth"/);
    const [crm] = parse({ url: 'http://h/mcp', oauth: { tokenFile: 'tokens.json' } }).upstreams;
    expect(crm).toMatchObject({
      oauth: { grant: 'authorization_code', tokenFile: '/srv/gw/tokens.json', callbackPort: 0 },
    });
    const [home] = parse(
      { url: 'http://h/mcp', oauth: { clientId: '${ID}' } },
      { ID: 'gw', HOME: '/home/ops' },
    ).upstreams;
    expect(home).toMatchObject({
      oauth: { client: { client_id: 'gw' }, tokenFile: '/home/ops/.local/state/rxmcp/tokens.json' },
    });
    expect(defaultTokenFile({ XDG_STATE_HOME: '/state' })).toBe('/state/rxmcp/tokens.json');
  });
});
