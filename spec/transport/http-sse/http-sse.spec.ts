import { createServer, get } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { firstValueFrom } from 'rxjs';
import { notification, request, resultResponse } from '../../../lib/jsonrpc/message';
import { createHttpSseClientTransport } from '../../../lib/transport/http-client/http-sse/http-sse-client-transport';
import { createHttpSseHandler } from '../../../lib/transport/http-server/http-sse/http-sse-handler';
import type {
  HttpSseHandler,
  HttpSseHandlerOptions,
  HttpSseServerTransport,
} from '../../../lib/transport/http-server/http-sse/http-sse-handler';
import { createHttpClientTransport } from '../../../lib/transport/http-client/http-client-transport';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { Transport } from '../../../lib/transport/transport';
import { nextFrames } from '../contract';
import { readSse, rawPost } from '../streamable-http/http-kit';

let http: Server | undefined;
let handler: HttpSseHandler | undefined;
let running: RunningStreamableHttpServer | undefined;
const clients: Transport[] = [];
/** Raw streams a test opened; a paused one would otherwise keep its socket after the server dropped it. */
const streams: IncomingMessage[] = [];
const sessions: HttpSseServerTransport[] = [];

async function start(extra: Omit<HttpSseHandlerOptions, 'onSession'> = {}): Promise<string> {
  handler = createHttpSseHandler({ ...extra, onSession: (t) => sessions.push(t) });
  const legacy = handler;
  http = createServer((req, res) => legacy.handle(req, res));
  await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const stream of streams.splice(0)) stream.destroy();
  handler?.close();
  http?.closeAllConnections();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  await running?.close();
  http = handler = running = undefined;
  sessions.length = 0;
});

async function openStream(base: string): Promise<{ endpoint: string; response: Response; abort: AbortController }> {
  const abort = new AbortController();
  const response = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
  const [event] = await readSseHead(response);
  return { endpoint: new URL(event!.data, base).href, response, abort };
}

/** Reads the first event without consuming the rest of the stream. */
async function readSseHead(response: Response): Promise<Array<{ event?: string; data: string }>> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  const text = new TextDecoder().decode(value);
  const event = /event: (\w+)\ndata: ([^\n]*)\n/.exec(text);
  return event ? [{ event: event[1], data: event[2] as string }] : [];
}

describe('createHttpSseHandler', () => {
  it('[transport.legacy.endpoint] opens a session per GET and announces the POST endpoint first', async () => {
    const base = await start();
    const { endpoint } = await openStream(base);
    expect(endpoint).toMatch(/\/messages\?sessionId=[\w-]+$/);
    expect(sessions).toHaveLength(1);
    expect(handler?.sessions.get(sessions[0]!.sessionId)).toBe(sessions[0]);
  });

  it('[transport.legacy.post] answers 202 and delivers the message; the answer comes on the stream', async () => {
    const base = await start();
    const { endpoint, response } = await openStream(base);
    const received = nextFrames(sessions[0]!.incoming$, 1);
    const posted = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request(1, 'ping')),
    });
    expect(posted.status).toBe(202);
    expect(await received).toEqual([request(1, 'ping')]);
    sessions[0]!.send(resultResponse(1, {}));
    sessions[0]!.close();
    const events = await readSse(response);
    expect(events).toEqual([{ event: 'message', data: JSON.stringify(resultResponse(1, {})) }]);
  });

  it('[transport.legacy.bad-input] refuses bad posts with the right status', async () => {
    const base = await start();
    const { endpoint } = await openStream(base);
    const postTo = (target: string, body: string, type = 'application/json') =>
      fetch(target, { method: 'POST', headers: { 'content-type': type }, body }).then((r) => r.status);
    expect(await postTo(`${base}/messages`, '{}')).toBe(400);
    expect(await postTo(`${base}/messages?sessionId=nope`, JSON.stringify(notification('x')))).toBe(404);
    expect(await postTo(endpoint, 'text', 'text/plain')).toBe(415);
    expect(await postTo(endpoint, '{oops')).toBe(400);
    expect(await postTo(endpoint, '{"a":1}')).toBe(400);
    expect(await postTo(endpoint, JSON.stringify({ ...notification('x'), pad: 'x'.repeat(5 * 1024 * 1024) }))).toBe(
      413,
    );
    expect((await fetch(endpoint, { method: 'PUT' })).status).toBe(405);
    expect((await rawPost(endpoint, notification('x'), { host: 'evil.example.com' })).status).toBe(403);
  });

  it('ends the session when the client drops the stream, leaving nothing behind', async () => {
    const base = await start();
    const { abort } = await openStream(base);
    const closed = firstValueFrom(sessions[0]!.closed$);
    abort.abort();
    expect((await closed).reason).toBe('client disconnected');
    expect(handler?.sessions.size).toBe(0);
  });
});

