import { MessageEncodingError } from '../../../lib/jsonrpc/errors';
import { from, lastValueFrom, toArray } from 'rxjs';
import { createNdjsonDecoder, decodeNdjson, encodeFrame, parseFrame } from '../../../lib/transport/framing/ndjson';
import type { NdjsonDecoderOptions } from '../../../lib/transport/framing/ndjson';
import { MalformedFrame } from '../../../lib/transport/transport';
import type { InboundFrame } from '../../../lib/transport/transport';

function decodeChunks(chunks: readonly (Buffer | string)[], options?: NdjsonDecoderOptions): InboundFrame[] {
  const decoder = createNdjsonDecoder(options);
  const frames: InboundFrame[] = [];
  const emit = (frame: InboundFrame): void => {
    frames.push(frame);
  };
  for (const chunk of chunks) decoder.push(chunk, emit);
  decoder.end(emit);
  return frames;
}

function splitEvery(buffer: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += size) chunks.push(buffer.subarray(i, i + size));
  return chunks;
}

const unicode = { jsonrpc: '2.0', id: 1, method: 'echo', params: { text: 'héllo 🎉 世界 👩‍👩‍👧 ∑ 𝄞' } };

describe('createNdjsonDecoder', () => {
  it('decodes a message split at every byte position, multi-byte characters included', () => {
    const bytes = Buffer.from(encodeFrame(unicode) + encodeFrame({ after: true }), 'utf8');
    for (let cut = 0; cut <= bytes.length; cut++) {
      const frames = decodeChunks([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(frames).toEqual([unicode, { after: true }]);
    }
  });

  it('decodes a message fed one byte at a time', () => {
    const bytes = Buffer.from(encodeFrame(unicode), 'utf8');
    expect(decodeChunks(splitEvery(bytes, 1))).toEqual([unicode]);
  });

  it('decodes several messages in one chunk, in order', () => {
    const messages = Array.from({ length: 50 }, (_, i) => ({ jsonrpc: '2.0', method: 'n', params: { i } }));
    expect(decodeChunks([messages.map(encodeFrame).join('')])).toEqual(messages);
  });

  it('decodes messages spread over chunks that each end mid-message', () => {
    const messages = Array.from({ length: 20 }, (_, i) => ({ i, text: '世界'.repeat(i) }));
    const bytes = Buffer.from(messages.map(encodeFrame).join(''), 'utf8');
    expect(decodeChunks(splitEvery(bytes, 7))).toEqual(messages);
  });

  it('decodes a 5 MB message fed in 64 KiB chunks', () => {
    const big = { jsonrpc: '2.0', id: 7, result: { data: 'x🎉'.repeat(1_000_000) } };
    const bytes = Buffer.from(encodeFrame(big) + encodeFrame({ next: 1 }), 'utf8');
    expect(bytes.length).toBeGreaterThan(5_000_000);
    const frames = decodeChunks(splitEvery(bytes, 64 * 1024));
    expect(frames).toHaveLength(2);
    expect(frames[0]).toEqual(big);
    expect(frames[1]).toEqual({ next: 1 });
  });

  it('accepts CRLF line endings', () => {
    expect(decodeChunks(['{"a":1}\r\n{"b":2}\r', '\n', '{"c":3}\r\n'])).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('skips empty and whitespace-only lines', () => {
    expect(decodeChunks(['\n\n{"a":1}\n\r\n   \n', '\n', '\t\n{"b":2}\n\n'])).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('turns a line that is not JSON into a MalformedFrame and goes on with the next lines', () => {
    const frames = decodeChunks(['{"a":1}\nnot json\n{"b":', '2}\n{"unterminated": \n[1,2]\n']);
    expect(frames).toHaveLength(5);
    expect(frames[0]).toEqual({ a: 1 });
    expect(frames[1]).toBeInstanceOf(MalformedFrame);
    expect((frames[1] as MalformedFrame).text).toBe('not json');
    expect((frames[1] as MalformedFrame).reason).toMatch(/JSON/);
    expect(frames[2]).toEqual({ b: 2 });
    expect(frames[3]).toBeInstanceOf(MalformedFrame);
    expect(frames[4]).toEqual([1, 2]);
  });

  it('cuts the text of a MalformedFrame to a length fit for logs', () => {
    const [frame] = decodeChunks(['x'.repeat(10_000) + '\n']);
    expect(frame).toBeInstanceOf(MalformedFrame);
    expect((frame as MalformedFrame).text.length).toBeLessThanOrEqual(256);
  });

  it('emits values that are not objects as they are (the connection classifies them)', () => {
    expect(decodeChunks(['1\n"s"\nnull\n[]\n'])).toEqual([1, 's', null, []]);
  });

  it('decodes a last line without a newline when the input ends', () => {
    const decoder = createNdjsonDecoder();
    const frames: InboundFrame[] = [];
    decoder.push('{"a":1}\n{"b":', (f) => frames.push(f));
    decoder.push('2}', (f) => frames.push(f));
    expect(frames).toEqual([{ a: 1 }]);
    expect(decoder.bufferedBytes).toBe(7);
    decoder.end((f) => frames.push(f));
    expect(frames).toEqual([{ a: 1 }, { b: 2 }]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('accepts Uint8Array chunks that are not Buffers', () => {
    const bytes = new TextEncoder().encode(encodeFrame(unicode));
    expect(decodeChunks([Buffer.from(bytes.subarray(0, 20)), Buffer.from(bytes.subarray(20))])).toEqual([unicode]);
    const decoder = createNdjsonDecoder();
    const frames: InboundFrame[] = [];
    decoder.push(bytes, (f) => frames.push(f));
    expect(frames).toEqual([unicode]);
  });

  describe('maxLineBytes', () => {
    it('reports a line longer than the limit once, drops it, and goes on', () => {
      const long = JSON.stringify({ data: 'y'.repeat(200) });
      const bytes = Buffer.from(`{"a":1}\n${long}\n{"b":2}\n`, 'utf8');
      for (const size of [1, 16, 64, bytes.length]) {
        const frames = decodeChunks(splitEvery(bytes, size), { maxLineBytes: 100 });
        expect(frames).toHaveLength(3);
        expect(frames[0]).toEqual({ a: 1 });
        expect(frames[1]).toBeInstanceOf(MalformedFrame);
        expect((frames[1] as MalformedFrame).reason).toMatch(/exceeds the limit of 100 bytes/);
        expect((frames[1] as MalformedFrame).text.startsWith('{"data":"yyy')).toBe(true);
        expect(frames[2]).toEqual({ b: 2 });
      }
    });

    it('holds no more than the limit while the long line keeps coming', () => {
      const decoder = createNdjsonDecoder({ maxLineBytes: 1024 });
      const frames: InboundFrame[] = [];
      for (let i = 0; i < 100; i++) {
        decoder.push(Buffer.alloc(512, 0x61), (f) => frames.push(f));
        expect(decoder.bufferedBytes).toBeLessThanOrEqual(1024);
      }
      decoder.push('\n{"ok":true}\n', (f) => frames.push(f));
      expect(frames).toHaveLength(2);
      expect(frames[0]).toBeInstanceOf(MalformedFrame);
      expect(frames[1]).toEqual({ ok: true });
    });

    it('counts bytes, not characters, and not the line ending', () => {
      const line = JSON.stringify('€'.repeat(30)); // 92 bytes, 32 characters
      expect(decodeChunks([line + '\r\n'], { maxLineBytes: 92 })).toEqual(['€'.repeat(30)]);
      expect(decodeChunks([line + '\n'], { maxLineBytes: 91 })[0]).toBeInstanceOf(MalformedFrame);
    });
  });
});

describe('encodeFrame', () => {
  it('writes JSON followed by one newline, with newlines in strings escaped', () => {
    const frame = encodeFrame({ text: 'line 1\nline 2\r\n', sep: '\u2028' });
    expect(frame.endsWith('\n')).toBe(true);
    expect(frame.indexOf('\n')).toBe(frame.length - 1);
    expect(decodeChunks([frame])).toEqual([{ text: 'line 1\nline 2\r\n', sep: '\u2028' }]);
  });

  it('encodes a batch as one line holding an array', () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'a' },
      { jsonrpc: '2.0', method: 'b' },
    ];
    expect(decodeChunks([encodeFrame(batch)])).toEqual([batch]);
  });

  it('throws a MessageEncodingError for a value JSON cannot hold, saying why', () => {
    expect(() => encodeFrame(undefined)).toThrow(MessageEncodingError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => encodeFrame(cycle)).toThrow(MessageEncodingError);
    expect(() => encodeFrame({ n: BigInt(1) })).toThrow(/could not be encoded as JSON: .*BigInt/);
    // Deeper than JSON.stringify can follow: what a peer's nested params passed on can be.
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown;
    expect(() => encodeFrame({ params: deep })).toThrow(
      'The message could not be encoded as JSON: it is nested too deeply',
    );
    // A RangeError that is not the stack's (a string past the engine's length) is not called deep.
    jest.spyOn(JSON, 'stringify').mockImplementationOnce(() => {
      throw new RangeError('Invalid string length');
    });
    expect(() => encodeFrame({ huge: true })).toThrow(
      'The message could not be encoded as JSON: Invalid string length',
    );
  });
});

describe('parseFrame', () => {
  it('parses JSON, reports what is not, and skips blank text', () => {
    expect(parseFrame('{"a":1}')).toEqual({ a: 1 });
    expect(parseFrame('{')).toBeInstanceOf(MalformedFrame);
    expect(parseFrame('  ')).toBeUndefined();
  });
});

describe('decodeNdjson', () => {
  it('decodes a stream of chunks, flushing the last line on completion', async () => {
    const frames = await lastValueFrom(from(['{"a":', '1}\n{"b":2}']).pipe(decodeNdjson(), toArray()));
    expect(frames).toEqual([{ a: 1 }, { b: 2 }]);
  });
});
