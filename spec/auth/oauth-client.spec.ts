import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resourceCovers, resourceMetadataUrls, serverMetadataUrls } from '../../lib/auth/discovery';
import { OAuthError } from '../../lib/auth/errors';
import { applicationTypeOf, createOAuthClient } from '../../lib/auth/oauth-client';
import type { OAuthClientOptions } from '../../lib/auth/oauth-client';
import { s256 } from '../../lib/auth/pkce';
import { createFileOAuthStorage } from '../../lib/auth/storage';

// The OAuth client against a scripted MCP server and authorization server reached through an
// injected fetch: every request is recorded, so each test checks what went on the wire.

const MCP = new URL('https://mcp.example/mcp');
const AS = 'https://as.example';

interface Seen {
  readonly url: URL;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface World {
  readonly seen: Seen[];
  /** Documents by URL; a missing one answers 404. */
  readonly documents: Map<string, unknown>;
  /** The token endpoint's answer to a form. */
  token: (form: URLSearchParams, headers: Record<string, string>) => { status: number; body: unknown };
  /** Redirect query parameters the authorization endpoint adds (beyond code and state). */
  authorizeExtra: Record<string, string>;
  fetch: typeof fetch;
}

function world(): World {
  const w: World = {
    seen: [],
    documents: new Map<string, unknown>([
      [
        `https://mcp.example/.well-known/oauth-protected-resource/mcp`,
        { resource: MCP.href, authorization_servers: [AS] },
      ],
      [
        `${AS}/.well-known/oauth-authorization-server`,
        {
          issuer: AS,
          authorization_endpoint: `${AS}/authorize`,
          token_endpoint: `${AS}/token`,
          registration_endpoint: `${AS}/register`,
          token_endpoint_auth_methods_supported: ['none'],
        },
      ],
    ]),
    token: () => ({ status: 200, body: { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600 } }),
    authorizeExtra: {},
    fetch: (async (input: string | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>));
      const body = typeof init?.body === 'string' ? init.body : '';
      w.seen.push({ url, method: init?.method ?? 'GET', headers, body });
      const json = (status: number, value: unknown) =>
        new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
      if (url.pathname === '/register') return json(201, { client_id: 'dyn-client', ...(JSON.parse(body) as object) });
      if (url.pathname === '/token') {
        const answer = w.token(new URLSearchParams(body), headers);
        return json(answer.status, answer.body);
      }
      const document = w.documents.get(url.href);
      return document === undefined ? new Response('not found', { status: 404 }) : json(200, document);
    }) as typeof fetch,
  };
  return w;
}

/** An `authorize` that plays the authorization endpoint: code and state back to the redirect URL. */
function authorizer(w: World, urls: URL[]) {
  return (url: URL): Promise<string> => {
    urls.push(url);
    const back = new URL(url.searchParams.get('redirect_uri') as string);
    back.searchParams.set('code', 'the-code');
    back.searchParams.set('state', url.searchParams.get('state') as string);
    for (const [k, v] of Object.entries(w.authorizeExtra)) back.searchParams.set(k, v);
    return Promise.resolve(back.href);
  };
}

const challenge401 = (
  header = `Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"`,
) => ({
  status: 401,
  wwwAuthenticate: header,
  protocolVersion: '2025-11-25',
});

function client(w: World, urls: URL[], options: Partial<OAuthClientOptions> = {}) {
  return createOAuthClient({
    redirectUrl: 'http://127.0.0.1:8123/callback',
    authorize: authorizer(w, urls),
    fetch: w.fetch,
    ...options,
  });
}

const forms = (w: World, path: string) =>
  w.seen.filter((s) => s.url.pathname === path).map((s) => new URLSearchParams(s.body));

