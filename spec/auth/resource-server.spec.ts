import type { IncomingMessage, ServerResponse } from 'node:http';
import { createResourceServer, introspectionVerifier, jwtVerifier } from '../../lib/auth/resource-server';
import type { IntrospectionVerifierOptions } from '../../lib/auth/resource-server';
import type { ConsoleLike } from '../../lib/base/logger';
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
  /** Signs `claims` as they are: no expiry or issue time added. */
  const signBare = (claims: Record<string, unknown>) =>
    new (jose().SignJWT)(claims).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
  return { publicKey, sign, signBare };
}

const challengeOf = (header: string) => parseChallenges(header)[0]!.params;

describe('createResourceServer with JWT access tokens', () => {
  async function setup(requiredScopes?: string[], logger?: ConsoleLike) {
    const { publicKey, sign, signBare } = await keys();
    const server = createResourceServer({
      ...(logger ? { logger } : {}),
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      scopesSupported: ['mcp:read', 'mcp:write'],
      ...(requiredScopes ? { requiredScopes } : {}),
      verify: jwtVerifier({ keys: publicKey, issuer: ISSUER, audience: RESOURCE }),
    });
    const check = (authorization?: string) => server.authenticate(authorization === undefined ? {} : { authorization });
    return { server, sign, signBare, check };
  }

  it('refuses a token without an expiry, as RFC 9068 requires one', async () => {
    const { signBare, check } = await setup();
    const token = await signBare({ iss: ISSUER, aud: RESOURCE, sub: 'alice', iat: Math.floor(Date.now() / 1000) });
    const outcome = await check(`Bearer ${token}`);
    expect(outcome).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
  });

  it.each([
    ['an expired token', { aud: RESOURCE }, '-2m', 'the token has expired'],
    ['another audience', { aud: 'https://other.example/mcp' }, '5m', 'the token was issued for another resource'],
    [
      'another issuer',
      { aud: RESOURCE, iss: 'https://evil.example' },
      '5m',
      'the token was issued by an authorization server this resource does not trust',
    ],
  ])('tells the client of %s only a fixed description, and logs the detail', async (_what, claims, expires, text) => {
    const logged: unknown[][] = [];
    const logger = {
      error: () => undefined,
      warn: () => undefined,
      info: (...data: unknown[]) => logged.push(data),
      debug: () => undefined,
    };
    const { sign, signBare, check } = await setup(undefined, logger);
    const token =
      'iss' in claims
        ? await signBare({ ...claims, sub: 'alice', exp: Math.floor(Date.now() / 1000) + 300 })
        : await sign(claims, expires);
    const outcome = await check(`Bearer ${token}`);
    expect(outcome).toMatchObject({ ok: false, status: 401, error: 'invalid_token', description: text });
    if (outcome.ok) return;
    expect(challengeOf(outcome.wwwAuthenticate).error_description).toBe(text);
    expect(JSON.stringify(logged)).toMatch(/claim/);
  });

  it('describes a forged signature and a malformed token with fixed text, never the library’s', async () => {
    const { check } = await setup();
    const forged = await check(`Bearer ${await (await keys()).sign({ aud: RESOURCE })}`);
    expect(forged).toMatchObject({ ok: false, description: 'the token signature does not verify' });
    const malformed = await check('Bearer abc.def.ghi');
    expect(malformed).toMatchObject({ ok: false, description: 'the token is malformed or lacks a required claim' });
  });

  it('answers a verifier that fails for its own reasons with a generic description', async () => {
    const server = createResourceServer({
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      verify: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:443')),
    });
    const outcome = await server.authenticate({ authorization: 'Bearer abc' });
    expect(outcome).toMatchObject({ ok: false, status: 401, description: 'the token could not be verified' });
  });

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
  const verifierAnswering = (
    claims: Record<string, unknown>,
    cache: Pick<IntrospectionVerifierOptions, 'cacheMaxAgeMs' | 'cacheMaxEntries'> = {},
  ) => {
    const seen: RequestInit[] = [];
    const verify = introspectionVerifier({
      ...cache,
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

describe('introspectionVerifier, caching what it was told', () => {
  const NOW = 1_800_000_000_000;
  afterEach(() => jest.restoreAllMocks());

  function counting(
    answer: (token: string) => Record<string, unknown>,
    cache: Partial<IntrospectionVerifierOptions> = {},
  ) {
    const asked: string[] = [];
    const verify = introspectionVerifier({
      endpoint: `${ISSUER}/introspect`,
      clientId: 'rs',
      clientSecret: 'secret',
      audience: RESOURCE,
      ...cache,
      fetch: (async (_url: string | URL, init?: RequestInit) => {
        const token = new URLSearchParams(String(init!.body)).get('token')!;
        asked.push(token);
        return new Response(JSON.stringify(answer(token)), { status: 200 });
      }) as typeof fetch,
    });
    return { verify, asked };
  }
  const active =
    (exp = NOW / 1000 + 3600) =>
    () => ({ active: true, aud: RESOURCE, sub: 'bob', exp });

  it('asks once for an active token, again once the maximum age has passed', async () => {
    const clock = jest.spyOn(Date, 'now').mockReturnValue(NOW);
    const { verify, asked } = counting(active(), { cacheMaxAgeMs: 30_000 });
    await expect(verify('t-1')).resolves.toMatchObject({ subject: 'bob' });
    clock.mockReturnValue(NOW + 29_999);
    await expect(verify('t-1')).resolves.toMatchObject({ subject: 'bob' });
    expect(asked).toEqual(['t-1']);
    clock.mockReturnValue(NOW + 30_000);
    await verify('t-1');
    expect(asked).toEqual(['t-1', 't-1']);
  });

  it('keeps an answer for 60 seconds by default, and never past the token’s expiry', async () => {
    const clock = jest.spyOn(Date, 'now').mockReturnValue(NOW);
    const { verify, asked } = counting(active(NOW / 1000 + 10));
    await verify('short');
    clock.mockReturnValue(NOW + 9_999);
    await verify('short');
    expect(asked).toEqual(['short']);
    clock.mockReturnValue(NOW + 10_001);
    await expect(verify('short')).rejects.toMatchObject({ reason: 'expired' });
    expect(asked).toEqual(['short', 'short']);
    const { verify: verifyLong, asked: askedLong } = counting(active());
    clock.mockReturnValue(NOW);
    await verifyLong('long');
    clock.mockReturnValue(NOW + 59_999);
    await verifyLong('long');
    clock.mockReturnValue(NOW + 60_000);
    await verifyLong('long');
    expect(askedLong).toEqual(['long', 'long']);
  });

  it('keeps no inactive token, and asks each time for one', async () => {
    jest.spyOn(Date, 'now').mockReturnValue(NOW);
    const { verify, asked } = counting(() => ({ active: false }));
    await expect(verify('revoked')).rejects.toMatchObject({ reason: 'inactive' });
    await expect(verify('revoked')).rejects.toMatchObject({ reason: 'inactive' });
    expect(asked).toEqual(['revoked', 'revoked']);
  });

  it('keeps at most cacheMaxEntries tokens, dropping the least recently used', async () => {
    jest.spyOn(Date, 'now').mockReturnValue(NOW);
    const { verify, asked } = counting(active(), { cacheMaxEntries: 2 });
    await verify('a');
    await verify('b');
    await verify('a'); // a is now the most recently used
    await verify('c'); // drops b
    await verify('a');
    await verify('b');
    expect(asked).toEqual(['a', 'b', 'c', 'b']);
  });

  it('asks on every request with cacheMaxAgeMs 0, and once for calls that overlap', async () => {
    jest.spyOn(Date, 'now').mockReturnValue(NOW);
    const off = counting(active(), { cacheMaxAgeMs: 0 });
    await off.verify('t');
    await off.verify('t');
    expect(off.asked).toEqual(['t', 't']);
    const on = counting(active());
    await Promise.all([on.verify('t'), on.verify('t'), on.verify('t')]);
    expect(on.asked).toEqual(['t']);
  });
});
