import { Agent, createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { TransportError } from '../../../lib/jsonrpc/errors';
import { notification, request } from '../../../lib/jsonrpc/message';
import { encodeSseEvent } from '../../../lib/transport/framing/sse';
import { SessionNotFoundError } from '../../../lib/transport/http-client/http-errors';
import { createStreamableHttpClientTransport } from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import type { StreamableHttpClientTransport } from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { MalformedFrame } from '../../../lib/transport/transport';
import { nextFrames } from '../contract';
import { startTestServer } from './http-kit';
import type { TestHttpServer } from './http-kit';

/** A hand-written HTTP server: each test scripts its answers and sees every request. */
interface Seen {
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly at: number;
}
type Script = (seen: Seen, res: ServerResponse) => void;

let mock: Server | undefined;
let testServer: TestHttpServer | undefined;
let transport: StreamableHttpClientTransport | undefined;
const seen: Seen[] = [];

async function startMock(script: Script): Promise<string> {
  mock = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry = { method: req.method ?? '', headers: req.headers, body, at: Date.now() };
      seen.push(entry);
      script(entry, res);
    });
  });
  await new Promise<void>((resolve) => mock?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(mock.address() as AddressInfo).port}`;
}

type ClientOptions = Partial<Parameters<typeof createStreamableHttpClientTransport>[0]>;

/** A keep-alive agent given to the transport, which sends through `node:http` with it (and leaves it open). */
const AGENT = new Agent({ keepAlive: true });
afterAll(() => AGENT.destroy());

/**
 * The HTTP stacks a client may send through: on Node by default undici's pool, `node:http` when
 * an agent is given, or a fetch.
 */
const STACKS: Array<[string, ClientOptions]> = [
  ['undici', {}],
  ['node:http', { agent: AGENT }],
  ['fetch', { fetch: (input, init) => fetch(input, init) }],
];

/**
 * The stacks that send without a fetch. `connections`: how many a run of requests sent one after
 * another uses (undici waits one turn of the event loop before it reuses a connection, so a request
 * sent as soon as the previous answer arrived goes out on a second one). `closesConnections`:
 * whether closing the transport closes them (a given agent is the caller's, and left open).
 */
const NODE_STACKS: Array<[string, ClientOptions, { connections: number; closesConnections: boolean }]> = [
  ['undici', {}, { connections: 2, closesConnections: true }],
  ['node:http', { agent: AGENT }, { connections: 1, closesConnections: false }],
];

let stack: ClientOptions = {};
const open = (url: string, extra: ClientOptions = {}) => {
  transport = createStreamableHttpClientTransport({ url, ...stack, ...extra });
  return transport;
};

const waitFor = async (condition: () => boolean, what: string, ms = 3000): Promise<void> => {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

afterEach(async () => {
  transport?.close();
  if (transport) await firstValueFrom(transport.closed$);
  transport = undefined;
  await testServer?.close();
  testServer = undefined;
  mock?.closeAllConnections();
  await new Promise((resolve) => (mock ? mock.close(resolve) : resolve(undefined)));
  mock = undefined;
  seen.length = 0;
});

const sse = (res: ServerResponse, headers: Record<string, string> = {}) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
  res.flushHeaders();
};

describe.each(STACKS)('createStreamableHttpClientTransport (%s) against the rxmcp server', (_name, options) => {
  beforeEach(() => (stack = options));
  afterEach(() => (stack = {}));

  it('[transport.http.client-session] keeps the session id, sends the protocol version, and receives SSE answers', async () => {
    testServer = await startTestServer();
    const client = open(testServer.url);
    const answers = nextFrames(client.incoming$, 1);
    client.send(
      request(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    expect((await answers)[0]).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
    expect(client.sessionId).toBe([...testServer.running.handler.sessions.keys()][0]);
    client.setProtocolVersion?.('2025-06-18');
    client.send(notification('notifications/initialized'));
    const call = nextFrames(client.incoming$, 5);
    client.send(request(2, 'tools/call', { name: 'chatty', arguments: {}, _meta: { progressToken: 3 } }));
    const frames = (await call) as Array<Record<string, unknown>>;
    expect(frames.map((f) => f.method ?? f.id)).toEqual([
      'notifications/message',
      'notifications/progress',
      'notifications/message',
      'notifications/progress',
      2,
    ]);
  });

  it('[transport.http.client-resume] resumes a stream the server closed early, after its retry, with Last-Event-ID', async () => {
    testServer = await startTestServer({ retryMs: 100 });
    const gets: number[] = [];
    testServer.running.server.prependListener('request', (req: IncomingMessage) => {
      if (req.method === 'GET') gets.push(Date.now());
    });
    const client = open(testServer.url, { openStandaloneStream: false });
    const init = nextFrames(client.incoming$, 1);
    client.send(
      request(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    await init;
    client.send(notification('notifications/initialized'));
    const frames = nextFrames(client.incoming$, 3);
    client.send(request(2, 'tools/call', { name: 'cut', arguments: { gate: 'k' } }));
    await waitFor(() => testServer?.connections[0]?.inFlightRequests === 1, 'the call');
    const cutAt = Date.now();
    testServer.release('k');
    const messages = (await frames) as Array<Record<string, unknown>>;
    expect(messages.map((m) => (m.params as { data?: string } | undefined)?.data ?? m.id)).toEqual([
      'before cut',
      'after cut',
      2,
    ]);
    expect(gets).toHaveLength(1);
    expect(gets[0]! - cutAt).toBeGreaterThanOrEqual(60);
  });

  it('[transport.http.session-gone] closes with SessionNotFoundError when the server ended the session, with reinitialize: false', async () => {
    testServer = await startTestServer();
    const client = open(testServer.url, { openStandaloneStream: false, reinitialize: false });
    const init = nextFrames(client.incoming$, 1);
    client.send(
      request(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    await init;
    testServer.connections[0]!.close('server says bye');
    client.send(request(2, 'tools/list'));
    const closed = await firstValueFrom(client.closed$);
    expect(closed.error).toBeInstanceOf(SessionNotFoundError);
    expect(closed.error?.name).toBe('SessionNotFoundError');
    expect(closed.reason).toBe('the server ended or forgot the session (HTTP 404)');
    expect(closed.error?.message).toMatch(
      /^The server no longer knows this session \(HTTP 404 Not Found for session .+\): it restarted, or it ended the session\. Reconnect/,
    );
  });

  it('[transport.http.client-delete] sends DELETE with the session id when closed', async () => {
    testServer = await startTestServer();
    const client = open(testServer.url);
    const init = nextFrames(client.incoming$, 1);
    client.send(
      request(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    await init;
    expect(testServer.running.handler.sessions.size).toBe(1);
    client.close();
    await firstValueFrom(client.closed$);
    expect(testServer.running.handler.sessions.size).toBe(0);
  });
});

describe.each(STACKS)('createStreamableHttpClientTransport (%s) against scripted servers', (_name, options) => {
  beforeEach(() => (stack = options));
  afterEach(() => (stack = {}));

  it('[transport.http.client-tolerance] ignores a 200 JSON body to a notification and a 400 on the standalone GET', async () => {
    const url = await startMock((entry, res) => {
      if (entry.method === 'GET') {
        res.writeHead(400).end('no');
        return;
      }
      const message = JSON.parse(entry.body) as { id?: number; method: string };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          message.id === undefined ? { result: {} } : { jsonrpc: '2.0', id: message.id, result: { ok: true } },
        ),
      );
    });
    const client = open(url, { headers: { 'x-custom': 'yes' } });
    const first = nextFrames(client.incoming$, 1);
    client.send(request(1, 'initialize', {}));
    expect(await first).toEqual([{ jsonrpc: '2.0', id: 1, result: { ok: true } }]);
    client.send(notification('notifications/initialized'));
    await waitFor(() => seen.some((s) => s.method === 'GET'), 'the GET');
    const next = nextFrames(client.incoming$, 1);
    client.send(request(2, 'tools/list'));
    // Only the answer to the request arrives: the notification's body was not taken for a message.
    expect(await next).toEqual([{ jsonrpc: '2.0', id: 2, result: { ok: true } }]);
    expect(seen.every((s) => s.headers['x-custom'] === 'yes')).toBe(true);
    expect(seen.find((s) => s.method === 'POST')?.headers.accept).toBe('application/json, text/event-stream');
  });

  it('[transport.http.sse-retry] waits for the server’s retry, then resumes with GET, Last-Event-ID and the session id', async () => {
    let closedAt = 0;
    const url = await startMock((entry, res) => {
      if (entry.method === 'DELETE') {
        res.writeHead(200).end();
        return;
      }
      if (entry.method === 'GET') {
        sse(res);
        if (entry.headers['last-event-id'] === 'event-1') {
          res.write(
            encodeSseEvent({ id: 'event-2', data: JSON.stringify({ jsonrpc: '2.0', id: 7, result: { done: true } }) }),
          );
        }
        return;
      }
      const message = JSON.parse(entry.body) as { id?: number; method: string };
      if (message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-03-26' } }));
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      sse(res, { 'mcp-session-id': 'sess-1' });
      res.write(encodeSseEvent({ id: 'event-1', retry: 300, data: '' }));
      setTimeout(() => {
        closedAt = Date.now();
        res.end();
      }, 50);
    });
    const client = open(url, { openStandaloneStream: false, reconnect: { initialDelayMs: 5000 } });
    const init = nextFrames(client.incoming$, 1);
    client.send(request(1, 'initialize', {}));
    await init;
    const result = nextFrames(client.incoming$, 1);
    client.send(request(7, 'tools/call', { name: 'test_reconnection' }));
    expect(await result).toEqual([{ jsonrpc: '2.0', id: 7, result: { done: true } }]);
    const get = seen.find((s) => s.method === 'GET')!;
    expect(get.headers['last-event-id']).toBe('event-1');
    expect(get.headers['mcp-session-id']).toBe('sess-1');
    const waited = get.at - closedAt;
    expect(waited).toBeGreaterThanOrEqual(280);
    expect(waited).toBeLessThan(600);
  });

  it('[transport.http.client-get-first] opens the standalone GET before the requests that follow the handshake', async () => {
    const url = await startMock((entry, res) => {
      if (entry.method === 'GET') {
        sse(res, { 'mcp-session-id': 's' });
        return;
      }
      if (entry.method === 'DELETE') {
        res.writeHead(200).end();
        return;
      }
      const message = JSON.parse(entry.body) as { id?: number };
      if (message.id === undefined) res.writeHead(202).end();
      else
        res
          .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
    });
    const client = open(url);
    const init = nextFrames(client.incoming$, 1);
    client.send(request(1, 'initialize', {}));
    await init;
    client.send(notification('notifications/initialized'));
    const answer = nextFrames(client.incoming$, 1);
    client.send(request(2, 'tools/call', { name: 'x' }));
    await answer;
    expect(
      seen.map((s) => (s.method === 'POST' ? (JSON.parse(s.body) as { method: string }).method : s.method)),
    ).toEqual(['initialize', 'notifications/initialized', 'GET', 'tools/call']);
  });

  it('[transport.http.client-get-trimmed] opens a new GET stream when the server no longer has the last event of the one it had', async () => {
    let gets = 0;
    const url = await startMock((entry, res) => {
      if (entry.method === 'GET') {
        gets++;
        if (entry.headers['last-event-id'] !== undefined) {
          // Its store kept a bounded number of events: that one is gone.
          res.writeHead(400, { 'content-type': 'application/json' }).end('{}');
          return;
        }
        sse(res, { 'mcp-session-id': 's' });
        if (gets === 1) res.end(encodeSseEvent({ id: 'g1', retry: 10, data: '' }));
        else
          res.write(
            encodeSseEvent({
              id: 'g2',
              data: JSON.stringify({
                jsonrpc: '2.0',
                method: 'notifications/message',
                params: { level: 'info', data: 'after' },
              }),
            }),
          );
        return;
      }
      if (entry.method === 'DELETE') return void res.writeHead(200).end();
      const message = JSON.parse(entry.body) as { id?: number };
      if (message.id === undefined) res.writeHead(202).end();
      else
        res
          .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
    });
    const client = open(url, { reconnect: { initialDelayMs: 5, maxRetries: 3 } });
    const init = nextFrames(client.incoming$, 1);
    client.send(request(1, 'initialize', {}));
    await init;
    const logged = nextFrames(client.incoming$, 1);
    client.send(notification('notifications/initialized'));
    expect(await logged).toEqual([expect.objectContaining({ method: 'notifications/message' })]);
    expect(seen.filter((entry) => entry.method === 'GET').map((entry) => entry.headers['last-event-id'])).toEqual([
      undefined,
      'g1',
      undefined,
    ]);
  });

  it('[transport.http.client-http-error] fails the requests of a refused POST with an error response naming the status', async () => {
    const url = await startMock((entry, res) => {
      const message = JSON.parse(entry.body) as { id: number };
      if (message.id === 1) {
        res.writeHead(500).end('boom');
        return;
      }
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'forbidden here' } }));
    });
    const client = open(url);
    const frames = nextFrames(client.incoming$, 2);
    client.send(request(1, 'a'));
    client.send(request(2, 'b'));
    const byId = new Map((await frames).map((f) => [(f as { id: number }).id, f]));
    expect(byId.get(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'HTTP 500', data: { httpStatus: 500 } },
    });
    expect(byId.get(2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32001, message: 'HTTP 403: forbidden here', data: { httpStatus: 403 } },
    });
  });

  it('emits a MalformedFrame for an SSE event that is not JSON, and goes on', async () => {
    const url = await startMock((_entry, res) => {
      sse(res);
      res.write(encodeSseEvent({ data: 'not json {' }));
      res.end(encodeSseEvent({ data: JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }) }));
    });
    const client = open(url);
    const frames = nextFrames(client.incoming$, 2);
    client.send(request(1, 'a'));
    const [bad, good] = await frames;
    expect(bad).toBeInstanceOf(MalformedFrame);
    expect(good).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('closes with a TransportError when the server cannot be reached', async () => {
    const url = await startMock(() => undefined);
    await new Promise((resolve) => mock?.close(resolve));
    mock = undefined;
    const client = open(url);
    client.send(request(1, 'initialize', {}));
    const closed = await firstValueFrom(client.closed$);
    expect(closed.error?.name).toBe('TransportError');
    expect(closed.reason).toBe('POST failed');
  });

  it('hands the first initialize to onHttpSseServer when the server refuses it with 404 or 405', async () => {
    const url = await startMock((_entry, res) => res.writeHead(405).end());
    const calls: Array<[unknown, number]> = [];
    const client = open(url, { onHttpSseServer: (message, status) => calls.push([message, status]) });
    client.send(request(1, 'initialize', {}));
    await waitFor(() => calls.length === 1, 'the fallback');
    expect(calls[0]).toEqual([request(1, 'initialize', {}), 405]);
  });

  it('[transport.http.client-headers] sends the session id, the protocol version and custom headers on POST, GET and DELETE', async () => {
    const url = await startMock((entry, res) => {
      if (entry.method === 'GET') return sse(res);
      if (entry.method === 'DELETE') return void res.writeHead(200).end();
      const message = JSON.parse(entry.body) as { id?: number };
      if (message.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-h' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
    });
    const client = open(url, { headers: { authorization: 'Bearer t0ken', 'x-trace': 'abc' } });
    const init = nextFrames(client.incoming$, 1);
    client.send(request(1, 'initialize', {}));
    await init;
    client.setProtocolVersion?.('2025-06-18');
    client.send(notification('notifications/initialized'));
    await waitFor(() => seen.some((s) => s.method === 'GET'), 'the GET');
    client.close();
    await firstValueFrom(client.closed$);
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST', 'GET', 'DELETE']);
    for (const entry of seen) {
      expect(entry.headers).toMatchObject({ authorization: 'Bearer t0ken', 'x-trace': 'abc' });
    }
    expect(seen[0]!.headers['mcp-session-id']).toBeUndefined();
    for (const entry of seen.slice(1)) {
      expect(entry.headers).toMatchObject({ 'mcp-session-id': 'sess-h', 'mcp-protocol-version': '2025-06-18' });
    }
    expect(seen[2]!.headers.accept).toBe('text/event-stream');
  });

  it('[transport.http.client-abort] aborts a request in flight on close: the server sees its connection go, and close does not wait for it', async () => {
    let gone: () => void = () => undefined;
    const connectionGone = new Promise<void>((resolve) => (gone = resolve));
    const url = await startMock((_entry, res) => {
      // Never answered.
      res.on('close', () => gone());
    });
    const client = open(url, { openStandaloneStream: false });
    client.send(request(1, 'tools/list'));
    await waitFor(() => seen.length === 1, 'the POST');
    client.close();
    expect((await firstValueFrom(client.closed$)).reason).toBe('closed locally');
    await connectionGone;
  });

  it('[transport.http.client-broken-stream] resumes with Last-Event-ID when the connection breaks mid-stream', async () => {
    const url = await startMock((entry, res) => {
      if (entry.method === 'GET') {
        sse(res);
        res.end(
          encodeSseEvent({
            id: 'b-2',
            data: JSON.stringify({ jsonrpc: '2.0', id: 3, result: { resumed: entry.headers['last-event-id'] } }),
          }),
        );
        return;
      }
      sse(res);
      res.write(
        encodeSseEvent({
          id: 'b-1',
          retry: 10,
          data: JSON.stringify({
            jsonrpc: '2.0',
            method: 'notifications/message',
            params: { level: 'info', data: 'x' },
          }),
        }),
      );
      // Half an event, then the connection is cut.
      res.write('id: b-1.5\ndata: {"jsonrpc"');
      setImmediate(() => res.destroy());
    });
    const client = open(url, { openStandaloneStream: false });
    const frames = nextFrames(client.incoming$, 2);
    client.send(request(3, 'tools/call', { name: 'x' }));
    expect(await frames).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
      { jsonrpc: '2.0', id: 3, result: { resumed: 'b-1' } },
    ]);
  });

  it('decodes a UTF-8 character split across chunks of an SSE answer', async () => {
    const url = await startMock((_entry, res) => {
      sse(res);
      const bytes = Buffer.from(
        encodeSseEvent({ data: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'héllo €' } }) }),
      );
      const euro = bytes.indexOf(0xe2);
      res.write(bytes.subarray(0, euro + 1));
      setImmediate(() => res.end(bytes.subarray(euro + 1)));
    });
    const client = open(url, { openStandaloneStream: false });
    const frames = nextFrames(client.incoming$, 1);
    client.send(request(1, 'a'));
    expect(await frames).toEqual([{ jsonrpc: '2.0', id: 1, result: { text: 'héllo €' } }]);
  });
});

describe.each(NODE_STACKS)('createStreamableHttpClientTransport without a fetch (%s)', (_name, options, expected) => {
  beforeEach(() => (stack = options));
  afterEach(() => (stack = {}));

  it('does not use the global fetch', async () => {
    const spy = jest.spyOn(globalThis, 'fetch');
    try {
      testServer = await startTestServer();
      const client = open(testServer.url);
      const init = nextFrames(client.incoming$, 1);
      client.send(
        request(1, 'initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        }),
      );
      expect(await init).toEqual([expect.objectContaining({ id: 1, result: expect.any(Object) })]);
      client.close();
      await firstValueFrom(client.closed$);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it('[transport.http.client-keep-alive] reuses its connections for consecutive requests, and closes them with the transport unless the agent was given', async () => {
    const sockets: Socket[] = [];
    const url = await startMock((entry, res) => {
      if (entry.method === 'DELETE') return void res.writeHead(200).end();
      const message = JSON.parse(entry.body) as { id: number };
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'k' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
    });
    mock!.on('connection', (socket: Socket) => sockets.push(socket));
    const client = open(url, { openStandaloneStream: false });
    for (let id = 1; id <= 6; id++) {
      const answer = nextFrames(client.incoming$, 1);
      client.send(request(id, 'tools/list'));
      await answer;
    }
    expect(sockets).toHaveLength(expected.connections);
    client.close();
    await firstValueFrom(client.closed$);
    if (expected.closesConnections) {
      await waitFor(() => sockets.every((socket) => socket.destroyed), 'the connections to close');
    } else {
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(sockets.some((socket) => socket.destroyed)).toBe(false);
    }
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST', 'POST', 'POST', 'POST', 'DELETE']);
  });

  it('[transport.http.client-stale-socket] fails a request whose reused connection is cut before any answer, without sending it again (#13)', async () => {
    const sockets = new Set<Socket>();
    let cut = 0;
    const url = await startMock((entry, res) => {
      const message = JSON.parse(entry.body) as { id: number };
      // The second request arrives on the kept-alive connection: cut it, as a server timing it out would.
      if (message.id === 2 && cut === 0) {
        cut++;
        res.socket?.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { id: message.id } }));
    });
    mock!.on('connection', (socket: Socket) => sockets.add(socket));
    const client = open(url, { openStandaloneStream: false });
    const first = nextFrames(client.incoming$, 1);
    client.send(request(1, 'tools/list'));
    await first;
    const second = nextFrames(client.incoming$, 1);
    client.send(request(2, 'tools/list'));
    // The server read request 2 before the connection broke: it must not run twice.
    expect(await second).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32000, message: expect.stringMatching(/not sent again/), data: { connectionCut: true } },
      },
    ]);
    expect(cut).toBe(1);
    expect(seen.map((s) => (JSON.parse(s.body) as { id: number }).id)).toEqual([1, 2]);
    // The transport goes on: the next request is answered on a new connection.
    const third = nextFrames(client.incoming$, 1);
    client.send(request(3, 'tools/list'));
    expect(await third).toEqual([{ jsonrpc: '2.0', id: 3, result: { id: 3 } }]);
    expect(sockets.size).toBe(2);
  });
});

describe('createStreamableHttpClientTransport request signals', () => {
  it('gives every request its own abort signal and aborts the ones in flight on close', async () => {
    const signals: AbortSignal[] = [];
    const fakeFetch = ((_url: URL, init: RequestInit) => {
      signals.push(init.signal as AbortSignal);
      if (signals.length <= 3) {
        return Promise.resolve(new Response('', { status: 202 }));
      }
      // The fourth request hangs until aborted.
      return new Promise<Response>((_, reject) => {
        init.signal?.addEventListener('abort', () => reject(new Error('aborted')));
      });
    }) as typeof fetch;
    const client = createStreamableHttpClientTransport({
      url: 'http://127.0.0.1:1/mcp',
      fetch: fakeFetch,
      openStandaloneStream: false,
    });
    for (let i = 0; i < 3; i++) client.send(notification('notifications/progress', { progressToken: i, progress: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    client.send(request(1, 'tools/list'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A shared signal would collect one abort listener per fetch (issue #6's HTTP benchmark).
    expect(new Set(signals).size).toBe(signals.length);
    expect(signals).toHaveLength(4);
    client.close();
    await firstValueFrom(client.closed$);
    expect(signals[3]!.aborted).toBe(true);
    expect(signals.slice(0, 3).every((signal) => !signal.aborted)).toBe(true);
  });
});

describe('createStreamableHttpClientTransport: owed responses no stream can bring (#13)', () => {
  it('fails a request at once when its SSE answer ends before the response and offers no event id to resume from', async () => {
    const url = await startMock((entry, res) => {
      const message = JSON.parse(entry.body) as { id?: number };
      if (message.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\n\n`,
      );
      res.end();
    });
    const client = open(url, { openStandaloneStream: false });
    const frames = nextFrames(client.incoming$, 2);
    client.send(request(7, 'tools/call', { name: 'slow' }));
    const [progress, failure] = await frames;
    expect(progress).toMatchObject({ method: 'notifications/progress' });
    expect(failure).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: expect.stringMatching(/cannot be resumed/), data: { connectionCut: true } },
    });
    client.close();
  });
});

