import type { IncomingMessage } from 'node:http';
import { checkHostAndOrigin } from '../../../lib/transport/http/http-guards';

/** A request as the checks see it, arriving on `localAddress` (no socket is opened). */
const request = (localAddress: string, headers: Record<string, string>) =>
  ({ socket: { localAddress }, headers }) as unknown as IncomingMessage;

describe('checkHostAndOrigin on a server bound to a non-loopback address (#13)', () => {
  const host = 'mcp.example.com:8443';

  it('accepts requests without Origin, and from the server’s own origin', () => {
    expect(checkHostAndOrigin(request('10.0.0.5', { host }), {})).toBeUndefined();
    expect(checkHostAndOrigin(request('10.0.0.5', { host, origin: `https://${host}` }), {})).toBeUndefined();
  });

  it('refuses another site, Origin null and a different port by default', () => {
    for (const origin of ['http://evil.example', 'null', 'https://mcp.example.com:9000', 'file://x']) {
      expect(checkHostAndOrigin(request('10.0.0.5', { host, origin }), {})).toMatch(/Origin .* is not allowed/);
    }
  });

  it('accepts the origins it is given, and everything when the check is turned off', () => {
    const app = { host, origin: 'https://app.example.com' };
    expect(
      checkHostAndOrigin(request('10.0.0.5', app), { allowedOrigins: ['https://app.example.com'] }),
    ).toBeUndefined();
    expect(
      checkHostAndOrigin(request('10.0.0.5', { host, origin: 'null' }), { allowedOrigins: false }),
    ).toBeUndefined();
  });

  it('keeps the loopback defaults on a loopback address', () => {
    expect(
      checkHostAndOrigin(request('127.0.0.1', { host: 'localhost:3000', origin: 'http://localhost:5173' }), {}),
    ).toBeUndefined();
    expect(checkHostAndOrigin(request('127.0.0.1', { host: 'evil.example' }), {})).toMatch(/Host header/);
  });
});
