import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter } from 'node:events';
import { utf8Length } from '../../../lib/base/text';
import { endJson } from '../../../lib/transport/http/http-exchange';
import type { HttpRequestLike, HttpResponseLike } from '../../../lib/transport/http/http-exchange';
import { DRAIN_MAX_BYTES, DRAIN_MAX_MS, readJsonBodyWith } from '../../../lib/transport/http/http-guards';

describe('utf8Length', () => {
  it.each([
    ['', 0],
    ['plain ascii', 11],
    ['é', 2],
    ['€', 3],
    ['😀', 4],
    ['a😀b€c', 10],
    // A lone surrogate is encoded as U+FFFD: three bytes.
    ['\ud800', 3],
    ['x\udc00y', 5],
    ['\ud800\ud800', 6],
  ])('counts %j as %i bytes, as Buffer.byteLength does', (text, bytes) => {
    expect(utf8Length(text)).toBe(bytes);
    expect(Buffer.byteLength(text)).toBe(bytes);
  });

  it('agrees with Buffer.byteLength on random text across the planes', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let n = 0; n < 200; n++) {
      let text = '';
      for (let i = 0; i < 40; i++) {
        const pick = random();
        text +=
          pick < 0.4
            ? String.fromCharCode(32 + Math.floor(random() * 90))
            : pick < 0.7
              ? String.fromCharCode(0x80 + Math.floor(random() * 0xf000))
              : String.fromCodePoint(0x10000 + Math.floor(random() * 0xfffff));
      }
      expect(utf8Length(text)).toBe(Buffer.byteLength(text));
    }
  });
});

describe('endJson', () => {
  it('answers with a content-length, so the body is not chunked', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'héllo 😀' } });
    const server = createServer((_req, res) => endJson(res, 200, body, { 'mcp-session-id': 's1' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await new Promise<{ headers: Record<string, unknown>; text: string }>((resolve, reject) => {
        request({ host: '127.0.0.1', port, method: 'POST' }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ headers: res.headers, text }));
        })
          .on('error', reject)
          .end();
      });
      expect(answer.text).toBe(body);
      expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(body)));
      expect(answer.headers['transfer-encoding']).toBeUndefined();
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.headers['mcp-session-id']).toBe('s1');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a body past the limit is drained, within bounds, before the connection closes', () => {
  /** A request still being received: the test feeds its body. */
  const pending = (declared: number) => {
    const req = new EventEmitter() as EventEmitter & HttpRequestLike;
    Object.assign(req, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(declared) },
      socket: { localAddress: '127.0.0.1' },
      readableEnded: false,
      resume: () => req,
    });
    return req;
  };
  /** A response that records its head and whether it ended. */
  const recorder = () => {
    const seen = { status: 0, headers: {} as Record<string, string | number>, body: '', ended: false };
    const res = {
      headersSent: false,
      writableEnded: false,
      writableFinished: false,
      writableLength: 0,
      setHeader: () => res,
      writeHead(status: number, headers: Record<string, string | number> = {}) {
        seen.status = status;
        seen.headers = headers;
        res.headersSent = true;
        return res;
      },
      write(chunk: string) {
        seen.body += chunk;
        return true;
      },
      end(chunk?: string) {
        if (chunk) seen.body += chunk;
        seen.ended = res.writableEnded = true;
        return res;
      },
      flushHeaders: () => undefined,
      destroy: () => undefined,
      on: () => res,
    };
    return { res: res as unknown as HttpResponseLike, seen };
  };

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('answers 413 with connection: close at once, and ends only when the body has ended', () => {
    const req = pending(1_000_000);
    const { res, seen } = recorder();
    const done = jest.fn();
    readJsonBodyWith(req, res, undefined, 1024, done);
    expect(done).toHaveBeenCalledWith({ ok: false });
    expect(seen.status).toBe(413);
    expect(seen.headers.connection).toBe('close');
    expect(JSON.parse(seen.body)).toMatchObject({ error: { data: { maxBodyBytes: 1024 } } });
    req.emit('data', new Uint8Array(500_000));
    expect(seen.ended).toBe(false);
    req.emit('end');
    expect(seen.ended).toBe(true);
  });

  it(`stops draining after ${DRAIN_MAX_BYTES} bytes`, () => {
    const req = pending(1e12);
    const { res, seen } = recorder();
    readJsonBodyWith(req, res, undefined, 1024, () => undefined);
    const chunk = new Uint8Array(1024 * 1024);
    for (let read = 0; read < DRAIN_MAX_BYTES; read += chunk.byteLength) req.emit('data', chunk);
    expect(seen.ended).toBe(false);
    req.emit('data', chunk);
    expect(seen.ended).toBe(true);
  });

  it(`stops draining after ${DRAIN_MAX_MS} ms`, () => {
    const req = pending(1e12);
    const { res, seen } = recorder();
    readJsonBodyWith(req, res, undefined, 1024, () => undefined);
    jest.advanceTimersByTime(DRAIN_MAX_MS - 1);
    expect(seen.ended).toBe(false);
    jest.advanceTimersByTime(1);
    expect(seen.ended).toBe(true);
  });
});
