import { createSseParser, encodeSseEvent, SseEventTooLargeError } from '../../../lib/transport/framing/sse';
import type { SseEvent } from '../../../lib/transport/framing/sse';

function parseAll(chunks: readonly string[]): { events: SseEvent[]; lastEventId?: string; retryMs?: number } {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return { events, lastEventId: parser.lastEventId, retryMs: parser.retryMs };
}

describe('encodeSseEvent', () => {
  it('writes id, event, retry and data fields, ended by a blank line', () => {
    expect(encodeSseEvent({ id: 's1_3', event: 'message', retry: 500, data: '{"a":1}' })).toBe(
      'id: s1_3\nevent: message\nretry: 500\ndata: {"a":1}\n\n',
    );
  });

  it('splits multi-line data into several data lines, whatever the line end', () => {
    expect(encodeSseEvent({ data: 'a\nb\r\nc\rd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
  });

  it('writes a priming event as an id with an empty data line', () => {
    expect(encodeSseEvent({ id: 'p', retry: 1000, data: '' })).toBe('id: p\nretry: 1000\ndata: \n\n');
  });

  it('refuses ids and names the format cannot carry, and bad retry values', () => {
    expect(() => encodeSseEvent({ id: 'a\nb' })).toThrow(RangeError);
    expect(() => encodeSseEvent({ id: 'a\0b' })).toThrow(RangeError);
    expect(() => encodeSseEvent({ event: 'x\ry' })).toThrow(RangeError);
    expect(() => encodeSseEvent({ retry: -1 })).toThrow(RangeError);
    expect(() => encodeSseEvent({ retry: 1.5 })).toThrow(RangeError);
  });

  it('round-trips through the parser', () => {
    const text = encodeSseEvent({ id: '7', event: 'endpoint', data: '/messages?sessionId=abc\nsecond line' });
    expect(parseAll([text]).events).toEqual([
      { id: '7', event: 'endpoint', data: '/messages?sessionId=abc\nsecond line' },
    ]);
  });
});

describe('createSseParser', () => {
  it('parses events split across chunks at any position', () => {
    const text = 'id: 1\ndata: {"jsonrpc":"2.0"}\n\nevent: endpoint\ndata: /m?x=1\n\n';
    const whole = parseAll([text]).events;
    expect(whole).toEqual([
      { id: '1', data: '{"jsonrpc":"2.0"}' },
      { event: 'endpoint', data: '/m?x=1' },
    ]);
    for (let cut = 1; cut < text.length; cut++) {
      expect(parseAll([text.slice(0, cut), text.slice(cut)]).events).toEqual(whole);
    }
    expect(parseAll(text.split('')).events).toEqual(whole);
  });

  it('accepts LF, CR and CRLF line ends, including a CRLF split between chunks', () => {
    expect(parseAll(['data: a\r\n\r\ndata: b\r\rdata: c\n\n']).events.map((e) => e.data)).toEqual(['a', 'b', 'c']);
    expect(parseAll(['data: a\r', '\n\r', '\n']).events).toEqual([{ data: 'a' }]);
  });

  it('joins several data lines with a newline and strips one leading space only', () => {
    expect(parseAll(['data:  two spaces\ndata:none\ndata\n\n']).events).toEqual([{ data: ' two spaces\nnone\n' }]);
  });

  it('ignores comments, unknown fields and a leading BOM', () => {
    expect(parseAll(['\ufeff: keep-alive\nfoo: bar\ndata: x\n\n']).events).toEqual([{ data: 'x' }]);
  });

  it('dispatches an event with empty data (priming) and records its id and retry', () => {
    const { events, lastEventId, retryMs } = parseAll(['id: prime-1\nretry: 500\ndata: \n\n']);
    expect(events).toEqual([{ id: 'prime-1', retry: 500, data: '' }]);
    expect(lastEventId).toBe('prime-1');
    expect(retryMs).toBe(500);
  });

  it('records id and retry of an event that has no data line without dispatching it', () => {
    const { events, lastEventId, retryMs } = parseAll(['id: event-3\nretry: 750\n\n']);
    expect(events).toEqual([]);
    expect(lastEventId).toBe('event-3');
    expect(retryMs).toBe(750);
  });

  it('ignores a retry that is not all digits and an id containing NUL', () => {
    const { events, lastEventId, retryMs } = parseAll(['retry: 5s\nid: a\0b\ndata: x\n\n']);
    expect(events).toEqual([{ data: 'x' }]);
    expect(lastEventId).toBeUndefined();
    expect(retryMs).toBeUndefined();
  });

  it('drops an event cut off before its blank line', () => {
    const events: SseEvent[] = [];
    const parser = createSseParser((event) => events.push(event));
    parser.push('data: complete\n\ndata: {"half":');
    parser.end();
    expect(events).toEqual([{ data: 'complete' }]);
  });

  it('keeps the last event id across events that do not set one', () => {
    const { events, lastEventId } = parseAll(['id: 5\ndata: a\n\ndata: b\n\n']);
    expect(events).toEqual([{ id: '5', data: 'a' }, { data: 'b' }]);
    expect(lastEventId).toBe('5');
  });

  it('moves the last event id only when its event completes, not for an event cut short', () => {
    const events: SseEvent[] = [];
    const parser = createSseParser((event) => events.push(event));
    parser.push('id: 1\ndata: a\n\nid: 2\n');
    expect(parser.lastEventId).toBe('1');
    parser.push('data: {"half":');
    parser.end();
    expect(events).toEqual([{ id: '1', data: 'a' }]);
    expect(parser.lastEventId).toBe('1');
  });

  describe('maxEventLength', () => {
    it('delivers an event of exactly the bound, over many data lines and chunks', () => {
      const events: SseEvent[] = [];
      const parser = createSseParser((event) => events.push(event), { maxEventLength: 9 });
      parser.push('data: abcd\nda');
      parser.push('ta: efgh\n\ndata: x\n\n');
      expect(events).toEqual([{ data: 'abcd\nefgh' }, { data: 'x' }]);
    });

    it('throws once the data lines of one event pass the bound', () => {
      const parser = createSseParser(() => undefined, { maxEventLength: 9 });
      expect(() => parser.push('data: abcd\ndata: efghi\n')).toThrow(SseEventTooLargeError);
    });

    it('throws for one unfinished line that grows past the bound, without waiting for its end', () => {
      const parser = createSseParser(() => undefined, { maxEventLength: 1000 });
      parser.push('data: ');
      expect(() => {
        for (let i = 0; i < 20; i++) parser.push('y'.repeat(100));
      }).toThrow(/exceeded 1000 characters/);
    });

    it('counts each event on its own: many events under the bound pass', () => {
      const events: SseEvent[] = [];
      const parser = createSseParser((event) => events.push(event), { maxEventLength: 20 });
      for (let i = 0; i < 100; i++) parser.push(`data: ${'z'.repeat(15)}\n\n`);
      expect(events).toHaveLength(100);
    });
  });
});
