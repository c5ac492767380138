import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jose } from '../../lib/auth/jose';
import { connect, createStreamableHttpClientTransport } from '../../lib/index';
import type { McpClient } from '../../lib/index';
import { built, killLeftovers, runProgram, startProgram, stopProgram } from './run-example';
import type { Running } from './run-example';

// examples/protected-server.ts, built, against a stand-in authorization server: a JWKS on 127.0.0.1
// whose key signs the tokens the test presents.
describe('examples/protected-server', () => {
  let issuerServer: Server;
  let issuer: string;
  let sign: (claims: Record<string, unknown>) => Promise<string>;
  let server: Running | undefined;
  let client: McpClient | undefined;

  beforeAll(async () => {
    const { publicKey, privateKey } = await jose().generateKeyPair('ES256');
    const jwk = { ...(await jose().exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    issuerServer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((done) => issuerServer.listen(0, '127.0.0.1', done));
    issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    sign = (claims) =>
      new (jose().SignJWT)(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(issuer)
        .setAudience(server!.url)
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    server = await startProgram(built('protected-server.ts'), [], { env: { ISSUER: issuer, PORT: '0' } });
  });
  afterEach(() => client?.close());
  afterAll(async () => {
    await stopProgram(server);
    await new Promise((done) => issuerServer.close(done));
    killLeftovers();
  });

  const post = (headers: Record<string, string> = {}) =>
    fetch(server!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spec', version: '1.0.0' } },
      }),
    });

  it('answers 401 without a token, pointing to its protected resource metadata', async () => {
    const answer = await post();
    expect(answer.status).toBe(401);
    const challenge = answer.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toEqual(expect.objectContaining({ resource: server!.url, authorization_servers: [issuer] }));
  });

  it('answers 200 with a token the issuer signed, and runs the scoped tool for a caller with the scope', async () => {
    const token = await sign({ scope: 'mcp:read' });
    const answer = await post({ authorization: `Bearer ${token}` });
    expect(answer.status).toBe(200);
    await answer.body?.cancel();
    const transport = createStreamableHttpClientTransport({
      url: server!.url,
      headers: { authorization: `Bearer ${token}` },
    });
    client = await connect(transport, { name: 'spec', version: '1.0.0' });
    const result = await client.promises.callTool('whoami', {});
    expect(result.content).toEqual([{ type: 'text', text: 'hello alice' }]);
  });

  it('refuses the scoped tool to a token without its scope (403 insufficient_scope)', async () => {
    const token = await sign({ scope: 'other' });
    const transport = createStreamableHttpClientTransport({
      url: server!.url,
      headers: { authorization: `Bearer ${token}` },
    });
    client = await connect(transport, { name: 'spec', version: '1.0.0' });
    await expect(client.promises.callTool('whoami', {})).rejects.toThrow(/insufficient_scope|403|mcp:read/);
  });

  it('refuses to start without ISSUER, saying what to set', async () => {
    const run = await runProgram(built('protected-server.ts'), [], { ISSUER: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/set ISSUER/);
  });
});