describe('discovery URLs', () => {
  it('tries the path-aware protected resource metadata before the root, and only the one a challenge names', () => {
    expect(resourceMetadataUrls(new URL('https://h/a/mcp')).map(String)).toEqual([
      'https://h/.well-known/oauth-protected-resource/a/mcp',
      'https://h/.well-known/oauth-protected-resource',
    ]);
    expect(resourceMetadataUrls(new URL('https://h/mcp'), 'https://h/custom.json').map(String)).toEqual([
      'https://h/custom.json',
    ]);
  });

  it('inserts an issuer path into both well-known names, then appends the OpenID one; never the root', () => {
    expect(serverMetadataUrls(new URL('https://as/tenant1')).map(String)).toEqual([
      'https://as/.well-known/oauth-authorization-server/tenant1',
      'https://as/.well-known/openid-configuration/tenant1',
      'https://as/tenant1/.well-known/openid-configuration',
    ]);
    expect(serverMetadataUrls(new URL('https://as')).map(String)).toEqual([
      'https://as/.well-known/oauth-authorization-server',
      'https://as/.well-known/openid-configuration',
    ]);
  });

  it('accepts metadata for the server or a parent path of it, on the same origin only', () => {
    expect(resourceCovers('https://h/', new URL('https://h/mcp'))).toBe(true);
    expect(resourceCovers('https://h/mcp', new URL('https://h/mcp'))).toBe(true);
    expect(resourceCovers('https://h/mc', new URL('https://h/mcp'))).toBe(false);
    expect(resourceCovers('https://evil.example/mcp', new URL('https://h/mcp'))).toBe(false);
    expect(resourceCovers('not a url', new URL('https://h/mcp'))).toBe(false);
  });

  it('registers as native for a loopback or private-scheme redirect and as web otherwise', () => {
    expect(applicationTypeOf('http://127.0.0.1:1/cb')).toBe('native');
    expect(applicationTypeOf('com.example.app:/cb')).toBe('native');
    expect(applicationTypeOf('https://app.example/cb')).toBe('web');
  });
});

