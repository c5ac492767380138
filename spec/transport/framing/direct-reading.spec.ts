import { firstValueFrom, Subject } from 'rxjs';
import { createConnection } from '../../../lib/connection/create-connection';
import { CloseSignal } from '../../../lib/transport/framing/close-signal';
import { isDirectlyReadable, readDirectly } from '../../../lib/transport/framing/direct-reading';
import type { DirectValueReader } from '../../../lib/transport/framing/direct-reading';
import { createFrameInbox } from '../../../lib/transport/framing/frame-inbox';
import { createInMemoryPair } from '../../../lib/transport/in-memory/in-memory-transport';
import type { InboundFrame, Transport, TransportClose } from '../../../lib/transport/transport';

/** A reader that records what it is handed, and may stop itself after `stopAfter` values. */
function recorder<T>(stopAfter = Infinity, stop?: () => void) {
  const seen: (T | 'complete')[] = [];
  const reader: DirectValueReader<T> = {
    next: (value) => {
      seen.push(value);
      if (seen.length === stopAfter) stop?.();
    },
    complete: () => void seen.push('complete'),
  };
  return { seen, reader };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('reading an inbox directly', () => {
  it('hands the reader what was held, then what comes, and completes it', () => {
    const inbox = createFrameInbox<number>();
    inbox.push(1);
    inbox.push(2);
    const { seen, reader } = recorder<number>();
    expect(isDirectlyReadable(inbox.values$)).toBe(true);
    (inbox.values$ as never as { [readDirectly](r: unknown): void })[readDirectly](reader);
    inbox.push(3);
    inbox.complete();
    inbox.push(4);
    expect(seen).toEqual([1, 2, 3, 'complete']);
  });

  it('gives each value to the reader and to subscribers alike', () => {
    const inbox = createFrameInbox<number>();
    const { seen, reader } = recorder<number>();
    const subscribed: number[] = [];
    inbox.values$.subscribe((value) => subscribed.push(value));
    (inbox.values$ as never as { [readDirectly](r: unknown): void })[readDirectly](reader);
    inbox.push(1);
    expect(seen).toEqual([1]);
    expect(subscribed).toEqual([1]);
  });

  it('holds values again once the reader stops, for whoever reads next', () => {
    const inbox = createFrameInbox<number>();
    const source = inbox.values$ as never as { [readDirectly](r: unknown): void };
    const first = recorder<number>();
    source[readDirectly](first.reader);
    inbox.push(1);
    source[readDirectly](undefined);
    inbox.push(2);
    inbox.push(3);
    const second = recorder<number>();
    source[readDirectly](second.reader);
    expect(first.seen).toEqual([1]);
    expect(second.seen).toEqual([2, 3]);
  });

  it('keeps what a reader that stops while being handed held values did not take', () => {
    const inbox = createFrameInbox<number>();
    const source = inbox.values$ as never as { [readDirectly](r: unknown): void };
    for (const value of [1, 2, 3]) inbox.push(value);
    const first = recorder<number>(1, () => source[readDirectly](undefined));
    source[readDirectly](first.reader);
    const later: number[] = [];
    inbox.values$.subscribe((value) => later.push(value));
    expect(first.seen).toEqual([1]);
    expect(later).toEqual([2, 3]);
  });

  it('completes a reader that comes after the end, once held values are handed over', () => {
    const inbox = createFrameInbox<number>();
    inbox.push(1);
    inbox.complete();
    const { seen, reader } = recorder<number>();
    (inbox.values$ as never as { [readDirectly](r: unknown): void })[readDirectly](reader);
    expect(seen).toEqual([1, 'complete']);
  });
});

describe('reading a close signal directly', () => {
  it('tells the reader once, and tells one that comes later at once', () => {
    const signal = new CloseSignal<string>();
    const told: string[] = [];
    signal[readDirectly]({ closedWith: (value) => told.push(`first ${value}`) });
    signal.emit('bye');
    signal.emit('again');
    signal[readDirectly]({ closedWith: (value) => told.push(`late ${value}`) });
    expect(told).toEqual(['first bye', 'late bye']);
  });

  it('does not tell a reader that stopped', () => {
    const signal = new CloseSignal<string>();
    const told: string[] = [];
    signal[readDirectly]({ closedWith: (value) => told.push(value) });
    signal[readDirectly](undefined);
    signal.emit('bye');
    expect(told).toEqual([]);
  });
});

describe('a connection reading its transport', () => {
  it('answers over an in-memory transport, which it reads directly', async () => {
    const [ours, theirs] = createInMemoryPair();
    const connection = createConnection({ transport: ours, role: 'server', info: { name: 's', version: '1' } });
    const theirFrames: InboundFrame[] = [];
    theirs.incoming$.subscribe((frame) => theirFrames.push(frame));
    theirs.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await tick();
    // Answered before initialize: ping is allowed at any time.
    expect(theirFrames).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    connection.close();
    await tick();
    expect(connection.state).toBe('shutdown');
  });

  it('subscribes to a transport whose streams cannot be read directly', async () => {
    const incoming = new Subject<InboundFrame>();
    const closed = new Subject<TransportClose>();
    const sent: unknown[] = [];
    const transport: Transport = {
      incoming$: incoming,
      closed$: closed,
      send: (message) => void sent.push(message),
      close: () => undefined,
    };
    const connection = createConnection({ transport, role: 'server', info: { name: 's', version: '1' } });
    incoming.next({ jsonrpc: '2.0', id: 7, method: 'ping' });
    await tick();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 7, result: {} }]);
    const reason = firstValueFrom(connection.closed$);
    closed.next({ reason: 'gone' });
    expect(connection.state).toBe('shutdown');
    expect((await reason).reason).toBe('gone');
    expect(incoming.observed).toBe(false);
    expect(closed.observed).toBe(false);
  });

  it('closes with the reason the in-memory transport gives', async () => {
    const [ours, theirs] = createInMemoryPair();
    const connection = createConnection({ transport: ours, role: 'server', info: { name: 's', version: '1' } });
    const reason = firstValueFrom(connection.closed$);
    theirs.close('peer left');
    expect((await reason).reason).toBe('peer closed');
    expect(connection.state).toBe('shutdown');
  });
});
