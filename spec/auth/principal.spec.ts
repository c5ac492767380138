import { principalOf } from '../../lib/transport/transport';
import type { AuthInfo } from '../../lib/transport/transport';

const info = (claims: Record<string, unknown>): AuthInfo => ({
  ...(typeof claims.sub === 'string' ? { subject: claims.sub } : {}),
  ...(typeof claims.client_id === 'string' ? { clientId: claims.client_id } : {}),
  scopes: [],
  claims,
});

describe('principalOf', () => {
  it('is undefined for a request no auth checked', () => {
    expect(principalOf(undefined)).toBeUndefined();
  });

  it('names one user by issuer and subject, whatever the client or the scopes', () => {
    const a = principalOf(info({ iss: 'https://as.example', sub: 'alice', client_id: 'app-1' }));
    const b = principalOf({ ...info({ iss: 'https://as.example', sub: 'alice', client_id: 'app-2' }), scopes: ['x'] });
    expect(a).toBe(b);
  });

  it('keeps apart the same subject from two issuers, and a client token from its user', () => {
    const alice = principalOf(info({ iss: 'https://as.example', sub: 'alice', client_id: 'app' }));
    expect(principalOf(info({ iss: 'https://other.example', sub: 'alice' }))).not.toBe(alice);
    expect(principalOf(info({ iss: 'https://as.example', client_id: 'app' }))).not.toBe(alice);
  });

  it('cannot be forged by a subject that looks like a client: the parts are kept apart, not joined', () => {
    const client = principalOf(info({ iss: 'https://as.example', client_id: 'app' }));
    expect(principalOf(info({ iss: 'https://as.example', sub: 'client app' }))).not.toBe(client);
    expect(principalOf(info({ iss: 'https://as.example","sub', sub: 'x' }))).not.toBe(
      principalOf(info({ iss: 'https://as.example', sub: 'sub","x' })),
    );
  });

  it('gives each AuthInfo with neither sub nor client_id a principal of its own', () => {
    const first = info({ iss: 'https://as.example' });
    expect(principalOf(first)).toBe(principalOf(first));
    expect(principalOf(info({ iss: 'https://as.example' }))).not.toBe(principalOf(first));
  });
});
