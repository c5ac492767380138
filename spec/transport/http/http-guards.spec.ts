import type { IncomingMessage } from 'node:http';
import { checkHostAndOrigin, guardHostAndOrigin } from '../../../lib/transport/http/http-guards';

/** A request as the checks see it, arriving on `localAddress` and `localPort` (no socket is opened). */
const request = (localAddress: string | undefined, headers: Record<string, string>, localPort?: number) =>
  ({ socket: { localAddress, localPort }, headers }) as unknown as IncomingMessage;

describe('checkHostAndOrigin on a server bound to a non-loopback address (#13)', () => {
  const host = 'mcp.example.com:8443';
  const named = { allowedHosts: ['mcp.example.com'] };

  it('accepts requests without Origin, and from the server’s own origin', () => {
    expect(checkHostAndOrigin(request('10.0.0.5', { host }), named)).toBeUndefined();
    expect(checkHostAndOrigin(request('10.0.0.5', { host, origin: `https://${host}` }), named)).toBeUndefined();
  });

  it('refuses another site, Origin null and a different port by default', () => {
    for (const origin of ['http://evil.example', 'null', 'https://mcp.example.com:9000', 'file://x']) {
      expect(checkHostAndOrigin(request('10.0.0.5', { host, origin }), named)).toMatch(/Origin .* is not allowed/);
    }
  });

  it('accepts the origins it is given, and everything when the check is turned off', () => {
    const app = { host, origin: 'https://app.example.com' };
    expect(
      checkHostAndOrigin(request('10.0.0.5', app), { ...named, allowedOrigins: ['https://app.example.com'] }),
    ).toBeUndefined();
    expect(
      checkHostAndOrigin(request('10.0.0.5', { host, origin: 'null' }), { ...named, allowedOrigins: false }),
    ).toBeUndefined();
  });

  it('accepts by default only the address and port the request arrived on', () => {
    expect(guardHostAndOrigin(request('10.0.0.5', { host: '10.0.0.5:3000' }, 3000), {})).toBeUndefined();
    expect(guardHostAndOrigin(request('::ffff:10.0.0.5', { host: '10.0.0.5:3000' }, 3000), {})).toBeUndefined();
    expect(guardHostAndOrigin(request('2001:db8::1', { host: '[2001:DB8::1]:3000' }, 3000), {})).toBeUndefined();
    expect(guardHostAndOrigin(request('10.0.0.5', { host: '10.0.0.5' }, 80), {})).toBeUndefined();
    for (const host of ['10.0.0.5:3001', '10.0.0.5', 'mcp.example.com:3000', 'evil.example:3000'])
      expect(guardHostAndOrigin(request('10.0.0.5', { host }, 3000), {})).toEqual({
        status: 403,
        reason: `Host header "${host}" is not allowed`,
      });
  });

  it('refuses the DNS rebinding pair: Origin and Host both another site’s name', () => {
    const rebinding = { host: 'evil.example:3000', origin: 'http://evil.example:3000' };
    expect(guardHostAndOrigin(request('10.0.0.5', rebinding, 3000), {})?.status).toBe(403);
    expect(guardHostAndOrigin(request('10.0.0.5', rebinding, 3000), named)?.status).toBe(403);
    expect(guardHostAndOrigin(request('10.0.0.5', rebinding, 3000), { allowedHosts: ['evil.example'] })).toBe(
      undefined,
    );
  });

  it('refuses a request without Host (400) on any address, unless the Host check is off', () => {
    for (const address of ['10.0.0.5', '127.0.0.1', undefined])
      expect(guardHostAndOrigin(request(address, {}, 3000), {})).toEqual({
        status: 400,
        reason: 'a Host header is required',
      });
    expect(guardHostAndOrigin(request('10.0.0.5', {}, 3000), named)?.status).toBe(400);
    expect(guardHostAndOrigin(request('10.0.0.5', {}, 3000), { allowedHosts: false })).toBeUndefined();
  });

  it('keeps the loopback defaults on a loopback address', () => {
    expect(
      checkHostAndOrigin(request('127.0.0.1', { host: 'localhost:3000', origin: 'http://localhost:5173' }), {}),
    ).toBeUndefined();
    expect(checkHostAndOrigin(request('127.0.0.1', { host: 'evil.example' }), {})).toMatch(/Host header/);
  });
});
