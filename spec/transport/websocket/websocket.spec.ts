import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom } from 'rxjs';
import WebSocket, { WebSocketServer } from 'ws';
import { notification, request, resultResponse } from '../../../lib/jsonrpc/message';
import { createWebSocketHandler, startWebSocketServer } from '../../../lib/transport/websocket/websocket-server';
import type { RunningWebSocketServer } from '../../../lib/transport/websocket/websocket-server';
import { createWebSocketClientTransport, wrapWebSocket } from '../../../lib/transport/websocket/websocket-transport';
import { MalformedFrame } from '../../../lib/transport/transport';
import type { Transport } from '../../../lib/transport/transport';
import { nextFrames } from '../contract';

let running: RunningWebSocketServer | undefined;
const sessions: Transport[] = [];
const clients: Transport[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const socket of sockets.splice(0)) socket.terminate();
  await running?.close();
  running = undefined;
  sessions.length = 0;
});

const start = async (options: Partial<Parameters<typeof startWebSocketServer>[0]> = {}) => {
  running = await startWebSocketServer({ onSession: (t) => sessions.push(t), ...options });
  return running;
};

/** Resolves with the HTTP status of a refused upgrade (or 101). */
async function upgradeStatus(
  url: URL | string,
  protocols: string[],
  headers: Record<string, string> = {},
): Promise<number> {
  const socket = new WebSocket(url, protocols, { headers });
  sockets.push(socket);
  return new Promise((resolve) => {
    socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.on('open', () => resolve(101));
    socket.on('error', () => undefined);
  });
}