/** Opens the SSE stream with node:http, to read its raw text or to leave it unread. */
function rawStream(base: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) =>
    get(`${base}/sse`, { headers: { accept: 'text/event-stream' } }, (stream) => {
      streams.push(stream);
      resolve(stream);
    }).on('error', reject),
  );
}

/** Sends 1 MiB messages (at most 200) until the transport closes; resolves with how it closed. */
async function floodUntilClosed(transport: Transport) {
  const closed = firstValueFrom(transport.closed$);
  let outcome: string | undefined;
  void closed.then((close) => (outcome = close.reason));
  const big = notification('notifications/message', { level: 'info', data: 'x'.repeat(1024 * 1024) });
  for (let i = 0; i < 200 && outcome === undefined; i++) {
    transport.send(big);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return closed;
}

describe('createHttpSseHandler: streams that go quiet or are not read', () => {
  it('writes a comment on a stream that stays quiet for keepAliveMs, and only then', async () => {
    // Virtual time for the keep-alive timer; the sockets stay real.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime', 'performance', 'Date'] });
    try {
      const base = await start({ keepAliveMs: 1000 });
      const stream = await rawStream(base);
      stream.setEncoding('utf8');
      let text = '';
      stream.on('data', (chunk: string) => (text += chunk));
      const arrived = (part: string) =>
        new Promise<void>((resolve) => {
          const check = () => {
            if (!text.includes(part)) return false;
            stream.off('data', check);
            resolve();
            return true;
          };
          if (!check()) stream.on('data', check);
        });
      await arrived('event: endpoint');
      // Each interval with a message in it passes without a comment.
      sessions[0]!.send(notification('first'));
      jest.advanceTimersByTime(1000);
      sessions[0]!.send(notification('second'));
      jest.advanceTimersByTime(1000);
      await arrived('second');
      expect(text).not.toContain(': keep-alive');
      // A quiet interval gets one.
      jest.advanceTimersByTime(1000);
      await arrived(': keep-alive\n\n');
      expect(text.split(': keep-alive')).toHaveLength(2);
      expect(text.indexOf(': keep-alive')).toBeGreaterThan(text.indexOf('second'));
      stream.destroy();
    } finally {
      jest.useRealTimers();
    }
  });

  it('closes a session whose client does not read once too much waits unsent, and keeps serving the others', async () => {
    const base = await start({ maxBufferedBytes: 256 * 1024 });
    const idle = await rawStream(base);
    idle.pause();
    const reader = await openStream(base);
    const [stalled, healthy] = sessions as [HttpSseServerTransport, HttpSseServerTransport];
    expect((await floodUntilClosed(stalled)).reason).toBe('slow reader');
    expect(handler?.sessions.has(stalled.sessionId)).toBe(false);
    healthy.send(resultResponse(1, {}));
    healthy.close();
    expect(await readSse(reader.response)).toEqual([{ event: 'message', data: JSON.stringify(resultResponse(1, {})) }]);
  });

  it('takes its slow-reader limit from startStreamableHttpServer when served from there', async () => {
    const seen: Transport[] = [];
    const warnings: Array<{ msg?: string; buffered?: number }> = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => warnings.push(JSON.parse(line) as { msg?: string; buffered?: number }) },
    );
    running = await startStreamableHttpServer({
      httpSse: true,
      maxBufferedBytes: 256 * 1024,
      logger,
      onSession: (t) => seen.push(t),
    });
    const idle = await rawStream(running.url.origin);
    idle.pause();
    while (!seen[0]) await new Promise((resolve) => setImmediate(resolve));
    expect((await floodUntilClosed(seen[0])).reason).toBe('slow reader');
    expect(running.httpSseHandler?.sessions.size).toBe(0);
    // Closed at the limit given, one 1 MiB message past it, not at the 8 MiB default.
    const [slow] = warnings.filter((w) => w.msg === 'slow reader: closing the session');
    expect(slow?.buffered).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('createHttpSseClientTransport', () => {
  it('[transport.legacy.client] waits for the endpoint, then exchanges messages, with custom headers and fetch', async () => {
    const base = await start();
    const headersSeen: Array<string | null> = [];
    const client = createHttpSseClientTransport({
      url: `${base}/sse`,
      headers: { 'x-token': 'abc' },
      fetch: (input, init) => {
        headersSeen.push(new Headers(init?.headers).get('x-token'));
        return fetch(input, init);
      },
    });
    clients.push(client);
    client.send(request(1, 'early'));
    await new Promise<void>((resolve) => {
      const wait = () => (sessions[0] ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(await nextFrames(sessions[0]!.incoming$, 1)).toEqual([request(1, 'early')]);
    const back = nextFrames(client.incoming$, 1);
    sessions[0]!.send(resultResponse(1, { ok: true }));
    expect(await back).toEqual([resultResponse(1, { ok: true })]);
    expect(headersSeen).toEqual(['abc', 'abc']);
  });

  it('closes with a TransportError when the stream cannot be opened', async () => {
    const base = await start();
    const client = createHttpSseClientTransport({ url: `${base}/nowhere` });
    clients.push(client);
    handler?.close();
    http?.removeAllListeners('request');
    http?.on('request', (_req, res) => res.writeHead(404).end());
    const closed = await firstValueFrom(client.closed$);
    expect(closed.error?.name).toBe('TransportError');
    expect(closed.reason).toMatch(/404/);
  });

  it('closes with a TransportError when one event outgrows maxMessageBytes, instead of buffering it (#13)', async () => {
    let cut = false;
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages\n\n');
      // One data line that never ends.
      res.write('data: ');
      const pump = (): void => {
        while (!res.destroyed && res.write('z'.repeat(16 * 1024)));
      };
      res.on('drain', pump);
      res.on('close', () => (cut = true));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = createHttpSseClientTransport({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`,
        maxMessageBytes: 64 * 1024,
      });
      const closed = await firstValueFrom(client.closed$);
      expect(closed.error?.name).toBe('TransportError');
      expect(closed.error?.message).toMatch(/maxMessageBytes \(65536 bytes\)/);
      // The stream is cut, not read on: the server sees its response closed.
      for (let i = 0; i < 1000 && !cut; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(cut).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('createHttpClientTransport', () => {
  it('[transport.http.fallback] falls back to HTTP+SSE when the server refuses the Streamable HTTP initialize', async () => {
    const base = await start();
    const client = createHttpClientTransport({ url: `${base}/sse` });
    clients.push(client);
    // The legacy handler answers POST /sse without a sessionId with 400: the fallback trigger.
    client.send(request(1, 'initialize', { protocolVersion: '2024-11-05' }));
    await new Promise<void>((resolve) => {
      const wait = () => (sessions[0] ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(await nextFrames(sessions[0]!.incoming$, 1)).toEqual([
      request(1, 'initialize', { protocolVersion: '2024-11-05' }),
    ]);
    expect(client.kind).toBe('http-sse');
    const back = nextFrames(client.incoming$, 1);
    sessions[0]!.send(resultResponse(1, {}));
    expect(await back).toEqual([resultResponse(1, {})]);
  });

  it('stays on Streamable HTTP when the server speaks it', async () => {
    const seen: Transport[] = [];
    running = await startStreamableHttpServer({ httpSse: true, onSession: (t) => seen.push(t) });
    const client = createHttpClientTransport({ url: running.url });
    clients.push(client);
    // A valid initialize: one with invalid params opens no session (#13).
    client.send(
      request(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    );
    await new Promise<void>((resolve) => {
      const wait = () => (seen[0] ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(client.kind).toBe('streamable-http');
    expect(seen[0]!.sessionId).toEqual(expect.any(String));
    // The same server also serves old clients.
    const legacy = createHttpSseClientTransport({ url: new URL('/sse', running.url) });
    clients.push(legacy);
    legacy.send(notification('hello'));
    await new Promise<void>((resolve) => {
      const wait = () => (seen[1] ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(await nextFrames(seen[1]!.incoming$, 1)).toEqual([notification('hello')]);
  });
});
