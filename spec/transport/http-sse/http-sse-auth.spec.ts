import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { jose } from '../../../lib/auth/jose';
import { createResourceServer, jwtVerifier } from '../../../lib/auth/resource-server';
import { notification, request, resultResponse } from '../../../lib/jsonrpc/message';
import type { AuthChallengeAnswer, AuthProvider } from '../../../lib/transport/http-client/auth-provider';
import { createHttpSseClientTransport } from '../../../lib/transport/http-client/http-sse/http-sse-client-transport';
import { createHttpClientTransport } from '../../../lib/transport/http-client/http-client-transport';
import { createHttpSseHandler } from '../../../lib/transport/http-server/http-sse/http-sse-handler';
import type {
  HttpSseHandler,
  HttpSseServerTransport,
} from '../../../lib/transport/http-server/http-sse/http-sse-handler';
import type { Transport } from '../../../lib/transport/transport';
import { eventually } from '../../support/until';
import { nextFrames } from '../contract';

// createHttpSseHandler({ auth }) and createHttpSseClientTransport({ auth }): both endpoints take
// only valid tokens, a session takes POSTs only from the principal who opened it, a message short
// of its tool's scopes is refused 403 before it reaches the session; the client sends its
// provider's credentials on the GET and each POST, and answers a 401 or 403 by asking the
// provider once for new ones.

const ISSUER = 'https://as.example';
const RESOURCE = 'https://mcp.example/sse';

let http: Server | undefined;
let handler: HttpSseHandler | undefined;
const sessions: HttpSseServerTransport[] = [];
const clients: Transport[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  handler?.close();
  http?.closeAllConnections();
  await new Promise((done) => (http ? http.close(done) : done(undefined)));
  http = handler = undefined;
  sessions.length = 0;
});

/** The tools that need scopes here: `admin` needs `admin`. */
const requiredScopes = (method: string, params: unknown): readonly string[] =>
  method === 'tools/call' && (params as { name?: unknown }).name === 'admin' ? ['admin'] : [];

