import { interval, map, Observable } from 'rxjs';
import { createServer } from '../../lib/server/server';
import type { ServerSession } from '../../lib/server/server-context';
import { flush, serve } from './harness';

// Many clients that connect, start work and go away must leave nothing behind: no session, no
// handler in flight, no request awaiting an answer, no timer, no resource watch.
describe('server sessions under churn', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('[leaks] 500 sessions that connect, start calls and disconnect leave no session, subscription, timer or pending entry', async () => {
    const server = createServer({ name: 'churn', version: '1.0.0', requestTimeoutMs: 60_000 });
    let running = 0;
    let watching = 0;
    server.tool({
      name: 'forever',
      description: 'runs until cancelled',
      handler: () =>
        new Observable(() => {
          running++;
          return () => running--;
        }),
    });
    server.tool({
      name: 'ticking',
      description: 'streams progress on a timer',
      handler: () => interval(1000).pipe(map((i) => ({ content: [{ type: 'text' as const, text: String(i) }] }))),
    });
    server.tool({
      name: 'asking',
      description: 'waits for the client to sample',
      handler: (_args, context) =>
        context
          .sample({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 1 })
          .pipe(map(() => ({ content: [] }))),
    });
    server.resource({
      uri: 'test://watched',
      name: 'watched',
      text: 'w',
      watch: () =>
        new Observable<number>((subscriber) => {
          watching++;
          const inner = interval(500).subscribe(subscriber);
          return () => {
            watching--;
            inner.unsubscribe();
          };
        }),
    });

    const heapBefore = { value: 0 };
    const gc = (global as { gc?: () => void }).gc;
    const ended: ServerSession[] = [];
    const CYCLES = 500;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      if (cycle === 50 && gc) {
        gc();
        heapBefore.value = process.memoryUsage().heapUsed;
      }
      const served = await serve(server, {
        capabilities: { sampling: {} },
        // The client never answers sampling: the server's request stays pending until the end.
        handlers: { 'sampling/createMessage': () => new Observable(() => undefined) },
      });
      await served.call('resources/subscribe', { uri: 'test://watched' });
      for (const name of ['forever', 'ticking', 'asking'])
        served.client.request('tools/call', { name }).subscribe({ error: () => undefined });
      await flush();
      expect(served.session.connection.inFlightRequests).toBe(3);
      expect(served.session.connection.pendingRequests).toBe(1);
      // Alternate which side hangs up.
      if (cycle % 2 === 0) served.client.close('client gone');
      else served.session.close('server drops the client');
      await flush();
      if (cycle % 100 === 0) ended.push(served.session);
    }
    await flush();

    expect(server.sessions.size).toBe(0);
    expect(running).toBe(0);
    expect(watching).toBe(0);
    for (const session of ended) {
      expect(session.connection.inFlightRequests).toBe(0);
      expect(session.connection.pendingRequests).toBe(0);
      expect(session.subscriptions.size).toBe(0);
    }
    expect(jest.getTimerCount()).toBe(0);
    if (gc) {
      gc();
      const growth = process.memoryUsage().heapUsed - heapBefore.value;
      // 450 sessions came and went since the baseline; a leak of even a few KB each would show.
      expect(growth).toBeLessThan(8 * 1024 * 1024);
    } else {
      // The heap check needs `--expose-gc` (NODE_OPTIONS=--expose-gc npx jest ...); without it the
      // counts above (sessions, handlers, pending requests, timers, watches) are the evidence.
      expect(gc).toBeUndefined();
    }
  });
});
