import { Agent, createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createFetchRequester, createNodeRequester } from '../../../lib/transport/http-client/http-requester';
import type { HttpRequester } from '../../../lib/transport/http-client/http-requester';
import { createUndiciRequester, loadUndici } from '../../../lib/transport/http-client/undici-requester';
import { createDefaultRequester } from '../../../lib/transport/http-client/default-requester';

let server: Server | undefined;
let requester: HttpRequester | undefined;
const sockets = new Set<Socket>();

async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<URL> {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handle(req, res, body));
  });
  server.on('connection', (socket: Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp?x=1`);
}

afterEach(async () => {
  requester?.close();
  requester = undefined;
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  sockets.clear();
});

const STACKS: Array<[string, (url: URL) => HttpRequester]> = [
  ['undici', (url) => createUndiciRequester(url, loadUndici()!)],
  ['node:http', (url) => createNodeRequester(url)],
  ['fetch', (url) => createFetchRequester(url, fetch)],
];

describe.each(STACKS)('%s requester', (_name, make) => {
  it('sends the method, path, headers and body, and reads status, headers and text', async () => {
    const url = await serve((req, res, body) => {
      res.writeHead(201, {
        'content-type': 'application/json',
        'x-echo': `${req.method} ${req.url} ${req.headers['x-in']}`,
      });
      res.end(JSON.stringify({ body, length: req.headers['content-length'] }));
    });
    requester = make(url);
    const answer = await requester.request({
      method: 'POST',
      headers: { 'x-in': 'yes', 'content-type': 'application/json' },
      body: '{"é":1}',
    }).answer;
    expect([answer.status, answer.ok]).toEqual([201, true]);
    expect(answer.header('x-echo')).toBe('POST /mcp?x=1 yes');
    expect(answer.header('x-missing')).toBeUndefined();
    expect(JSON.parse(await answer.text())).toEqual({ body: '{"é":1}', length: '8' });
  });

  it('calls read’s callback with each piece of a streamed body as it comes', async () => {
    let release: () => void = () => undefined;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('one');
      release = () => res.end('two');
    });
    requester = make(url);
    const answer = await requester.request({ method: 'GET', headers: {} }).answer;
    const pieces: string[] = [];
    const done = answer.read((text) => {
      pieces.push(text);
      if (pieces.length === 1) release();
    });
    await done;
    expect(pieces.join('')).toBe('onetwo');
  });

  it('rejects the answer of a request aborted before it was answered', async () => {
    const url = await serve(() => undefined);
    requester = make(url);
    const call = requester.request({ method: 'GET', headers: {} });
    await new Promise<void>((resolve) => server?.once('request', () => resolve()));
    call.abort();
    await expect(call.answer).rejects.toThrow();
  });

  it('rejects a read when the call is aborted mid-body, or when the callback throws', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('first');
    });
    requester = make(url);
    const call = requester.request({ method: 'GET', headers: {} });
    const answer = await call.answer;
    const reading = answer.read(() => call.abort());
    await expect(reading).rejects.toThrow();
    const second = await requester.request({ method: 'GET', headers: {} }).answer;
    await expect(
      second.read(() => {
        throw new Error('callback failed');
      }),
    ).rejects.toThrow('callback failed');
  });

  it('rejects a read when the connection closes before the body ends', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('partial');
      setImmediate(() => res.destroy());
    });
    requester = make(url);
    const answer = await requester.request({ method: 'GET', headers: {} }).answer;
    const pieces: string[] = [];
    await expect(answer.read((text) => pieces.push(text))).rejects.toThrow();
    expect(pieces.join('')).toBe('partial');
  });
});

/** The requesters that hold connections of their own. */
const POOLED: Array<[string, (url: URL) => HttpRequester]> = STACKS.filter(([name]) => name !== 'fetch');

describe.each(POOLED)('%s requester, its connections', (_name, make) => {
  it('drains a discarded JSON body so the next request reuses the connection, and cuts a discarded event stream', async () => {
    const url = await serve((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': open\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ignored":true}');
    });
    requester = make(url);
    (await requester.request({ method: 'POST', headers: {}, body: '{}' }).answer).discard();
    // Let the drained body end and the connection return to the agent.
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    await (await requester.request({ method: 'POST', headers: {}, body: '{}' }).answer).text();
    expect(sockets.size).toBe(1);
    const stream = await requester.request({ method: 'GET', headers: {} }).answer;
    const [streamSocket] = [...sockets].slice(-1);
    stream.discard();
    await new Promise<void>((resolve) =>
      streamSocket!.destroyed ? resolve() : streamSocket!.once('close', () => resolve()),
    );
    expect(streamSocket!.destroyed).toBe(true);
  });

  it('closes its idle keep-alive connections on close()', async () => {
    const url = await serve((_req, res) => res.writeHead(204).end());
    requester = make(url);
    await (await requester.request({ method: 'DELETE', headers: {} }).answer).text();
    const [socket] = [...sockets];
    const closed = new Promise<void>((resolve) => socket!.once('close', () => resolve()));
    requester.close();
    await closed;
    expect(socket!.destroyed).toBe(true);
  });

  it('never sends a POST again when a reused connection breaks after the server may have read it (#13)', async () => {
    let posts = 0;
    const url = await serve((req, res) => {
      if (req.method !== 'POST') return void res.writeHead(204).end();
      posts++;
      // The server read the request, then the connection is cut before any answer.
      req.socket.destroy();
    });
    requester = make(url);
    await (await requester.request({ method: 'DELETE', headers: {} }).answer).text();
    await expect(
      requester.request({ method: 'POST', headers: {}, body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}' }).answer,
    ).rejects.toThrow();
    expect(posts).toBe(1);
  });

  it('tries an idempotent request again on a fresh connection when a reused one was stale', async () => {
    let deletes = 0;
    const url = await serve((req, res) => {
      deletes++;
      if (deletes === 2) return void req.socket.destroy();
      res.writeHead(204).end();
    });
    requester = make(url);
    await (await requester.request({ method: 'DELETE', headers: {} }).answer).text();
    const second = await requester.request({ method: 'DELETE', headers: {} }).answer;
    expect(second.status).toBe(204);
    expect(deletes).toBe(3);
  });
});

describe('the default requester', () => {
  const seen: IncomingMessage['headers'][] = [];
  const answer = () =>
    serve((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  const post = async (made: HttpRequester) =>
    (await made.request({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).answer).text();
  afterEach(() => (seen.length = 0));

  it('sends the credentials of a URL that carries them (through node:http, which reads them)', async () => {
    const url = await answer();
    url.username = 'ada';
    url.password = 's%3Acret';
    requester = createDefaultRequester(url, {});
    await post(requester);
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from('ada:s:cret').toString('base64')}`);
  });

  it('sends through a given agent', async () => {
    const url = await answer();
    const agent = new Agent({ keepAlive: true });
    const made = jest.spyOn(agent, 'createConnection');
    try {
      requester = createDefaultRequester(url, { agent });
      await post(requester);
      expect(made).toHaveBeenCalledTimes(1);
    } finally {
      agent.destroy();
    }
  });

  it('sends through a given fetch, and otherwise through neither fetch nor an agent', async () => {
    const url = await answer();
    const given = jest.fn((input: string | URL | Request, init?: RequestInit) => fetch(input, init));
    requester = createDefaultRequester(url, { fetch: given });
    await post(requester);
    expect(given).toHaveBeenCalledTimes(1);
    requester.close();
    const global = jest.spyOn(globalThis, 'fetch');
    try {
      requester = createDefaultRequester(url, {});
      await post(requester);
      expect(global).not.toHaveBeenCalled();
      expect(seen).toHaveLength(2);
      expect(seen[1]?.authorization).toBeUndefined();
    } finally {
      global.mockRestore();
    }
  });
});
