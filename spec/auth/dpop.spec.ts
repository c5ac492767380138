import { createHash } from 'node:crypto';
import { DpopProver } from '../../lib/auth/dpop';
import { jose } from '../../lib/auth/jose';
import { requestTokens } from '../../lib/auth/token-endpoint';

async function verified(proof: string) {
  const { decodeProtectedHeader, importJWK, jwtVerify } = jose();
  const header = decodeProtectedHeader(proof);
  const key = await importJWK(header.jwk!, header.alg);
  const { payload } = await jwtVerify(proof, key);
  return { header, payload };
}

describe('DpopProver', () => {
  it('signs a fresh proof per request with its public key, htm, htu without query, and ath of the token', async () => {
    const prover = new DpopProver();
    const first = await verified(await prover.proof('POST', 'https://rs.example/mcp?x=1#f', 'the-token'));
    const second = await verified(await prover.proof('POST', 'https://rs.example/mcp'));
    expect(first.header).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256' } });
    expect(first.header.jwk).not.toHaveProperty('d');
    expect(first.payload).toMatchObject({
      htm: 'POST',
      htu: 'https://rs.example/mcp',
      ath: createHash('sha256').update('the-token').digest('base64url'),
    });
    expect(typeof first.payload.iat).toBe('number');
    expect(second.payload).not.toHaveProperty('ath');
    expect(second.payload.jti).not.toBe(first.payload.jti);
    expect(second.header.jwk).toEqual(first.header.jwk);
  });

  it('puts the nonce a server sent into later proofs for that server only', async () => {
    const prover = new DpopProver();
    prover.noteNonce('https://rs.example/mcp', 'n-1');
    expect((await verified(await prover.proof('GET', 'https://rs.example/other'))).payload.nonce).toBe('n-1');
    expect((await verified(await prover.proof('GET', 'https://as.example/token'))).payload).not.toHaveProperty('nonce');
  });
});

describe('requestTokens with DPoP', () => {
  it('retries a use_dpop_nonce refusal once, with the nonce in a new proof', async () => {
    const proofs: string[] = [];
    const fetcher = (async (_url: string | URL, init?: RequestInit) => {
      const proof = (init?.headers as Record<string, string>).dpop!;
      proofs.push(proof);
      const { payload } = await verified(proof);
      if (payload.nonce !== 'as-nonce') {
        return new Response(JSON.stringify({ error: 'use_dpop_nonce' }), {
          status: 400,
          headers: { 'dpop-nonce': 'as-nonce', 'content-type': 'application/json' },
        });
      }
      return new Response(JSON.stringify({ access_token: 'bound', token_type: 'DPoP' }), { status: 200 });
    }) as typeof fetch;
    const tokens = await requestTokens(
      fetcher,
      'https://as.example/token',
      new URLSearchParams({ grant_type: 'client_credentials' }),
      {},
      new DpopProver(),
    );
    expect(tokens).toMatchObject({ access_token: 'bound', token_type: 'DPoP' });
    expect(proofs).toHaveLength(2);
  });
});
