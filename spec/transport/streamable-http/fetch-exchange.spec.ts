import { FetchRequest, FetchResponse } from '../../../lib/transport/http-server/fetch-exchange';

const readAll = async (request: FetchRequest): Promise<{ text: string; events: string[] }> => {
  const events: string[] = [];
  const chunks: Uint8Array[] = [];
  await new Promise<void>((resolve) => {
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => events.push('end'));
    request.on('error', () => events.push('error'));
    request.on('close', () => {
      events.push('close');
      resolve();
    });
  });
  return { text: Buffer.concat(chunks).toString('utf8'), events };
};

describe('FetchRequest', () => {
  it('reads a web Request as Node’s request: lower-cased headers, Host from the URL, the body as events', async () => {
    const request = new FetchRequest(
      new Request('http://mcp.example.com:8080/mcp', { method: 'POST', headers: { 'X-Test': 'a' }, body: '{"a":1}' }),
      '127.0.0.1',
    );
    expect(request.method).toBe('POST');
    expect(request.headers['x-test']).toBe('a');
    expect(request.headers.host).toBe('mcp.example.com:8080');
    expect(request.socket.localAddress).toBe('127.0.0.1');
    expect(request.readableEnded).toBe(false);
    expect(await readAll(request)).toEqual({ text: '{"a":1}', events: ['end', 'close'] });
    expect(request.readableEnded).toBe(true);
  });

  it('says the body was read when something used it before the handler', async () => {
    const web = new Request('http://localhost/mcp', { method: 'POST', body: '{}' });
    await web.json();
    expect(new FetchRequest(web, undefined).readableEnded).toBe(true);
  });
});

describe('FetchResponse', () => {
  it('answers a response ended before any write with one body, without hop-by-hop headers', async () => {
    const res = new FetchResponse(undefined);
    res.writeHead(400, { 'content-type': 'application/json', connection: 'keep-alive' }).end('{"x":1}');
    const response = await res.response;
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('connection')).toBeNull();
    expect(await response.text()).toBe('{"x":1}');
  });

  it('streams writes as they are made, and counts what the reader has not taken', async () => {
    const res = new FetchResponse(undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    const response = await res.response;
    res.write('data: 1\n\n');
    expect(res.writableLength).toBe(9);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n');
    expect(res.writableLength).toBe(0);
    res.end('data: 2\n\n');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 2\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('closes as a dropped connection when the reader cancels the stream or the signal aborts', async () => {
    const abort = new AbortController();
    for (const drop of ['cancel', 'abort'] as const) {
      const res = new FetchResponse(abort.signal);
      const closed = new Promise<boolean>((resolve) => res.on('close', () => resolve(res.writableFinished)));
      res.writeHead(200).flushHeaders();
      const response = await res.response;
      if (drop === 'cancel') await response.body!.cancel();
      else abort.abort();
      expect(await closed).toBe(false);
      expect(res.write('late')).toBe(false);
    }
  });

  it('closes as a finished response after end', async () => {
    const res = new FetchResponse(undefined);
    const closed = new Promise<boolean>((resolve) => res.on('close', () => resolve(res.writableFinished)));
    res.writeHead(202).end();
    expect((await res.response).status).toBe(202);
    expect(await closed).toBe(true);
  });
});
