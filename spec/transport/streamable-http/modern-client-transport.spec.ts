import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { notification, request } from '../../../lib/jsonrpc/message';
import { encodeSseEvent } from '../../../lib/transport/framing/sse';
import {
  createStreamableHttpClientTransport,
  encodeHeaderValue,
  STREAM_BROKEN,
} from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import type { StreamableHttpClientTransport } from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { nextFrames } from '../contract';

/** What a scripted server saw of one request. */
interface Seen {
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}
type Script = (seen: Seen, res: ServerResponse, req: IncomingMessage) => void;

let mock: Server | undefined;
let transport: StreamableHttpClientTransport | undefined;
const seen: Seen[] = [];

async function startMock(script: Script): Promise<string> {
  mock = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry = { method: req.method ?? '', headers: req.headers, body };
      seen.push(entry);
      if (entry.method === 'DELETE') {
        res.writeHead(200);
        res.end();
        return;
      }
      script(entry, res, req);
    });
  });
  await new Promise<void>((resolve) => mock?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(mock.address() as AddressInfo).port}/mcp`;
}

const STACKS: Array<[string, { fetch?: typeof fetch }]> = [
  ['node:http', {}],
  ['fetch', { fetch: (input, init) => fetch(input, init) }],
];

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernRequest = (id: number, method: string, params: Record<string, unknown> = {}) =>
  request(id, method, { ...params, _meta: META });

const waitFor = async (condition: () => boolean, what: string, ms = 3000): Promise<void> => {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

const json = (res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

afterEach(async () => {
  transport?.close();
  if (transport) await firstValueFrom(transport.closed$);
  transport = undefined;
  mock?.closeAllConnections();
  await new Promise((resolve) => (mock ? mock.close(resolve) : resolve(undefined)));
  mock = undefined;
  seen.length = 0;
});

describe('encodeHeaderValue', () => {
  // Spec 2026-07-28: Transports → Streamable HTTP → Value Encoding, the table of examples.
  it.each([
    ['us-west1', 'us-west1'],
    ['us west 1', 'us west 1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    ['\tindented', `=?base64?${Buffer.from('\tindented').toString('base64')}?=`],
    ['', ''],
  ])('[transport.http.value-encoding] encodes %j as %j', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
  });
});

describe.each(STACKS)('Streamable HTTP client transport, modern revisions (%s)', (_name, stack) => {
  const open = (url: string) => (transport = createStreamableHttpClientTransport({ url, ...stack }));

  it('[transport.http.modern-headers] sends the request metadata headers from the body, never a session id', async () => {
    const url = await startMock((entry, res) => {
      const { id } = JSON.parse(entry.body) as { id: number };
      json(res, { jsonrpc: '2.0', id, result: { resultType: 'complete', content: [] } }, 200, {
        'mcp-session-id': 'abc',
      });
    });
    const client = open(url);
    const answers = nextFrames(client.incoming$, 3);
    client.send(modernRequest(1, 'tools/call', { name: 'héllo', arguments: { region: 'eu' } }), {
      headers: { 'Mcp-Param-Region': 'eu' },
    });
    client.send(modernRequest(2, 'resources/read', { uri: 'file:///a%20b.txt' }));
    client.send(modernRequest(3, 'tools/list'));
    await answers;
    const byMethod = (m: string) => seen.find((s) => JSON.parse(s.body).method === m)!.headers;
    expect(byMethod('tools/call')).toMatchObject({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': encodeHeaderValue('héllo'),
      'mcp-param-region': 'eu',
      accept: 'application/json, text/event-stream',
    });
    expect(byMethod('resources/read')['mcp-name']).toBe('file:///a%20b.txt');
    expect(byMethod('tools/list')['mcp-name']).toBeUndefined();
    expect(seen.every((s) => s.headers['mcp-session-id'] === undefined)).toBe(true);
    expect(client.sessionId).toBeUndefined();
  });

  it('[transport.http.modern-broken-stream] fails a request whose SSE stream ends before its response, for re-issue', async () => {
    const url = await startMock((_entry, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        encodeSseEvent({
          data: JSON.stringify(notification('notifications/progress', { progressToken: 1, progress: 1 })),
        }),
      );
      res.end();
    });
    const client = open(url);
    const frames = nextFrames(client.incoming$, 2);
    client.send(modernRequest(1, 'tools/call', { name: 't' }));
    const [progress, failure] = (await frames) as Array<Record<string, unknown>>;
    expect(progress).toMatchObject({ method: 'notifications/progress' });
    expect(failure).toMatchObject({ id: 1, error: { code: -32000, data: { [STREAM_BROKEN]: true } } });
    expect(seen.map((s) => s.method)).toEqual(['POST']);
  });

  it('[transport.http.modern-cancel] cancels by closing the response stream, without POSTing notifications/cancelled', async () => {
    let closed = false;
    const url = await startMock((_entry, res, req) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      req.socket.on('close', () => (closed = true));
    });
    const client = open(url);
    const frames: unknown[] = [];
    client.incoming$.subscribe((frame) => frames.push(frame));
    client.send(modernRequest(7, 'tools/call', { name: 'slow' }));
    await waitFor(() => seen.length === 1, 'the POST');
    client.send(notification('notifications/cancelled', { requestId: 7, reason: 'no longer needed' }));
    await waitFor(() => closed, 'the stream to close');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(1);
    expect(frames).toEqual([]);
  });

  it('[transport.http.modern-refusal] keeps the data of a modern error the server refused a request with', async () => {
    const url = await startMock((entry, res) => {
      const { id } = JSON.parse(entry.body) as { id: number };
      const error = {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28'], requested: 'x' },
      };
      json(res, { jsonrpc: '2.0', id, error }, 400);
    });
    const client = open(url);
    const answer = nextFrames(client.incoming$, 1);
    client.send(modernRequest(1, 'server/discover'));
    expect((await answer)[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32022,
        message: 'HTTP 400: Unsupported protocol version',
        data: { supported: ['2026-07-28'], requested: 'x', httpStatus: 400 },
      },
    });
  });

  it('[transport.http.legacy-after-probe] still offers the HTTP+SSE fallback for the initialize that follows a refused probe', async () => {
    const url = await startMock((_entry, res) => {
      res.writeHead(405);
      res.end();
    });
    const legacy: Array<[unknown, number]> = [];
    transport = createStreamableHttpClientTransport({
      url,
      ...stack,
      onHttpSseServer: (init, status) => legacy.push([init, status]),
    });
    const probe = nextFrames(transport.incoming$, 1);
    transport.send(modernRequest(0, 'server/discover'));
    expect((await probe)[0]).toMatchObject({ id: 0, error: { data: { httpStatus: 405 } } });
    const init = request(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    });
    transport.send(init);
    await waitFor(() => legacy.length === 1, 'the fallback');
    expect(legacy[0]).toEqual([init, 405]);
  });
});

describe('Streamable HTTP client transport, handshake revisions', () => {
  it('[transport.http.standalone-before-requests] sends requests after initialized only once the GET stream is answered', async () => {
    let getAnsweredAt = Infinity;
    let listedAt = 0;
    const url = await startMock((entry, res) => {
      if (entry.method === 'GET') {
        // A server slow to answer the GET: the requests that follow must not overtake its answer.
        setTimeout(() => {
          getAnsweredAt = Date.now();
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.flushHeaders();
        }, 400);
        return;
      }
      const body = JSON.parse(entry.body) as { id?: number; method: string };
      if (body.method === 'tools/list') listedAt = Date.now();
      if (body.id === undefined) {
        res.writeHead(202);
        res.end();
        return;
      }
      json(res, { jsonrpc: '2.0', id: body.id, result: {} }, 200, { 'mcp-session-id': 's1' });
    });
    transport = createStreamableHttpClientTransport({ url });
    const answers = nextFrames(transport.incoming$, 1);
    transport.send(
      request(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    );
    await answers;
    transport.setProtocolVersion?.('2025-11-25');
    transport.send(notification('notifications/initialized'));
    const listed = nextFrames(transport.incoming$, 1);
    transport.send(request(2, 'tools/list', {}));
    await listed;
    const order = seen.map((s) => (s.method === 'GET' ? 'GET' : (JSON.parse(s.body) as { method: string }).method));
    expect(order).toEqual(['initialize', 'notifications/initialized', 'GET', 'tools/list']);
    expect(listedAt).toBeGreaterThanOrEqual(getAnsweredAt);
  });

  it('[transport.http.resume-only-owed] does not resume a stream whose response arrived on another stream', async () => {
    let standalone: ServerResponse | undefined;
    const url = await startMock((entry, res) => {
      if (entry.method === 'GET') {
        standalone = res;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        return;
      }
      const body = JSON.parse(entry.body) as { id?: number; method: string };
      if (body.method === 'tools/list') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(encodeSseEvent({ id: 'e1', retry: 50, data: '' }));
        // The answer goes out on the standalone stream instead, and this stream ends.
        standalone?.write(
          encodeSseEvent({ id: 'g1', data: JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { tools: [] } }) }),
        );
        setTimeout(() => res.end(), 20);
        return;
      }
      if (body.id === undefined) {
        res.writeHead(202);
        res.end();
        return;
      }
      json(res, { jsonrpc: '2.0', id: body.id, result: {} }, 200, { 'mcp-session-id': 's1' });
    });
    transport = createStreamableHttpClientTransport({ url });
    const init = nextFrames(transport.incoming$, 1);
    transport.send(
      request(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    );
    await init;
    transport.send(notification('notifications/initialized'));
    const answer = nextFrames(transport.incoming$, 1);
    transport.send(request(2, 'tools/list', {}));
    expect((await answer)[0]).toMatchObject({ id: 2, result: { tools: [] } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.filter((s) => s.method === 'GET').map((s) => s.headers['last-event-id'])).toEqual([undefined]);
  });
});
