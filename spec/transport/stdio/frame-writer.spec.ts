import { EventEmitter } from 'node:events';
import { createFrameWriter } from '../../../lib/transport/stdio/frame-writer';

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
