import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createResourceServer, InvalidTokenError } from '../../lib/auth/resource-server';
import { aggregate } from '../../lib/proxy/aggregate';
import { downstreamInfo } from '../../lib/proxy/upstream-source';
import type { UpstreamContext } from '../../lib/proxy/upstream-source';
import type { McpServer } from '../../lib/server/server';
import type { AuthProvider } from '../../lib/transport/http-client/auth-provider';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { principalOf } from '../../lib/transport/transport';
import type { AuthInfo, Transport } from '../../lib/transport/transport';
import { clientOf, labelled, textOf } from './fixtures';

const ISSUER = 'https://as.example';
const CAROL: AuthInfo = { subject: 'carol', clientId: 'app', scopes: ['crm'], claims: { iss: ISSUER, sub: 'carol' } };

/** Every credential a browser-like or DPoP client could send, beside one ordinary header. */
const callerHeaders = {
  authorization: 'Bearer tok-carol',
  cookie: 'session=s3cret',
  dpop: 'eyJhbGciOiJFUzI1NiJ9.proof.sig',
  'x-api-key': 'k3y-of-carol',
  'x-user': 'carol',
};
const callerAuth: AuthProvider = {
  headers: () => Promise.resolve(callerHeaders),
  challenged: () => Promise.resolve(false),
};

describe('a per-session upstream connector', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)(
    'is told who the caller is, never its token or other credentials (%s over Streamable HTTP)',
    async (protocolVersion) => {
      const opened: Array<{
        readonly context: UpstreamContext;
        readonly client: McpClient;
        readonly server: McpServer;
      }> = [];
      const front = aggregate({
        crm: {
          sharing: 'perSession',
          upstream: async (context) => {
            const server = labelled(`crm for ${context.downstream?.principal ?? 'nobody'}`);
            const client = await clientOf(server);
            opened.push({ context, client, server });
            return client;
          },
        },
      });
      const running = await startStreamableHttpServer({
        server: front,
        port: 0,
        host: '127.0.0.1',
        auth: (endpoint) =>
          createResourceServer({
            resource: endpoint.href,
            authorizationServers: [ISSUER],
            verify: (token) =>
              token === 'tok-carol' ? Promise.resolve(CAROL) : Promise.reject(new InvalidTokenError('unknown token')),
          }),
      });
      const caller = await connect(createStreamableHttpClientTransport({ url: running.url, auth: callerAuth }), {
        name: 'caller',
        version: '1.0.0',
        protocolVersion,
      });
      try {
        const result = await caller.promises.callTool('crm_whoami', {});
        expect(textOf(result)).toBe(`crm for ${principalOf(CAROL)!}`);
        const downstream = opened[0]!.context.downstream!;
        expect(downstream.auth).toMatchObject({ subject: 'carol', clientId: 'app' });
        expect(downstream.principal).toBe(principalOf(CAROL));
        expect(downstream.headers).toMatchObject({ 'x-user': 'carol' });
        for (const name of ['authorization', 'cookie', 'dpop', 'x-api-key'])
          expect(downstream.headers).not.toHaveProperty(name);
        expect(JSON.stringify(downstream)).not.toMatch(/tok-carol|s3cret|proof\.sig|k3y-of-carol/);
      } finally {
        caller.close();
        await running.close();
        front.close();
        for (const { client, server } of opened) {
          client.close();
          server.close();
        }
      }
    },
  );

  it('gets the request headers without a credential header in any case', () => {
    const headers = {
      Authorization: 'Bearer t',
      'Proxy-Authorization': 'Basic cDpw',
      COOKIE: 'a=b',
      DPoP: 'proof',
      'x-tenant': 'acme',
    };
    const transport = { requestHeaders: () => headers, auth: CAROL } as unknown as Transport;
    const info = downstreamInfo(transport, { requestId: 1 } as never);
    expect(info.headers).toEqual({ 'x-tenant': 'acme' });
    expect(info.principal).toBe(principalOf(CAROL));
    // The transport's own record of the request is left as it was.
    expect(headers.Authorization).toBe('Bearer t');
  });
});
