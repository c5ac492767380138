import { boundEventStream } from '../../../lib/transport/framing/bounded-event-stream';
import { SseEventTooLargeError } from '../../../lib/transport/framing/sse';

const streamOf = (chunks: readonly string[]): Response => {
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    }),
    { status: 200, headers: { 'content-type': 'text/event-stream' } },
  );
};

describe('boundEventStream', () => {
  it('passes a stream of small events through unchanged, whatever the line ends', async () => {
    const text = 'data: a\n\n' + 'data: b\r\n\r\n' + 'data: c\r\r' + 'data: d\ndata: e\n\n';
    let tooLarge = 0;
    const bounded = boundEventStream(streamOf(text.match(/.{1,3}/gs) ?? []), 16, () => tooLarge++);
    expect(bounded.status).toBe(200);
    expect(bounded.headers.get('content-type')).toBe('text/event-stream');
    expect(await bounded.text()).toBe(text);
    expect(tooLarge).toBe(0);
  });

  it('errors the body once one event outgrows the bound, across chunks', async () => {
    let tooLarge = 0;
    const bounded = boundEventStream(
      streamOf(['data: ok\n\n', 'data: ', 'x'.repeat(30), 'x'.repeat(30), '\n\n']),
      50,
      () => tooLarge++,
    );
    await expect(bounded.text()).rejects.toBeInstanceOf(SseEventTooLargeError);
    expect(tooLarge).toBe(1);
  });

  it('does not take the CRLF of one line end for a blank line', async () => {
    const bounded = boundEventStream(streamOf([`data: ${'y'.repeat(20)}\r\ndata: ${'y'.repeat(20)}\r\n`]), 40, () => 0);
    await expect(bounded.text()).rejects.toBeInstanceOf(SseEventTooLargeError);
  });
});