describe('WebSocket transport', () => {
  it('[transport.ws.subprotocol] connects with the mcp subprotocol and exchanges text frames', async () => {
    const { url } = await start();
    const client = createWebSocketClientTransport({ url, headers: { authorization: 'Bearer t' } });
    clients.push(client);
    client.send(request(1, 'ping'));
    await new Promise<void>((resolve) => {
      const wait = () => (sessions[0] ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(await nextFrames(sessions[0]!.incoming$, 1)).toEqual([request(1, 'ping')]);
    const back = nextFrames(client.incoming$, 1);
    sessions[0]!.send(resultResponse(1, {}));
    expect(await back).toEqual([resultResponse(1, {})]);
  });

  it('[transport.ws.refusals] refuses a foreign Host or Origin (403), another path (404) and other subprotocols (400)', async () => {
    const { url } = await start();
    expect(await upgradeStatus(url, ['mcp'], { origin: 'http://evil.example.com' })).toBe(403);
    expect(await upgradeStatus(url, ['mcp'], { host: 'evil.example.com' })).toBe(403);
    expect(await upgradeStatus(new URL('/other', url), ['mcp'])).toBe(404);
    expect(await upgradeStatus(url, ['graphql-ws'])).toBe(400);
    expect(await upgradeStatus(url, [])).toBe(101);
    expect(await upgradeStatus(url, ['mcp'], { origin: `http://localhost:${url.port}` })).toBe(101);
  });

  it('[transport.ws.malformed] turns binary frames into MalformedFrame and goes on', async () => {
    const { url } = await start();
    const socket = new WebSocket(url, ['mcp']);
    sockets.push(socket);
    await once(socket, 'open');
    await new Promise<void>((resolve) => {
      const wait = () => (sessions[0] ? resolve() : setTimeout(wait, 5));
      wait();
    });
    const frames = nextFrames(sessions[0]!.incoming$, 2);
    socket.send(Buffer.from('{}'), { binary: true });
    socket.send(JSON.stringify(notification('ok')));
    const [bad, good] = await frames;
    expect(bad).toBeInstanceOf(MalformedFrame);
    expect(good).toEqual(notification('ok'));
  });

  it('closes a session whose peer sends more than maxPayloadBytes, and forgets it', async () => {
    const { url, handler } = await start({ maxPayloadBytes: 1024 });
    const client = createWebSocketClientTransport({ url });
    clients.push(client);
    client.send(notification('big', { pad: 'x'.repeat(4096) }));
    const closed = await firstValueFrom(client.closed$);
    expect(closed.reason).toMatch(/1009|too big|Max payload/i);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(handler.sessions.size).toBe(0);
  });

  it('closes the client with a TransportError when the server refuses the upgrade', async () => {
    const { url } = await start({ allowedHosts: ['elsewhere.example'] });
    const client = createWebSocketClientTransport({ url });
    const closed = await firstValueFrom(client.closed$);
    expect(closed.error?.name).toBe('TransportError');
    expect(closed.error?.message).toMatch(/403/);
  });

  it('attaches to an existing http server', async () => {
    const http = createServer((_req, res) => res.end('plain'));
    const seen: Transport[] = [];
    const handler = createWebSocketHandler({ onSession: (t) => seen.push(t), path: '/ws' });
    http.on('upgrade', handler.handleUpgrade);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as AddressInfo).port;
    const client = createWebSocketClientTransport({ url: `ws://127.0.0.1:${port}/ws` });
    clients.push(client);
    client.send(notification('hi'));
    await new Promise<void>((resolve) => {
      const wait = () => (seen[0] ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(await nextFrames(seen[0]!.incoming$, 1)).toEqual([notification('hi')]);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('plain');
    handler.close();
    await new Promise((resolve) => http.close(resolve));
  });

  it('wraps a raw socket for both sides', async () => {
    const { url } = await start();
    const socket = new WebSocket(url, ['mcp']);
    const transport = wrapWebSocket(socket, { side: 'client' });
    clients.push(transport);
    transport.send(notification('queued before open'));
    await new Promise<void>((resolve) => {
      const wait = () => (sessions[0] ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(await nextFrames(sessions[0]!.incoming$, 1)).toEqual([notification('queued before open')]);
  });
});

describe('WebSocket keepalive', () => {
  // Virtual time for the ping timer; the sockets stay real.
  beforeEach(() =>
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime', 'performance', 'Date'] }),
  );
  afterEach(() => jest.useRealTimers());

  /** A raw client that answers pings only when `answer` says so, and tells when a ping came. */
  async function rawClient(url: URL, answer: () => boolean) {
    const socket = new WebSocket(url, ['mcp'], { autoPong: false });
    sockets.push(socket);
    const pings: Array<() => void> = [];
    socket.on('ping', (data: Buffer) => {
      if (answer()) socket.pong(data);
      pings.shift()?.();
    });
    await once(socket, 'open');
    while (!sessions[0]) await new Promise((resolve) => setImmediate(resolve));
    return {
      socket,
      /** Resolves once the next ping has arrived (and been answered, if it is). */
      nextPing: () => new Promise<void>((resolve) => pings.push(resolve)),
    };
  }

  /** Lets the server read what the client wrote before: a message sent now arrives after it. */
  async function roundTrip(socket: WebSocket, method: string) {
    const arrived = nextFrames(sessions[0]!.incoming$, 1);
    socket.send(JSON.stringify(notification(method)));
    expect(await arrived).toEqual([notification(method)]);
  }

  it('keeps a client that answers every ping', async () => {
    const { url } = await start({ pingIntervalMs: 1000 });
    const { socket, nextPing } = await rawClient(url, () => true);
    let closed = false;
    sessions[0]!.closed$.subscribe(() => (closed = true));
    for (let i = 0; i < 3; i++) {
      const pinged = nextPing();
      jest.advanceTimersByTime(1000);
      await pinged;
      await roundTrip(socket, `after-ping-${i}`);
    }
    jest.advanceTimersByTime(1000);
    await roundTrip(socket, 'still-here');
    expect(closed).toBe(false);
  });

  it('drops a client that stops answering pings, with a TransportError', async () => {
    const { url } = await start({ pingIntervalMs: 1000 });
    let answering = true;
    const { socket, nextPing } = await rawClient(url, () => answering);
    const closed = firstValueFrom(sessions[0]!.closed$);
    let pinged = nextPing();
    jest.advanceTimersByTime(1000);
    await pinged;
    await roundTrip(socket, 'answered');
    answering = false;
    pinged = nextPing();
    jest.advanceTimersByTime(1000);
    await pinged;
    await roundTrip(socket, 'not-answered');
    jest.advanceTimersByTime(1000);
    const close = await closed;
    expect(close.reason).toBe('peer did not answer ping');
    expect(close.error?.name).toBe('TransportError');
    expect(running?.handler.sessions.size).toBe(0);
  });

  it('pings from the client side too, once its socket opens, and drops a server that does not answer', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: false, handleProtocols: () => 'mcp' });
    try {
      await once(wss, 'listening');
      const serverSockets: WebSocket[] = [];
      wss.on('connection', (socket) => serverSockets.push(socket));
      const client = createWebSocketClientTransport({
        url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
        pingIntervalMs: 1000,
      });
      clients.push(client);
      const closed = firstValueFrom(client.closed$);
      while (!serverSockets[0]) await new Promise((resolve) => setImmediate(resolve));
      // The client has opened once it reads what the server sent.
      const greeted = nextFrames(client.incoming$, 1);
      serverSockets[0].send(JSON.stringify(notification('hello')));
      await greeted;
      const pinged = once(serverSockets[0], 'ping');
      jest.advanceTimersByTime(1000);
      await pinged;
      jest.advanceTimersByTime(1000);
      expect((await closed).reason).toBe('peer did not answer ping');
    } finally {
      wss.close();
    }
  });

  it('sends no pings with pingIntervalMs 0', async () => {
    const { url } = await start({ pingIntervalMs: 0 });
    const { socket } = await rawClient(url, () => false);
    let pinged = false;
    socket.on('ping', () => (pinged = true));
    jest.advanceTimersByTime(120_000);
    await roundTrip(socket, 'no-pings');
    expect(pinged).toBe(false);
  });
});
