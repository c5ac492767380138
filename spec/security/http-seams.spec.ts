import { jose } from '../../lib/auth/jose';
import { createResourceServer, jwtVerifier } from '../../lib/auth/resource-server';
import { createServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import { startStreamableHttpServer } from '../../lib/transport/streamable-http/streamable-http-server';
import type {
  RunningStreamableHttpServer,
  StreamableHttpServerOptions,
} from '../../lib/transport/streamable-http/streamable-http-server';

// The seams of the Streamable HTTP endpoint an attacker reaches from outside: sessions bound to the
// principal that opened them, event replay bound to its session, and Host checks off loopback.

const ISSUER = 'https://as.example';
let running: RunningStreamableHttpServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A protected server (a real resource server with ES256 tokens) and a maker of its tokens. */
async function start(extra: Partial<StreamableHttpServerOptions> = {}) {
  const { privateKey, publicKey } = await jose().generateKeyPair('ES256');
  const server = createServer({ name: 'seams', version: '1.0.0' });
  server.tool({
    name: 'whoami',
    description: 'The session’s caller.',
    handler: (_args, context) => textResult(JSON.stringify(context.session?.auth?.claims ?? null)),
  });
  running = await startStreamableHttpServer({
    server,
    ...extra,
    auth: (endpoint) =>
      createResourceServer({
        resource: endpoint.href,
        authorizationServers: [ISSUER],
        verify: jwtVerifier({ keys: publicKey, issuer: ISSUER, audience: endpoint.href }),
      }),
  });
  const resource = running.url.href;
  const token = (claims: Record<string, unknown>) =>
    new (jose().SignJWT)({ scope: 'mcp:read', aud: resource, ...claims })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  return { url: running.url, token };
}

const ACCEPT = 'application/json, text/event-stream';

const send = (url: URL, method: string, token: string, headers: Record<string, string> = {}, body?: unknown) =>
  fetch(url, {
    method,
    headers: {
      accept: method === 'GET' ? 'text/event-stream' : ACCEPT,
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** Opens a session with `token` and completes its handshake; returns its id. */
async function openSession(url: URL, token: string): Promise<string> {
  const opened = await send(url, 'POST', token, {}, initialize);
  expect(opened.status).toBe(200);
  await opened.text();
  const sessionId = opened.headers.get('mcp-session-id')!;
  const initialized = await send(
    url,
    'POST',
    token,
    { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  );
  expect(initialized.status).toBe(202);
  return sessionId;
}

/** Calls `whoami` in the session and returns the claims of the caller the session holds. */
async function whoami(url: URL, token: string, sessionId: string, id: number) {
  const answer = await send(
    url,
    'POST',
    token,
    { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
  );
  return { status: answer.status, text: await answer.text() };
}

describe('a Streamable HTTP session is bound to the principal that opened it', () => {
  it('refuses every request of another client or user (403), and they take nothing over', async () => {
    const { url, token } = await start();
    const owner = await token({ client_id: 'app-a' });
    const sessionId = await openSession(url, owner);
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    for (const intruder of [await token({ client_id: 'app-b' }), await token({ sub: 'bob' })]) {
      const posted = await send(url, 'POST', intruder, session, ping);
      expect(posted.status).toBe(403);
      await posted.text();
      const listened = await send(url, 'GET', intruder, session);
      expect(listened.status).toBe(403);
      await listened.text();
      const resumed = await send(url, 'GET', intruder, { ...session, 'last-event-id': `${sessionId}~0#1` });
      expect(resumed.status).toBe(403);
      await resumed.text();
      const deleted = await send(url, 'DELETE', intruder, session);
      expect(deleted.status).toBe(403);
      await deleted.text();
    }
    // The owner still has its session, and the session still holds the owner's token.
    const seen = await whoami(url, owner, sessionId, 3);
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('\\"client_id\\":\\"app-a\\"');
    expect(seen.text).not.toContain('bob');
    expect(running!.handler.sessions.has(sessionId)).toBe(true);
  });

  it('takes a new token of the same principal as the session’s caller', async () => {
    const { url, token } = await start();
    const sessionId = await openSession(url, await token({ sub: 'alice' }));
    const seen = await whoami(url, await token({ sub: 'alice', scope: 'mcp:read mcp:write' }), sessionId, 2);
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('mcp:read mcp:write');
  });
});
