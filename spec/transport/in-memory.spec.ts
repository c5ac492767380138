import { config, firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { createHook } from 'node:async_hooks';
import pino from 'pino';
import { notification, request } from '../../lib/jsonrpc/message';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { InboundFrame } from '../../lib/transport/transport';
import { linkedPair } from '../support/linked-pair';
import { describeTransportContract, nextFrames } from './contract';

describeTransportContract(
  'in-memory pair',
  async () => {
    const { client, server } = linkedPair();
    return {
      client,
      server,
      cleanup: async () => {
        client.close();
        await firstValueFrom(server.closed$);
      },
    };
  },
  { encodes: false },
);

describeTransportContract(
  'in-memory pair without cloning',
  async () => {
    const [client, server] = createInMemoryPair();
    return { client, server, cleanup: async () => client.close() };
  },
  { encodes: false },
);

describe('createInMemoryPair', () => {
  it('never delivers on the sender’s call stack', async () => {
    const [a, b] = createInMemoryPair();
    const seen: InboundFrame[] = [];
    b.incoming$.subscribe((frame) => seen.push(frame));
    a.send(notification('x'));
    expect(seen).toEqual([]);
    await Promise.resolve();
    expect(seen).toEqual([notification('x')]);
  });

  it('delivers a message sent while another is delivered after it, in the same microtask, across pairs', async () => {
    const [client, front] = createInMemoryPair();
    const [back, upstream] = createInMemoryPair();
    const order: string[] = [];
    // A relay: what reaches `front` goes on to `upstream`, on the receiving call stack.
    front.incoming$.subscribe((frame) => {
      order.push('front');
      back.send(frame as never);
      order.push('front done');
    });
    upstream.incoming$.subscribe(() => order.push('upstream'));
    client.send(notification('x'));
    await Promise.resolve();
    expect(order).toEqual(['front', 'front done', 'upstream']);
  });

  it('keeps delivering to the other receivers when one throws, and reports the error', async () => {
    const [a, b] = createInMemoryPair();
    const [c, d] = createInMemoryPair();
    b.incoming$.subscribe(() => {
      throw new Error('receiver failed');
    });
    const seen: InboundFrame[] = [];
    d.incoming$.subscribe((frame) => seen.push(frame));
    const reported = new Promise<unknown>((resolve) => (config.onUnhandledError = resolve));
    try {
      a.send(notification('x'));
      c.send(notification('y'));
      expect(await reported).toEqual(new Error('receiver failed'));
      expect(seen).toEqual([notification('y')]);
    } finally {
      config.onUnhandledError = null;
    }
  });

  it('delivers with fake timers installed after a pair was made', async () => {
    const [a, b] = createInMemoryPair();
    jest.useFakeTimers();
    try {
      const received = nextFrames(b.incoming$, 1);
      a.send(notification('x'));
      expect(await received).toEqual([notification('x')]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('delivers without queueMicrotask, which makes an async resource per task on Node', async () => {
    const made: string[] = [];
    const hook = createHook({ init: (_id, type) => void made.push(type) }).enable();
    try {
      const [a, b] = createInMemoryPair();
      const received = nextFrames(b.incoming$, 3);
      for (const n of [1, 2, 3]) {
        a.send(notification('x', { n }));
        await Promise.resolve();
      }
      expect(await received).toHaveLength(3);
    } finally {
      hook.disable();
    }
    expect(made).not.toContain('Microtask');
  });

  it('delivers the object that was sent, or a copy with clone: true', async () => {
    const message = request(1, 'm', { nested: { n: 1 } });
    const [a, b] = createInMemoryPair();
    const received = nextFrames(b.incoming$, 1);
    a.send(message);
    expect((await received)[0]).toBe(message);

    const [c, d] = createInMemoryPair({ clone: true });
    const cloned = nextFrames(d.incoming$, 1);
    c.send(message);
    message.params = { nested: { n: 2 } };
    const [copy] = await cloned;
    expect(copy).not.toBe(message);
    expect(copy).toEqual(request(1, 'm', { nested: { n: 1 } }));
  });

  it('delivers messages sent before close, then completes', async () => {
    const [a, b] = createInMemoryPair();
    const all = lastValueFrom(b.incoming$.pipe(toArray()));
    a.send(notification('1'));
    a.send(notification('2'));
    a.close('done here');
    expect(await all).toEqual([notification('1'), notification('2')]);
    expect(await firstValueFrom(a.closed$)).toEqual({ reason: 'done here' });
    expect(await firstValueFrom(b.closed$)).toEqual({ reason: 'peer closed' });
  });

  it('hands buffered frames to a later subscriber when the first one left', async () => {
    const [a, b] = createInMemoryPair();
    const first = nextFrames(b.incoming$, 1);
    a.send(notification('1'));
    expect(await first).toEqual([notification('1')]);
    a.send(notification('2'));
    a.send(notification('3'));
    await Promise.resolve();
    expect(await nextFrames(b.incoming$, 2)).toEqual([notification('2'), notification('3')]);
  });

  it('delivers to every current subscriber', async () => {
    const [a, b] = createInMemoryPair();
    const first = nextFrames(b.incoming$, 1);
    const second = nextFrames(b.incoming$, 1);
    a.send(notification('both'));
    expect(await first).toEqual([notification('both')]);
    expect(await second).toEqual([notification('both')]);
  });

  it('logs messages at trace and the close at info', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const [a, b] = createInMemoryPair({ logger });
    a.send(notification('logged'));
    a.close();
    await firstValueFrom(b.closed$);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'message out', side: 'a', transport: 'in-memory' }));
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'transport closed', side: 'b', reason: 'peer closed' }),
    );
  });
});