describe('createOAuthClient: authorization code', () => {
  it('registers, authorizes with PKCE S256, state, scope and resource, and redeems the code for the header', async () => {
    const w = world();
    const urls: URL[] = [];
    const oauth = client(w, urls);
    expect((await oauth.headers({ url: MCP, method: 'POST' })).authorization).toBeUndefined();
    const header = `Bearer scope="mcp:basic", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"`;
    await expect(oauth.challenged(MCP, challenge401(header))).resolves.toBe(true);
    expect((await oauth.headers({ url: MCP, method: 'POST' })).authorization).toBe('Bearer at-1');

    const registration = JSON.parse(w.seen.find((s) => s.url.pathname === '/register')!.body) as Record<
      string,
      unknown
    >;
    expect(registration).toMatchObject({
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1:8123/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    });
    const [authorize] = urls;
    expect(Object.fromEntries(authorize!.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'dyn-client',
      code_challenge_method: 'S256',
      scope: 'mcp:basic',
      resource: MCP.href,
    });
    const [token] = forms(w, '/token');
    expect(Object.fromEntries(token!)).toMatchObject({
      grant_type: 'authorization_code',
      code: 'the-code',
      client_id: 'dyn-client',
      resource: MCP.href,
    });
    expect(await s256(token!.get('code_verifier')!)).toBe(authorize!.searchParams.get('code_challenge'));
  });

  it('asks for every supported scope when the challenge names none, and for none when nothing is known', async () => {
    const w = world();
    const urls: URL[] = [];
    w.documents.set('https://mcp.example/.well-known/oauth-protected-resource/mcp', {
      resource: MCP.href,
      authorization_servers: [AS],
      scopes_supported: ['a', 'b'],
    });
    await client(w, urls).challenged(MCP, challenge401());
    expect(urls[0]!.searchParams.get('scope')).toBe('a b');

    const bare = world();
    const bareUrls: URL[] = [];
    await client(bare, bareUrls).challenged(MCP, challenge401());
    expect(bareUrls[0]!.searchParams.has('scope')).toBe(false);
  });

  it('refuses protected resource metadata for another resource before any authorization request', async () => {
    const w = world();
    const urls: URL[] = [];
    w.documents.set('https://mcp.example/.well-known/oauth-protected-resource/mcp', {
      resource: 'https://evil.example/mcp',
      authorization_servers: [AS],
    });
    await expect(client(w, urls).challenged(MCP, challenge401())).rejects.toThrow(/refusing to authorize/);
    expect(urls).toEqual([]);
    expect(w.seen.some((s) => s.url.origin === AS)).toBe(false);
  });

  it('refuses authorization server metadata whose issuer is another one', async () => {
    const w = world();
    w.documents.set(`${AS}/.well-known/oauth-authorization-server`, {
      issuer: 'https://attacker.example',
      authorization_endpoint: 'https://attacker.example/authorize',
      token_endpoint: 'https://attacker.example/token',
    });
    await expect(client(w, []).challenged(MCP, challenge401())).rejects.toThrow(/is for issuer https:\/\/attacker/);
  });

  it.each([
    ['another state', { state: 'forged' }, /another state/],
    ['an issuer that is not the server', { iss: 'https://other.example' }, /issuer https:\/\/other.example/],
    ['an error', { error: 'access_denied' }, /access_denied/],
  ])('rejects an authorization response with %s, redeeming nothing', async (_what, extra, message) => {
    const w = world();
    w.authorizeExtra = extra;
    await expect(client(w, []).challenged(MCP, challenge401())).rejects.toThrow(message);
    expect(forms(w, '/token')).toEqual([]);
  });

  it('requires iss when the server says it sends it (RFC 9207)', async () => {
    const w = world();
    const metadata = w.documents.get(`${AS}/.well-known/oauth-authorization-server`) as Record<string, unknown>;
    w.documents.set(`${AS}/.well-known/oauth-authorization-server`, {
      ...metadata,
      authorization_response_iss_parameter_supported: true,
    });
    await expect(client(w, []).challenged(MCP, challenge401())).rejects.toThrow(/issuer \(none\)/);
    w.authorizeExtra = { iss: AS };
    await expect(client(w, []).challenged(MCP, challenge401())).resolves.toBe(true);
  });

  it('steps up on 403 insufficient_scope with the union of scopes, and gives up after three tries', async () => {
    const w = world();
    const urls: URL[] = [];
    const oauth = client(w, urls);
    await oauth.challenged(MCP, challenge401('Bearer scope="mcp:basic"'));
    w.token = (form) => ({
      status: 200,
      body: { access_token: 'at-2', token_type: 'Bearer', scope: form.get('scope') },
    });
    const stepUp = {
      status: 403,
      wwwAuthenticate: 'Bearer error="insufficient_scope", scope="mcp:write"',
      protocolVersion: undefined,
    };
    await expect(oauth.challenged(MCP, stepUp)).resolves.toBe(true);
    expect(urls[1]!.searchParams.get('scope')).toBe('mcp:write');
    await expect(oauth.challenged(MCP, stepUp)).resolves.toBe(true);
    expect(urls[2]!.searchParams.get('scope')).toBe('mcp:write');
    await expect(oauth.challenged(MCP, stepUp)).rejects.toBeInstanceOf(OAuthError);
    expect(urls).toHaveLength(3);
    // An accepted request starts the count again.
    oauth.accepted?.();
    await expect(oauth.challenged(MCP, stepUp)).resolves.toBe(true);
  });

  it('lets a 403 that is not about scope stand', async () => {
    const oauth = client(world(), []);
    await expect(
      oauth.challenged(MCP, {
        status: 403,
        wwwAuthenticate: 'Bearer error="invalid_request"',
        protocolVersion: undefined,
      }),
    ).resolves.toBe(false);
  });

  it('refreshes on a 401 when it holds a refresh token, keeping it when none comes back', async () => {
    const w = world();
    const urls: URL[] = [];
    w.token = () => ({ status: 200, body: { access_token: 'at-1', token_type: 'Bearer', refresh_token: 'rt-1' } });
    const oauth = client(w, urls);
    await oauth.challenged(MCP, challenge401());
    expect((await oauth.headers({ url: MCP, method: 'POST' })).authorization).toBe('Bearer at-1');
    w.token = (form) =>
      form.get('grant_type') === 'refresh_token' && form.get('refresh_token') === 'rt-1'
        ? { status: 200, body: { access_token: 'at-2', token_type: 'bearer' } }
        : { status: 400, body: { error: 'invalid_grant' } };
    await expect(oauth.challenged(MCP, challenge401())).resolves.toBe(true);
    expect(urls).toHaveLength(1);
    expect((await oauth.headers({ url: MCP, method: 'POST' })).authorization).toBe('Bearer at-2');
    expect(oauth.tokens?.refresh_token).toBe('rt-1');
  });
});

