import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as connectTcp } from 'node:net';
import { jose } from '../../lib/auth/jose';
import { createResourceServer, jwtVerifier } from '../../lib/auth/resource-server';
import { createServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import { createHttpSseHandler } from '../../lib/transport/http-server/http-sse/http-sse-handler';
import type { OriginPolicy } from '../../lib/transport/http/http-guards';
import { createStreamableHttpHandler } from '../../lib/transport/http-server/streamable-http/streamable-http-handler';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type {
  RunningStreamableHttpServer,
  StreamableHttpServerOptions,
} from '../../lib/transport/http-server/streamable-http/streamable-http-server';

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

/** The ids of the SSE events in a stream's text. */
const eventIds = (text: string): string[] => [...text.matchAll(/^id: ?(.*)$/gm)].map((match) => match[1]!);

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
    const { url, token } = await start({ jsonWindowMs: 0 });
    const owner = await token({ client_id: 'app-a' });
    const sessionId = await openSession(url, owner);
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    // A stream of the owner's, answered: its priming event is where a resumption would start.
    const answered = await whoami(url, owner, sessionId, 2);
    const primingId = eventIds(answered.text)[0]!;
    expect(answered.text).toContain('app-a');
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    for (const intruder of [await token({ client_id: 'app-b' }), await token({ sub: 'bob' })]) {
      const posted = await send(url, 'POST', intruder, session, ping);
      expect(posted.status).toBe(403);
      await posted.text();
      const listened = await send(url, 'GET', intruder, session);
      expect(listened.status).toBe(403);
      await listened.text();
      const resumed = await send(url, 'GET', intruder, { ...session, 'last-event-id': primingId });
      expect(resumed.status).toBe(403);
      expect(await resumed.text()).not.toContain('app-a');
      const deleted = await send(url, 'DELETE', intruder, session);
      expect(deleted.status).toBe(403);
      await deleted.text();
    }
    // The owner still has its session, and the session still holds the owner's token.
    const seen = await whoami(url, owner, sessionId, 3);
    expect(seen.status).toBe(200);
    // And may resume its own stream: the answer is replayed.
    const replayed = await send(url, 'GET', owner, { ...session, 'last-event-id': primingId });
    expect(replayed.status).toBe(200);
    expect(await replayed.text()).toContain('app-a');
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

/**
 * The MCP endpoint (`/mcp`) and the deprecated HTTP+SSE one (`/sse`) served on 127.0.0.1, each request
 * seen as if it arrived on the public address 10.0.0.5 (same port): what a server bound to a
 * non-loopback address sees. Nothing else of the socket is changed.
 */
async function startPublic(policy: OriginPolicy = {}) {
  const server = createServer({ name: 'public', version: '1.0.0' });
  const mcp = createStreamableHttpHandler({ server, ...policy });
  const legacy = createHttpSseHandler({ onSession: (transport) => void server.connect(transport), ...policy });
  const http: Server = createHttpServer((req, res) => {
    const socket = Object.create(req.socket, {
      localAddress: { value: '10.0.0.5' },
      localPort: { value: req.socket.localPort },
    }) as typeof req.socket;
    Object.defineProperty(req, 'socket', { value: socket });
    if (req.url?.startsWith('/sse')) legacy.handle(req, res);
    else mcp.handle(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  const close = async () => {
    mcp.close();
    legacy.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  };
  return { port, close };
}

/** A raw HTTP request, so that its Host header is exactly `host` (or absent): returns the status line's code. */
function rawStatus(port: number, method: string, path: string, headers: Record<string, string>, body = '') {
  return new Promise<number>((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', reject);
    const head = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    // HTTP/1.0: node:http lets it through without Host, as a proxy or a scanner may send it.
    socket.write(`${method} ${path} HTTP/1.0\r\n${head}\r\n${body}`);
  });
}

describe('sessions per principal', () => {
  it('refuses a user past maxSessionsPerPrincipal (429, -32029) and not another user; a closed session frees its place', async () => {
    const { url, token } = await start({ maxSessionsPerPrincipal: 2 });
    const alice = await token({ sub: 'alice' });
    const first = await openSession(url, alice);
    await openSession(url, alice);
    const third = await send(url, 'POST', alice, {}, initialize);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(await third.json()).toMatchObject({ error: { code: -32029 } });
    expect(third.headers.get('mcp-session-id')).toBeNull();
    // Another user has places of their own; the same user through another client does not.
    await openSession(url, await token({ sub: 'bob' }));
    expect(
      (await send(url, 'POST', await token({ sub: 'alice', client_id: 'other-app' }), {}, initialize)).status,
    ).toBe(429);
    const closed = await send(url, 'DELETE', alice, { 'mcp-session-id': first, 'mcp-protocol-version': '2025-11-25' });
    expect(closed.status).toBe(200);
    await openSession(url, alice);
  });
});

describe('Host checks off loopback', () => {
  const post = (port: number, headers: Record<string, string>) =>
    rawStatus(
      port,
      'POST',
      '/mcp',
      { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      JSON.stringify(initialize),
    );

  it('refuses the DNS rebinding pair and a request without Host; serves its own address', async () => {
    const { port, close } = await startPublic();
    try {
      const evil = `evil.example:${port}`;
      expect(await post(port, { host: evil, origin: `http://${evil}` })).toBe(403);
      expect(await post(port, { host: evil })).toBe(403);
      expect(await post(port, {})).toBe(400);
      expect(await post(port, { host: `10.0.0.5:${port}` })).toBe(200);
      expect(await post(port, { host: `10.0.0.5:${port}`, origin: `http://10.0.0.5:${port}` })).toBe(200);
      // The legacy endpoint shares the guard.
      expect(
        await rawStatus(port, 'GET', '/sse', { host: evil, origin: `http://${evil}`, accept: 'text/event-stream' }),
      ).toBe(403);
      expect(await rawStatus(port, 'GET', '/sse', { accept: 'text/event-stream' })).toBeGreaterThanOrEqual(400);
    } finally {
      await close();
    }
  });

  it('answers to the names in allowedHosts, and to no other', async () => {
    const { port, close } = await startPublic({ allowedHosts: ['mcp.example.com'] });
    try {
      expect(await post(port, { host: 'mcp.example.com', origin: 'https://mcp.example.com' })).toBe(200);
      expect(await post(port, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` })).toBe(403);
      expect(await post(port, { host: 'mcp.example.com', origin: 'https://evil.example' })).toBe(403);
      expect(await post(port, {})).toBe(400);
    } finally {
      await close();
    }
  });
});

describe('a resumption replays only its own session’s streams', () => {
  it('refuses (400) another session’s event id, even one whose session id extends its own', async () => {
    // Session ids a deployment chose, where one is the other's prefix with a `~`.
    const ids = ['tenant~1', 'tenant'];
    const { url, token } = await start({ jsonWindowMs: 0, generateSessionId: () => ids.shift()! });
    const alice = await token({ sub: 'alice' });
    const victim = await openSession(url, alice);
    const answered = await whoami(url, alice, victim, 2);
    expect(answered.text).toContain('alice');
    const victimEvent = eventIds(answered.text)[0]!;
    const own = await openSession(url, alice);
    expect([victim, own]).toEqual(['tenant~1', 'tenant']);
    const resumed = await send(url, 'GET', alice, {
      'mcp-session-id': own,
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': victimEvent,
    });
    expect(resumed.status).toBe(400);
    expect(await resumed.text()).not.toContain('alice');
  });
});
