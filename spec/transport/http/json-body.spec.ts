import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { endJson, utf8Length } from '../../../lib/transport/http/http-exchange';

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