describe('createStreamableHttpClientTransport: giving a stream up', () => {
  /** Answers a call with one progress event (id e1) and cuts the stream; GETs get `get`. */
  const cutAfterProgress = (get: (res: ServerResponse) => void) =>
    startMock((entry, res) => {
      if (entry.method === 'GET') return get(res);
      const message = JSON.parse(entry.body) as { id?: number };
      if (message.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
      res.end(`id: e1\ndata: ${JSON.stringify(progress)}\n\n`);
    });

  /** Calls `slow` on `url` (its stream cut after a progress event): the client, and the answer that ended the call. */
  const cutCall = async (url: string, maxRetries: number) => {
    const client = open(url, { openStandaloneStream: false, reconnect: { initialDelayMs: 5, maxRetries } });
    const frames = nextFrames(client.incoming$, 2);
    client.send(request(7, 'tools/call', { name: 'slow' }));
    const [, failure] = await frames;
    return { client, failure };
  };
  const failedWith = (message: string) => ({
    jsonrpc: '2.0',
    id: 7,
    error: { code: -32000, message, data: { connectionCut: true } },
  });

  it('fails only the requests it owed, naming the status, when the server refuses to resume it', async () => {
    const { client, failure } = await cutCall(await cutAfterProgress((res) => res.writeHead(500).end()), 2);
    expect(failure).toEqual(
      failedWith('Request failed: resuming the response stream failed 2 times (the server answered HTTP 500)'),
    );
    expect(seen.filter((entry) => entry.method === 'GET')).toHaveLength(2);
    // The server is there: the transport goes on.
    client.send(notification('notifications/initialized'));
    await waitFor(() => seen.length === 4, 'the next POST');
  });

  it('[transport.http.client-resume-204] fails the requests it owed at once, and resumes no more, when the server answers 204', async () => {
    const { client, failure } = await cutCall(await cutAfterProgress((res) => res.writeHead(204).end()), 5);
    expect(failure).toEqual(
      failedWith('Request failed: the server ended the response stream without the response (HTTP 204)'),
    );
    expect(seen.filter((entry) => entry.method === 'GET')).toHaveLength(1);
    // The transport goes on.
    client.send(notification('notifications/initialized'));
    await waitFor(() => seen.length === 3, 'the next POST');
    expect(seen.filter((entry) => entry.method === 'GET')).toHaveLength(1);
  });

  // Issue "newcomer", item 6: calls waited for their timeout after the server went away.
  it('closes with a TransportError naming the cause when the server no longer answers at all', async () => {
    const url = await cutAfterProgress((res) => res.socket?.destroy());
    const client = open(url, { openStandaloneStream: false, reconnect: { initialDelayMs: 5, maxRetries: 2 } });
    client.send(request(7, 'tools/call', { name: 'slow' }));
    const closed = await firstValueFrom(client.closed$);
    expect(closed.reason).toBe('the server stopped answering');
    expect(closed.error).toBeInstanceOf(TransportError);
    expect(closed.error?.message).toMatch(
      new RegExp(`^The server at ${url}/? stopped answering: 2 attempts to reconnect failed, the last with .+`),
    );
    expect(closed.error?.cause).toHaveProperty('message');
  });
});

describe.each(STACKS)(
  'createStreamableHttpClientTransport over %s: messages past maxMessageLength (#13)',
  (_name, options) => {
    beforeEach(() => {
      stack = options;
    });
    afterEach(() => {
      stack = {};
    });

    const tooLarge = (id: number, max: number) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32000,
        message: expect.stringMatching(new RegExp(`maxMessageLength \\(${max} characters\\)`)),
        data: { responseTooLarge: true, maxMessageLength: max },
      },
    });
    const answer = (id: number, text: string) => JSON.stringify({ jsonrpc: '2.0', id, result: { text } });

    it('fails only the request whose JSON body is too large, cutting the body, and goes on', async () => {
      let cutShort = false;
      const url = await startMock((entry, res) => {
        const { id } = JSON.parse(entry.body) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' });
        if (id !== 1) return void res.end(answer(id, 'small'));
        // A body that would never end: the client must stop reading it, not buffer it.
        const pump = (): void => {
          while (res.write(' '.repeat(64 * 1024)));
        };
        res.on('drain', pump);
        res.on('close', () => (cutShort = !res.writableFinished));
        res.write(answer(1, 'x'.repeat(10_000)).slice(0, -1));
        pump();
      });
      const client = open(url, { openStandaloneStream: false, maxMessageLength: 4096 });
      const failed = nextFrames(client.incoming$, 1);
      client.send(request(1, 'tools/call', { name: 'huge' }));
      expect(await failed).toEqual([tooLarge(1, 4096)]);
      await waitFor(() => cutShort, 'the server to see its endless body cut');
      const next = nextFrames(client.incoming$, 1);
      client.send(request(2, 'tools/call', { name: 'small' }));
      expect(await next).toEqual([{ jsonrpc: '2.0', id: 2, result: { text: 'small' } }]);
    });

    it('fails the requests of an SSE answer whose event is too large, without resuming the stream', async () => {
      const url = await startMock((entry, res) => {
        const { id } = JSON.parse(entry.body) as { id: number };
        sse(res);
        if (id !== 1) return void res.end(encodeSseEvent({ id: `e${id}`, data: answer(id, 'small') }));
        res.write(encodeSseEvent({ id: 'e0', data: '' }));
        // One data line that never ends.
        res.write('data: ');
        const pump = (): void => {
          while (res.write('y'.repeat(64 * 1024)));
        };
        res.on('drain', pump);
        pump();
      });
      const client = open(url, { openStandaloneStream: false, maxMessageLength: 8192 });
      const failed = nextFrames(client.incoming$, 1);
      client.send(request(1, 'tools/call', { name: 'huge' }));
      expect(await failed).toEqual([tooLarge(1, 8192)]);
      const next = nextFrames(client.incoming$, 1);
      client.send(request(2, 'tools/call', { name: 'small' }));
      expect(await next).toEqual([{ jsonrpc: '2.0', id: 2, result: { text: 'small' } }]);
      // No GET tried to resume the stream that carried the oversized event.
      expect(seen.map((s) => s.method)).toEqual(['POST', 'POST']);
    });

    it('reads messages up to the bound, and larger ones by default', async () => {
      const big = 'z'.repeat(200_000);
      const url = await startMock((entry, res) => {
        const { id } = JSON.parse(entry.body) as { id: number };
        if (id === 1) {
          sse(res);
          return void res.end(encodeSseEvent({ data: answer(1, big) }));
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer(id, big));
      });
      const client = open(url, { openStandaloneStream: false });
      const frames = nextFrames(client.incoming$, 2);
      client.send(request(1, 'tools/call', { name: 'big' }));
      client.send(request(2, 'tools/call', { name: 'big' }));
      const got = await frames;
      expect(got.map((frame) => (frame as { result: { text: string } }).result.text.length)).toEqual([
        200_000, 200_000,
      ]);
    });
  },
);
