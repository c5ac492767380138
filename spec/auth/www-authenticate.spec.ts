import { bearerChallenge, parseChallenges } from '../../lib/auth/www-authenticate';

describe('parseChallenges', () => {
  it('reads several challenges with quoted and bare parameters', () => {
    expect(
      parseChallenges('Basic realm="a, b", Bearer error="invalid_token", scope="x y", resource_metadata=https://h/p'),
    ).toEqual([
      { scheme: 'basic', params: { realm: 'a, b' } },
      { scheme: 'bearer', params: { error: 'invalid_token', scope: 'x y', resource_metadata: 'https://h/p' } },
    ]);
  });

  it('unescapes quoted pairs and tolerates spaces around "="', () => {
    expect(parseChallenges('Bearer realm = "say \\"hi\\"" , error=insufficient_scope')).toEqual([
      { scheme: 'bearer', params: { realm: 'say "hi"', error: 'insufficient_scope' } },
    ]);
  });

  it('keeps a token68 and lower-cases schemes and parameter names', () => {
    expect(parseChallenges('NEGOTIATE abc==, DPoP Algs="ES256"')).toEqual([
      { scheme: 'negotiate', params: { token68: 'abc==' } },
      { scheme: 'dpop', params: { algs: 'ES256' } },
    ]);
  });

  it('stops at an unterminated quote without throwing', () => {
    expect(parseChallenges('Bearer scope="open')).toEqual([{ scheme: 'bearer', params: { scope: 'open' } }]);
  });
});

describe('bearerChallenge', () => {
  it('takes the Bearer challenge among others', () => {
    expect(
      bearerChallenge(
        'Basic realm="x", Bearer error="insufficient_scope", scope="mcp:basic mcp:write", error_description="more"',
      ),
    ).toEqual({
      scheme: 'bearer',
      error: 'insufficient_scope',
      scope: 'mcp:basic mcp:write',
      errorDescription: 'more',
    });
  });

  it('falls back to a DPoP challenge, and is undefined without either', () => {
    expect(bearerChallenge('DPoP resource_metadata="https://h/.well-known/oauth-protected-resource"')).toEqual({
      scheme: 'dpop',
      resourceMetadata: 'https://h/.well-known/oauth-protected-resource',
    });
    expect(bearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(bearerChallenge(undefined)).toBeUndefined();
  });
});
