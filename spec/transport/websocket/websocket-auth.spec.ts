import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { jose } from '../../../lib/auth/jose';
import { createResourceServer, jwtVerifier } from '../../../lib/auth/resource-server';
import { notification, request } from '../../../lib/jsonrpc/message';
import type { Transport } from '../../../lib/transport/transport';
import { createWebSocketHandler } from '../../../lib/transport/websocket/websocket-server';
import type { WebSocketHandler, WebSocketHandlerOptions } from '../../../lib/transport/websocket/websocket-server';
import { until } from '../../support/until';
import { nextFrames } from '../contract';

// createWebSocketHandler({ auth }): the upgrade's token is checked before the upgrade is accepted,
// each connection's transport carries its caller, a request short of its item's scopes never
// reaches the transport, and the socket closes when the token expires.

const ISSUER = 'https://as.example';
const RESOURCE = 'https://mcp.example/mcp';

let http: Server | undefined;
let handler: WebSocketHandler | undefined;
const sockets: WebSocket[] = [];
const sessions: Transport[] = [];

afterEach(async () => {
  jest.useRealTimers();
  for (const socket of sockets.splice(0)) socket.terminate();
  handler?.close();
  http?.closeAllConnections();
  await new Promise((done) => (http ? http.close(done) : done(undefined)));
  http = handler = undefined;
  sessions.length = 0;
});

/** The tools that need scopes here: `admin` needs `admin`. */
const requiredScopes = (method: string, params: unknown): readonly string[] =>
  method === 'tools/call' && (params as { name?: unknown }).name === 'admin' ? ['admin'] : [];

async function start(extra: Partial<WebSocketHandlerOptions> = {}) {
  const { privateKey, publicKey } = await jose().generateKeyPair('ES256');
  handler = createWebSocketHandler({
    server: { connect: (transport) => sessions.push(transport), requiredScopes },
    auth: createResourceServer({
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      verify: jwtVerifier({ keys: publicKey, issuer: ISSUER, audience: RESOURCE }),
    }),
    pingIntervalMs: 0,
    ...extra,
  });
  http = createServer((_req, res) => res.writeHead(426).end());
  http.on('upgrade', handler.handleUpgrade);
  await new Promise<void>((done) => http!.listen(0, '127.0.0.1', done));
  const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  /** A token for `sub` with `scope`, expiring at `exp` (seconds since the epoch; default in 5 minutes). */
  const token = (sub: string, scope: string, exp: number = Math.floor(Date.now() / 1000) + 300) =>
    new (jose().SignJWT)({ sub, scope, aud: RESOURCE })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(exp)
      .sign(privateKey);
  return { url, token };
}

/** Opens a socket with `headers`; resolves once open, or with the refused upgrade's status, headers and body. */
async function open(url: string, headers: Record<string, string>) {
  const socket = new WebSocket(url, ['mcp'], { headers });
  sockets.push(socket);
  socket.on('error', () => undefined);
  return new Promise<
    { socket: WebSocket } | { status: number; challenge: string | undefined; body: Record<string, unknown> }
  >((resolve) => {
    socket.on('open', () => resolve({ socket }));
    socket.on('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          challenge: res.headers['www-authenticate'],
          body: JSON.parse(text) as Record<string, unknown>,
        }),
      );
    });
  });
}

/** Resolves once a message sent on `socket` now reached the server: the connection is still open. */
async function stillOpen(socket: WebSocket): Promise<void> {
  const arrived = nextFrames(sessions[0]!.incoming$, 1);
  socket.send(JSON.stringify(notification('still-here')));
  expect(await arrived).toEqual([notification('still-here')]);
}

/** The messages a raw socket receives, each frame parsed. */
function received(socket: WebSocket, count: number): Promise<unknown[]> {
  const frames: unknown[] = [];
  return new Promise((resolve) => {
    const take = (data: Buffer) => {
      frames.push(JSON.parse(data.toString('utf8')));
      if (frames.length === count) {
        socket.off('message', take);
        resolve(frames);
      }
    };
    socket.on('message', take);
  });
}

