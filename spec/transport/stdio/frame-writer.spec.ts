import { EventEmitter } from 'node:events';
import { createFrameWriter, MAX_BATCH_CHARS, MAX_BATCH_FRAMES } from '../../../lib/transport/stdio/frame-writer';

// A stream double that records each write and answers `full` while its buffer is "over the mark".
function recordingSink(): {
  sink: EventEmitter & { write(text: string): boolean };
  writes: string[];
  full: { value: boolean };
} {
  const writes: string[] = [];
  const full = { value: false };
  const sink = Object.assign(new EventEmitter(), {
    write(text: string): boolean {
      writes.push(text);
      return !full.value;
    },
  });
  return { sink, writes, full };
}

// Resolves after the current turn's nextTick callbacks have run.
const afterTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('createFrameWriter', () => {
  it('writes the first frame of a turn at once', () => {
    const { sink, writes } = recordingSink();
    const writer = createFrameWriter(sink);
    writer.write('a\n');
    expect(writes).toEqual(['a\n']);
  });

  it('joins the frames sent after the first in one turn into one write once the turn is done', async () => {
    const { sink, writes } = recordingSink();
    const writer = createFrameWriter(sink);
    writer.write('a\n');
    writer.write('b\n');
    await Promise.resolve();
    writer.write('c\n');
    expect(writes).toEqual(['a\n']);
    await afterTurn();
    expect(writes).toEqual(['a\n', 'b\nc\n']);
    writer.write('d\n');
    expect(writes).toEqual(['a\n', 'b\nc\n', 'd\n']);
  });

  it('holds frames between hold() and release() and writes them with one call', () => {
    const { sink, writes } = recordingSink();
    const writer = createFrameWriter(sink);
    writer.hold();
    writer.write('a\n');
    writer.hold();
    writer.write('b\n');
    writer.release();
    expect(writes).toEqual([]);
    writer.write('c\n');
    writer.release();
    expect(writes).toEqual(['a\nb\nc\n']);
    writer.release();
    expect(writes).toEqual(['a\nb\nc\n']);
  });

  it('waits for drain when the stream is full and then writes what waited with one call, in order', async () => {
    const { sink, writes, full } = recordingSink();
    const writer = createFrameWriter(sink);
    full.value = true;
    writer.write('a\n');
    await afterTurn();
    writer.write('b\n');
    writer.write('c\n');
    await afterTurn();
    expect(writes).toEqual(['a\n']);
    full.value = false;
    sink.emit('drain');
    expect(writes).toEqual(['a\n', 'b\nc\n']);
    writer.write('d\n');
    expect(writes).toEqual(['a\n', 'b\nc\n', 'd\n']);
  });

  it('keeps frames held through a drain that comes during hold() until release()', () => {
    const { sink, writes, full } = recordingSink();
    const writer = createFrameWriter(sink);
    full.value = true;
    writer.write('a\n');
    writer.hold();
    writer.write('b\n');
    full.value = false;
    sink.emit('drain');
    expect(writes).toEqual(['a\n']);
    writer.release();
    expect(writes).toEqual(['a\n', 'b\n']);
  });

  it('end() hands every held frame to the stream, full or not, and stops listening for drain', () => {
    const { sink, writes, full } = recordingSink();
    const writer = createFrameWriter(sink);
    full.value = true;
    writer.write('a\n');
    writer.write('b\n');
    writer.hold();
    writer.write('c\n');
    writer.end();
    expect(writes).toEqual(['a\n', 'b\nc\n']);
    expect(sink.listenerCount('drain')).toBe(0);
    writer.write('d\n');
    writer.release();
    expect(writes).toEqual(['a\n', 'b\nc\n']);
  });

  it('discard() drops held frames, writes nothing more and stops listening for drain', async () => {
    const { sink, writes } = recordingSink();
    const writer = createFrameWriter(sink);
    writer.write('a\n');
    writer.write('b\n');
    writer.discard();
    writer.write('c\n');
    await afterTurn();
    expect(writes).toEqual(['a\n']);
    expect(sink.listenerCount('drain')).toBe(0);
  });

  // Frames `f<from>` to `f<to - 1>`, one line each.
  const frames = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `f${from + i}\n`);

  it('writes a batch as soon as it is full, then batches the rest of the turn', async () => {
    const { sink, writes } = recordingSink();
    const writer = createFrameWriter(sink);
    const sent = frames(0, MAX_BATCH_FRAMES + 4);
    for (const frame of sent) writer.write(frame);
    // The first frame at once, the next full batch at once, the rest at the end of the turn.
    expect(writes).toEqual([sent[0], sent.slice(1, MAX_BATCH_FRAMES + 1).join('')]);
    await afterTurn();
    expect(writes).toEqual([
      sent[0],
      sent.slice(1, MAX_BATCH_FRAMES + 1).join(''),
      sent.slice(MAX_BATCH_FRAMES + 1).join(''),
    ]);
  });

  it('writes a full batch during hold() too, and the rest at release()', () => {
    const { sink, writes } = recordingSink();
    const writer = createFrameWriter(sink);
    const sent = frames(0, 2 * MAX_BATCH_FRAMES + 1);
    writer.hold();
    for (const frame of sent) writer.write(frame);
    expect(writes).toEqual([
      sent.slice(0, MAX_BATCH_FRAMES).join(''),
      sent.slice(MAX_BATCH_FRAMES, 2 * MAX_BATCH_FRAMES).join(''),
    ]);
    writer.release();
    expect(writes.join('')).toBe(sent.join(''));
    expect(writes).toHaveLength(3);
  });

  it('writes a batch as soon as its characters reach the bound, however few its frames', () => {
    const { sink, writes } = recordingSink();
    const writer = createFrameWriter(sink);
    const big = `${'x'.repeat(MAX_BATCH_CHARS)}\n`;
    writer.write('a\n');
    writer.write('b\n');
    expect(writes).toEqual(['a\n']);
    writer.write(big);
    expect(writes).toEqual(['a\n', `b\n${big}`]);
  });

  it('keeps every frame waiting for drain, however many, and writes them with one call on drain', () => {
    const { sink, writes, full } = recordingSink();
    const writer = createFrameWriter(sink);
    full.value = true;
    const sent = frames(0, 3 * MAX_BATCH_FRAMES);
    for (const frame of sent) writer.write(frame);
    expect(writes).toEqual([sent[0]]);
    full.value = false;
    sink.emit('drain');
    expect(writes).toEqual([sent[0], sent.slice(1).join('')]);
  });

  it('keeps the order of frames written from inside the stream’s own write (a peer answering synchronously)', () => {
    const writes: string[] = [];
    const sink = Object.assign(new EventEmitter(), {
      write(text: string): boolean {
        writes.push(text);
        if (text === 'ping\n') {
          // The peer's answer arrives while this write is still on the stack.
          writer.hold();
          writer.write('pong-ack\n');
          writer.release();
        }
        return true;
      },
    });
    const writer = createFrameWriter(sink);
    writer.write('ping\n');
    expect(writes).toEqual(['ping\n', 'pong-ack\n']);
  });
});
