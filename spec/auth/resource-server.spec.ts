import type { IncomingMessage, ServerResponse } from 'node:http';
import { createResourceServer, introspectionVerifier, jwtVerifier } from '../../lib/auth/resource-server';
import { jose } from '../../lib/auth/jose';
import { parseChallenges } from '../../lib/auth/www-authenticate';

const RESOURCE = 'https://mcp.example/mcp';
const ISSUER = 'https://as.example';

async function keys() {
  const { privateKey, publicKey } = await jose().generateKeyPair('ES256');
  // Every token names its user unless a test says otherwise (`sub: undefined`).
  const sign = (claims: Record<string, unknown>, expires = '5m') =>
    new (jose().SignJWT)(JSON.parse(JSON.stringify({ sub: 'alice', ...claims })) as Record<string, unknown>)
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(expires)
      .sign(privateKey);
  return { publicKey, sign };
}

const challengeOf = (header: string) => parseChallenges(header)[0]!.params;

describe('createResourceServer with JWT access tokens', () => {
  async function setup(requiredScopes?: string[]) {
    const { publicKey, sign } = await keys();
    const server = createResourceServer({
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      scopesSupported: ['mcp:read', 'mcp:write'],
      ...(requiredScopes ? { requiredScopes } : {}),
      verify: jwtVerifier({ keys: publicKey, issuer: ISSUER, audience: RESOURCE }),
    });
    const check = (authorization?: string) => server.authenticate(authorization === undefined ? {} : { authorization });
    return { server, sign, check };
  }

  it('accepts a valid token and tells who called, with which scopes', async () => {
    const { sign, check } = await setup();
    const token = await sign({ aud: RESOURCE, sub: 'alice', client_id: 'app', scope: 'mcp:read mcp:write' });
    const outcome = await check(`Bearer ${token}`);
    expect(outcome).toMatchObject({
      ok: true,
      info: { subject: 'alice', clientId: 'app', scopes: ['mcp:read', 'mcp:write'] },
    });
  });

  it('challenges a request without credentials with the metadata URL and no error code', async () => {
    const { check } = await setup(['mcp:read']);
    const outcome = await check();
    expect(outcome).toMatchObject({ ok: false, status: 401 });
    if (outcome.ok) return;
    expect(outcome.error).toBeUndefined();
    expect(challengeOf(outcome.wwwAuthenticate)).toEqual({
      resource_metadata: 'https://mcp.example/.well-known/oauth-protected-resource/mcp',
      scope: 'mcp:read',
    });
  });

  it.each([
    ['another audience', { aud: 'https://other.example/mcp' }, '5m'],
    ['an expired token', { aud: RESOURCE }, '-2m'],
  ])('refuses %s with 401 invalid_token', async (_what, claims, expires) => {
    const { sign, check } = await setup();
    const outcome = await check(`Bearer ${await sign(claims, expires)}`);
    expect(outcome).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
  });

  it('refuses a token signed by another key, and a header that is not a bearer token', async () => {
    const { check } = await setup();
    const forged = await (await keys()).sign({ aud: RESOURCE });
    expect(await check(`Bearer ${forged}`)).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
    expect(await check('Basic dXNlcjpwYXNz')).toMatchObject({ ok: false, status: 401, error: 'invalid_request' });
  });

  it('refuses a token that names neither a subject nor a client: it has no principal to bind a session to', async () => {
    const { sign, check } = await setup();
    const outcome = await check(`Bearer ${await sign({ aud: RESOURCE, sub: undefined, scope: 'mcp:read' })}`);
    expect(outcome).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
    const clientOnly = await check(`Bearer ${await sign({ aud: RESOURCE, sub: undefined, client_id: 'app' })}`);
    expect(clientOnly).toMatchObject({ ok: true, info: { clientId: 'app' } });
  });

  it('answers a token without the required scopes 403 insufficient_scope, naming them', async () => {
    const { sign, check } = await setup(['mcp:write']);
    const outcome = await check(`Bearer ${await sign({ aud: RESOURCE, scope: 'mcp:read' })}`);
    expect(outcome).toMatchObject({ ok: false, status: 403, error: 'insufficient_scope' });
    if (!outcome.ok) expect(challengeOf(outcome.wwwAuthenticate).scope).toBe('mcp:read mcp:write');
  });

  it('publishes its protected resource metadata at the path-aware well-known URL only', async () => {
    const { server } = await setup();
    const answer = { status: 0, headers: {} as Record<string, string>, body: '' };
    const res = {
      writeHead(status: number, headers: Record<string, string>) {
        answer.status = status;
        answer.headers = headers;
      },
      end(body?: string) {
        answer.body = body ?? '';
      },
    } as unknown as ServerResponse;
    const get = { method: 'GET' } as IncomingMessage;
    expect(server.serveMetadata(get, res, new URL('https://mcp.example/.well-known/oauth-protected-resource'))).toBe(
      false,
    );
    expect(
      server.serveMetadata(get, res, new URL('https://mcp.example/.well-known/oauth-protected-resource/mcp')),
    ).toBe(true);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:read', 'mcp:write'],
    });
  });
});

describe('introspectionVerifier', () => {
  const verifierAnswering = (claims: Record<string, unknown>) => {
    const seen: RequestInit[] = [];
    const verify = introspectionVerifier({
      endpoint: `${ISSUER}/introspect`,
      clientId: 'rs',
      clientSecret: 'secret',
      audience: RESOURCE,
      fetch: (async (_url: string | URL, init?: RequestInit) => {
        seen.push(init!);
        return new Response(JSON.stringify(claims), { status: 200 });
      }) as typeof fetch,
    });
    return { verify, seen };
  };

  it('accepts an active token for this resource, authenticating itself with Basic', async () => {
    const { verify, seen } = verifierAnswering({ active: true, aud: RESOURCE, sub: 'bob', scope: 'a b' });
    await expect(verify('opaque')).resolves.toMatchObject({ subject: 'bob', scopes: ['a', 'b'] });
    expect((seen[0]!.headers as Record<string, string>).authorization).toBe(`Basic ${btoa('rs:secret')}`);
    expect(String(seen[0]!.body)).toContain('token=opaque');
  });

  it.each([
    ['an inactive token', { active: false }],
    ['a token for another resource', { active: true, aud: 'https://other.example/mcp' }],
    ['an expired token', { active: true, aud: RESOURCE, exp: 1 }],
  ])('refuses %s', async (_what, claims) => {
    await expect(verifierAnswering(claims).verify('opaque')).rejects.toMatchObject({ name: 'InvalidTokenError' });
  });
});
