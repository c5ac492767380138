import type pino from 'pino';
import { SessionTakenOverError } from '../../../lib/cluster/redis-event-store';
import { WriteQueue } from '../../../lib/transport/http-server/streamable-http/write-queue';

function recordingLogger() {
  const lines: Array<[string, string]> = [];
  const log = {
    warn: (_fields: unknown, message: string) => void lines.push(['warn', message]),
    error: (_fields: unknown, message: string) => void lines.push(['error', message]),
  } as unknown as pino.Logger;
  return { log, lines };
}

describe('WriteQueue', () => {
  it('runs jobs in order, a later one after an earlier asynchronous one, and goes on after a failure', async () => {
    const { log, lines } = recordingLogger();
    const queue = new WriteQueue(log);
    const order: string[] = [];
    let release!: () => void;
    queue.push(() => new Promise<void>((resolve) => (release = resolve)).then(() => void order.push('first')));
    queue.push(() => {
      throw new Error('disk full');
    });
    queue.push(() => void order.push('third'));
    expect(order).toEqual([]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first', 'third']);
    expect(lines).toEqual([['error', 'stream write failed']]);
  });

  it('logs a write a cluster fenced (the session moved to another process) as a warning, not an error', async () => {
    const { log, lines } = recordingLogger();
    const queue = new WriteQueue(log);
    queue.push(() => Promise.reject(new SessionTakenOverError('s1')));
    queue.push(() => {
      throw new SessionTakenOverError('s1');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([
      ['warn', 'event store failed: the session moved'],
      ['warn', 'stream write failed: the session moved'],
    ]);
  });
});