describe('createWebSocketHandler({ auth })', () => {
  it('refuses an upgrade without a token 401 with the challenge and an OAuth body, opening no connection', async () => {
    const { url } = await start();
    expect(await open(url, {})).toEqual({
      status: 401,
      challenge: 'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"',
      body: { error: 'unauthorized', error_description: 'authorization required' },
    });
    const forged = await open(url, { authorization: 'Bearer not.a.jwt' });
    expect(forged).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    expect(sessions).toEqual([]);
    expect(handler?.sessions.size).toBe(0);
  });

  it('gives the connection’s transport the verified caller as its auth', async () => {
    const { url, token } = await start();
    const opened = await open(url, { authorization: `Bearer ${await token('alice', 'read')}` });
    expect(opened).toHaveProperty('socket');
    expect(sessions[0]?.auth).toMatchObject({ subject: 'alice', scopes: ['read'], claims: { iss: ISSUER } });
  });

  it('answers a request short of its tool’s scope with -32003 without delivering it; others pass', async () => {
    const { url, token } = await start();
    const { socket } = (await open(url, { authorization: `Bearer ${await token('alice', 'read')}` })) as {
      socket: WebSocket;
    };
    const delivered = nextFrames(sessions[0]!.incoming$, 2);
    const answered = received(socket, 2);
    const admin = (id: number) => request(id, 'tools/call', { name: 'admin', arguments: {} });
    const echo = (id: number) => request(id, 'tools/call', { name: 'echo', arguments: {} });
    socket.send(JSON.stringify(admin(1)));
    // In a batch, only the requests short of a scope are held back, each answered.
    socket.send(JSON.stringify([echo(2), admin(3), notification('notifications/progress')]));
    socket.send(JSON.stringify(echo(4)));
    const refusal = (id: number) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32003,
        message: 'Forbidden: tools/call needs the scope admin',
        data: { error: 'insufficient_scope', scope: 'read admin' },
      },
    });
    expect(await answered).toEqual([refusal(1), [refusal(3)]]);
    expect(await delivered).toEqual([[echo(2), notification('notifications/progress')], echo(4)]);
  });

  it('delivers the same request from a token that holds the scope', async () => {
    const { url, token } = await start();
    const { socket } = (await open(url, { authorization: `Bearer ${await token('alice', 'read admin')}` })) as {
      socket: WebSocket;
    };
    const delivered = nextFrames(sessions[0]!.incoming$, 1);
    socket.send(JSON.stringify(request(1, 'tools/call', { name: 'admin', arguments: {} })));
    expect(await delivered).toEqual([request(1, 'tools/call', { name: 'admin', arguments: {} })]);
  });

  it('closes the socket with 1008 when the token expires, and not before', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime', 'performance'] });
    const { url, token } = await start();
    const exp = Math.floor(Date.now() / 1000) + 60;
    const { socket } = (await open(url, { authorization: `Bearer ${await token('alice', 'read', exp)}` })) as {
      socket: WebSocket;
    };
    const closing = once(socket, 'close').then(([code, reason]) => ({ code: code as number, reason: String(reason) }));
    jest.advanceTimersByTime(exp * 1000 - Date.now() - 1000);
    await stillOpen(socket);
    jest.advanceTimersByTime(1000);
    expect(await closing).toEqual({ code: 1008, reason: 'the access token expired' });
    await until(() => handler?.sessions.size === 0);
  });

  it('waits for an expiry further off than a timer reaches (about 24.8 days) without closing early', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime', 'performance'] });
    const { url, token } = await start();
    const exp = Math.floor(Date.now() / 1000) + 40 * 24 * 3600;
    const { socket } = (await open(url, { authorization: `Bearer ${await token('alice', 'read', exp)}` })) as {
      socket: WebSocket;
    };
    const closing = once(socket, 'close').then(([code]) => code as number);
    jest.advanceTimersByTime(30 * 24 * 3600 * 1000);
    await stillOpen(socket);
    jest.advanceTimersByTime(exp * 1000 - Date.now());
    expect(await closing).toBe(1008);
  });

  it('needs a server or an onSession', () => {
    expect(() => createWebSocketHandler({})).toThrow('createWebSocketHandler needs a server or an onSession callback');
  });
});