async function start() {
  const { privateKey, publicKey } = await jose().generateKeyPair('ES256');
  const legacy = createHttpSseHandler({
    server: { connect: (transport) => sessions.push(transport as HttpSseServerTransport), requiredScopes },
    auth: createResourceServer({
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      verify: jwtVerifier({ keys: publicKey, issuer: ISSUER, audience: RESOURCE }),
    }),
  });
  handler = legacy;
  http = createServer((req, res) => legacy.handle(req, res));
  await new Promise<void>((done) => http!.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const token = (sub: string, scope = 'read') =>
    new (jose().SignJWT)({ sub, scope, aud: RESOURCE })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  return { sse: `${base}/sse`, token };
}

/** Opens a session with `token` and reads its POST endpoint from the first event. */
async function openSession(sse: string, token: string): Promise<URL> {
  const response = await fetch(sse, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  const data = /event: endpoint\ndata: ([^\n]*)\n/.exec(new TextDecoder().decode(value))![1]!;
  return new URL(data, sse);
}

const post = (endpoint: URL, body: unknown, token?: string) =>
  fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

/** Everything the session receives, in order. */
function collect(transport: Transport): unknown[] {
  const frames: unknown[] = [];
  transport.incoming$.subscribe((frame) => frames.push(frame));
  return frames;
}

describe('createHttpSseHandler({ auth })', () => {
  it('binds a session to the principal who opened it: another user 403, no token 401, nothing delivered', async () => {
    const { sse, token } = await start();
    const endpoint = await openSession(sse, await token('alice'));
    const frames = collect(sessions[0]!);
    const ping = request(1, 'ping');
    const bob = await post(endpoint, ping, await token('bob', 'read admin'));
    expect(bob.status).toBe(403);
    expect(await bob.json()).toMatchObject({ error: { message: 'Forbidden: this session belongs to another user' } });
    const anonymous = await post(endpoint, ping);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    expect((await post(endpoint, ping, await token('alice'))).status).toBe(202);
    await eventually(() => frames.length > 0);
    expect(frames).toEqual([ping]);
  });

  it('refuses a batch with a request short of its tool’s scope 403 insufficient_scope, delivering none of it', async () => {
    const { sse, token } = await start();
    const alice = await token('alice');
    const endpoint = await openSession(sse, alice);
    const frames = collect(sessions[0]!);
    const admin = request(2, 'tools/call', { name: 'admin', arguments: {} });
    const refused = await post(endpoint, [request(1, 'ping'), admin], alice);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="read admin"/);
    expect(await refused.json()).toEqual({
      error: 'insufficient_scope',
      error_description: 'this request needs the scopes read admin',
    });
    expect((await post(endpoint, admin, await token('alice', 'read admin'))).status).toBe(202);
    await eventually(() => frames.length > 0);
    expect(frames).toEqual([admin]);
  });

  it('gives the transport the opener as auth, then the caller of each POST (the same principal)', async () => {
    const { sse, token } = await start();
    const endpoint = await openSession(sse, await token('alice'));
    expect(sessions[0]!.auth).toMatchObject({ subject: 'alice', scopes: ['read'] });
    const delivered = nextFrames(sessions[0]!.incoming$, 1);
    expect((await post(endpoint, notification('hello'), await token('alice', 'read admin'))).status).toBe(202);
    await delivered;
    expect(sessions[0]!.auth).toMatchObject({ subject: 'alice', scopes: ['read', 'admin'] });
  });
});

/**
 * A provider whose tokens come from `next` (called at first and after each challenge it accepts);
 * `verdict` says whether a challenge is met with new credentials.
 */
function provider(
  next: () => Promise<string | undefined>,
  verdict: () => Promise<boolean> = () => Promise.resolve(true),
) {
  let current: Promise<string | undefined> | undefined;
  const challenges: AuthChallengeAnswer[] = [];
  const requests: string[] = [];
  const auth: AuthProvider = {
    headers: async (request): Promise<Record<string, string>> => {
      requests.push(request.method);
      const token = await (current ??= next());
      return token === undefined ? {} : { authorization: `Bearer ${token}` };
    },
    challenged: async (_url, answer) => {
      challenges.push(answer);
      const again = await verdict();
      if (again) current = next();
      return again;
    },
  };
  return { auth, challenges, requests };
}

describe('createHttpSseClientTransport({ auth })', () => {
  it('sends the provider’s credentials on the GET and on each POST', async () => {
    const { sse, token } = await start();
    const { auth, requests, challenges } = provider(() => token('alice'));
    const client = createHttpSseClientTransport({ url: sse, auth });
    clients.push(client);
    client.send(request(1, 'ping'));
    await eventually(() => sessions.length > 0);
    expect(await nextFrames(sessions[0]!.incoming$, 1)).toEqual([request(1, 'ping')]);
    const back = nextFrames(client.incoming$, 1);
    sessions[0]!.send(resultResponse(1, {}));
    expect(await back).toEqual([resultResponse(1, {})]);
    expect(sessions[0]!.auth?.subject).toBe('alice');
    expect(requests).toEqual(['GET', 'POST']);
    expect(challenges).toEqual([]);
  });

  it('answers a 401 to the GET by asking the provider, then opens the stream with its new token', async () => {
    const { sse, token } = await start();
    // No token at first: the server's challenge is what makes the provider get one.
    const tokens = [undefined, await token('alice')];
    const { auth, challenges } = provider(() => Promise.resolve(tokens.shift()));
    const client = createHttpSseClientTransport({ url: sse, auth });
    clients.push(client);
    await eventually(() => sessions.length > 0);
    expect(challenges).toEqual([
      {
        status: 401,
        wwwAuthenticate: 'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/sse"',
        protocolVersion: undefined,
        dpopNonce: undefined,
      },
    ]);
    expect(sessions[0]!.auth?.subject).toBe('alice');
  });

  it('closes with a TransportError naming the 401 when the provider lets the refusal of the GET stand', async () => {
    const { sse } = await start();
    const { auth, challenges } = provider(
      () => Promise.resolve(undefined),
      () => Promise.resolve(false),
    );
    const client = createHttpSseClientTransport({ url: sse, auth });
    const closed = await firstValueFrom(client.closed$);
    expect(closed.error?.name).toBe('TransportError');
    expect(closed.reason).toMatch(/401/);
    expect(challenges).toHaveLength(1);
  });

  it('closes with a TransportError saying so when the provider fails to authorize the GET', async () => {
    const { sse } = await start();
    const { auth } = provider(
      () => Promise.resolve(undefined),
      () => Promise.reject(new Error('the user said no')),
    );
    const client = createHttpSseClientTransport({ url: sse, auth });
    const closed = await firstValueFrom(client.closed$);
    expect(closed).toMatchObject({ reason: 'authorization failed' });
    expect(closed.error?.name).toBe('TransportError');
    expect(closed.error?.message).toBe('authorization failed: the user said no');
  });

  it('answers a 403 insufficient_scope to a POST by asking the provider, and sends it once more', async () => {
    const { sse, token } = await start();
    const tokens = [await token('alice'), await token('alice', 'read admin')];
    const { auth, challenges } = provider(() => Promise.resolve(tokens.shift()));
    const client = createHttpSseClientTransport({ url: sse, auth });
    clients.push(client);
    const admin = request(1, 'tools/call', { name: 'admin', arguments: {} });
    client.send(admin);
    await eventually(() => sessions.length > 0);
    expect(await nextFrames(sessions[0]!.incoming$, 1)).toEqual([admin]);
    expect(challenges).toMatchObject([{ status: 403 }]);
    expect(challenges[0]!.wwwAuthenticate).toMatch(/error="insufficient_scope", scope="read admin"/);
  });

  it('sends a refused POST again only once, then fails its request with the status', async () => {
    const { sse, token } = await start();
    const { auth, challenges } = provider(() => token('alice'));
    const client = createHttpSseClientTransport({ url: sse, auth });
    clients.push(client);
    const answer = nextFrames(client.incoming$, 1);
    client.send(request(1, 'tools/call', { name: 'admin', arguments: {} }));
    expect(await answer).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'HTTP 403', data: { httpStatus: 403 } } },
    ]);
    expect(challenges).toHaveLength(1);
  });

  it('fails the POST’s requests when the provider fails, and goes on', async () => {
    const { sse, token } = await start();
    let refuse = true;
    const { auth } = provider(
      () => token('alice'),
      () => (refuse ? Promise.reject(new Error('no consent')) : Promise.resolve(true)),
    );
    const client = createHttpSseClientTransport({ url: sse, auth });
    clients.push(client);
    const answer = nextFrames(client.incoming$, 1);
    client.send(request(1, 'tools/call', { name: 'admin', arguments: {} }));
    expect(await answer).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: 'authorization failed: no consent', data: { authorization: true } },
      },
    ]);
    refuse = false;
    client.send(request(2, 'ping'));
    await eventually(() => sessions.length > 0);
    expect(await nextFrames(sessions[0]!.incoming$, 1)).toEqual([request(2, 'ping')]);
  });
});

describe('createHttpClientTransport({ auth }) falling back to HTTP+SSE', () => {
  it('gives the HTTP+SSE transport the same credentials, so a protected legacy server takes the session', async () => {
    const { sse, token } = await start();
    const { auth } = provider(() => token('alice'));
    const client = createHttpClientTransport({ url: sse, auth });
    clients.push(client);
    const initialize = request(1, 'initialize', {
      protocolVersion: '2024-11-05',
      capabilities: {},
      clientInfo: { name: 'fallback', version: '1' },
    });
    client.send(initialize);
    await eventually(() => sessions.length > 0);
    expect(await nextFrames(sessions[0]!.incoming$, 1)).toEqual([initialize]);
    expect(sessions[0]!.auth?.subject).toBe('alice');
  });
});