describe('createOAuthClient: clients and token endpoint authentication', () => {
  it('uses a client metadata document URL as client_id when the server supports it, without registering', async () => {
    const w = world();
    const urls: URL[] = [];
    const metadata = w.documents.get(`${AS}/.well-known/oauth-authorization-server`) as Record<string, unknown>;
    w.documents.set(`${AS}/.well-known/oauth-authorization-server`, {
      ...metadata,
      client_id_metadata_document_supported: true,
    });
    await client(w, urls, { clientMetadataUrl: 'https://app.example/client.json' }).challenged(MCP, challenge401());
    expect(urls[0]!.searchParams.get('client_id')).toBe('https://app.example/client.json');
    expect(w.seen.some((s) => s.url.pathname === '/register')).toBe(false);
  });

  it('sends a pre-registered secret with HTTP Basic, form-encoding both parts', async () => {
    const w = world();
    await client(w, [], {
      client: { client_id: 'id:1', client_secret: 's p&c' },
      grant: 'client_credentials',
    }).challenged(MCP, challenge401());
    const token = w.seen.find((s) => s.url.pathname === '/token')!;
    expect(token.headers.authorization).toBe(`Basic ${btoa('id%3A1:s+p%26c')}`);
    expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({
      grant_type: 'client_credentials',
      resource: MCP.href,
    });
  });

  it('follows the registration: client_secret_post puts the secret in the form', async () => {
    const w = world();
    await client(w, [], {
      client: { client_id: 'c', client_secret: 's', token_endpoint_auth_method: 'client_secret_post' },
    }).challenged(MCP, challenge401());
    const [token] = forms(w, '/token');
    expect(token!.get('client_secret')).toBe('s');
    expect(w.seen.find((s) => s.url.pathname === '/token')!.headers.authorization).toBeUndefined();
  });

  it('names the token endpoint error it was refused with', async () => {
    const w = world();
    w.token = () => ({ status: 400, body: { error: 'invalid_client', error_description: 'unknown client' } });
    await expect(client(w, []).challenged(MCP, challenge401())).rejects.toMatchObject({
      code: 'invalid_client',
      message: expect.stringMatching(/invalid_client: unknown client/),
    });
  });

  it('falls back, for a server with no metadata at all (2025-03-26), to /authorize, /token and /register', async () => {
    const w = world();
    w.documents.clear();
    const urls: URL[] = [];
    await client(w, urls).challenged(MCP, challenge401('Bearer'));
    expect(urls[0]!.origin + urls[0]!.pathname).toBe('https://mcp.example/authorize');
    expect(w.seen.some((s) => s.url.href === 'https://mcp.example/register')).toBe(true);
    expect(w.seen.some((s) => s.url.href === 'https://mcp.example/token')).toBe(true);
  });
});

describe('createFileOAuthStorage', () => {
  it('keeps records per resource and issuer in a file only its owner can read', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'oauth-')), 'nested', 'tokens.json');
    const storage = createFileOAuthStorage(path);
    await Promise.all([
      storage.save('https://mcp/a', { issuer: 'https://as1', tokens: { access_token: 'one', token_type: 'Bearer' } }),
      storage.save('https://mcp/a', { issuer: 'https://as2/', tokens: { access_token: 'two', token_type: 'Bearer' } }),
    ]);
    expect((await storage.load('https://mcp/a', 'https://as1/'))?.tokens?.access_token).toBe('one');
    expect((await createFileOAuthStorage(path).load('https://mcp/a', 'https://as2'))?.tokens?.access_token).toBe('two');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await storage.clear('https://mcp/a');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({});
  });
});
