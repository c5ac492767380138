import { endsOnWholeCharacter, Utf8Chunks } from '../../../lib/transport/http-client/utf8-chunks';

// The text a streaming TextDecoder makes of the same chunks: what Utf8Chunks must give.
function decoded(chunks: readonly Buffer[]): string {
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

function read(chunks: readonly Buffer[]): string {
  const utf8 = new Utf8Chunks();
  return chunks.map((chunk) => utf8.text(chunk)).join('') + utf8.end();
}

// Every way of cutting `bytes` in two, and in three at every pair of points.
function* cuts(bytes: Buffer): Generator<Buffer[]> {
  for (let i = 0; i <= bytes.length; i++) {
    yield [bytes.subarray(0, i), bytes.subarray(i)];
    for (let j = i; j <= bytes.length; j++) yield [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)];
  }
}

describe('Utf8Chunks', () => {
  const text = '{"text":"é – 中文 🙂 ok"}';

  it('gives what a streaming TextDecoder gives, wherever the chunks are cut', () => {
    const bytes = Buffer.from(text, 'utf8');
    let tried = 0;
    for (const chunks of cuts(bytes)) {
      expect(read(chunks)).toBe(text);
      tried++;
    }
    expect(tried).toBeGreaterThan(500);
  });

  it('drops a byte order mark at the start of the body, as the decoder does, and keeps one later on', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const body = Buffer.concat([bom, Buffer.from(text, 'utf8')]);
    for (const chunks of cuts(body)) expect(read(chunks)).toBe(decoded(chunks));
    expect(read([body])).toBe(text);
    expect(read([Buffer.from('a'), bom])).toBe('a\ufeff');
  });

  it('reads malformed bytes as the decoder does: a character cut off at the end, a stray continuation byte', () => {
    const cutOff = Buffer.from('ok 🙂', 'utf8').subarray(0, -1);
    expect(read([cutOff])).toBe(decoded([cutOff]));
    expect(read([cutOff])).toBe('ok \ufffd');
    const stray = Buffer.from([0x61, 0x80, 0x62, 0x80]);
    expect(read([stray])).toBe(decoded([stray]));
    const overlong = Buffer.from([0x61, 0xf8, 0x80, 0x80]);
    expect(read([overlong])).toBe(decoded([overlong]));
  });

  it('reads any bytes, well-formed or not, cut anywhere, as the decoder does', () => {
    // Lead bytes of every length, stray and overlong ones, continuation bytes and ASCII; a fixed seed.
    const bytes = [0x61, 0x80, 0x8f, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xf8, 0xff];
    let seed = 7;
    const next = (below: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % below;
    };
    for (let n = 0; n < 20_000; n++) {
      const body = Buffer.from(Array.from({ length: 1 + next(8) }, () => bytes[next(bytes.length)] as number));
      const cut = next(body.length + 1);
      const chunks = [body.subarray(0, cut), body.subarray(cut)];
      expect(read(chunks)).toBe(decoded(chunks));
    }
  });
});

describe('endsOnWholeCharacter', () => {
  it('tells a chunk that ends on a whole character from one that ends inside one', () => {
    expect(endsOnWholeCharacter(Buffer.alloc(0))).toBe(true);
    expect(endsOnWholeCharacter(Buffer.from('abc'))).toBe(true);
    for (const character of ['é', '中', '🙂']) {
      const bytes = Buffer.from(`a${character}`, 'utf8');
      expect(endsOnWholeCharacter(bytes)).toBe(true);
      for (let cut = 2; cut < bytes.length; cut++) expect(endsOnWholeCharacter(bytes.subarray(0, cut))).toBe(false);
    }
    expect(endsOnWholeCharacter(Buffer.from([0x61, 0x80]))).toBe(false);
    expect(endsOnWholeCharacter(Buffer.from([0x80, 0x80, 0x80, 0x80]))).toBe(false);
  });
});
