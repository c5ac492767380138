import { asyncScheduler, VirtualTimeScheduler } from 'rxjs';
import { Deadlines } from '../../lib/operators/deadlines';
import type { Expiring } from '../../lib/operators/deadlines';
import { connect } from '../../lib/client/client';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';

function clock() {
  const scheduler = new VirtualTimeScheduler();
  const advanceTo = (at: number) => {
    scheduler.maxFrames = at;
    scheduler.flush();
  };
  return { scheduler, advanceTo, pending: () => scheduler.actions.filter((action) => !action.closed).length };
}

function entry(deadline: number, fired: string[], name: string): Expiring & { deadline: number } {
  const it = { deadline, onDeadline: () => void fired.push(`${name}@${it.deadline}`) };
  return it;
}

describe('Deadlines', () => {
  it('calls each entry once its deadline has passed, earliest first, on one scheduled action', () => {
    const { scheduler, advanceTo, pending } = clock();
    const deadlines = new Deadlines(scheduler);
    const fired: string[] = [];
    deadlines.add(entry(300, fired, 'b'));
    deadlines.add(entry(100, fired, 'a'));
    deadlines.add(entry(500, fired, 'c'));
    expect(pending()).toBe(1);
    advanceTo(99);
    expect(fired).toEqual([]);
    advanceTo(300);
    expect(fired).toEqual(['a@100', 'b@300']);
    expect(deadlines.size).toBe(1);
    advanceTo(1000);
    expect(fired).toEqual(['a@100', 'b@300', 'c@500']);
    expect(pending()).toBe(0);
  });

  it('follows a deadline that moves later without firing early', () => {
    const { scheduler, advanceTo } = clock();
    const deadlines = new Deadlines(scheduler);
    const fired: string[] = [];
    const moving = entry(100, fired, 'm');
    deadlines.add(moving);
    advanceTo(50);
    moving.deadline = 250;
    advanceTo(249);
    expect(fired).toEqual([]);
    advanceTo(250);
    expect(fired).toEqual(['m@250']);
  });

  it('never calls a deleted entry, and stops once nothing waits', () => {
    const { scheduler, advanceTo, pending } = clock();
    const deadlines = new Deadlines(scheduler);
    const fired: string[] = [];
    const gone = entry(100, fired, 'gone');
    deadlines.add(gone);
    deadlines.delete(gone);
    advanceTo(200);
    expect(fired).toEqual([]);
    expect(pending()).toBe(0);
  });

  it('keeps the others when entries are deleted from the middle, and takes a deleted one back', () => {
    const { scheduler, advanceTo } = clock();
    const deadlines = new Deadlines(scheduler);
    const fired: string[] = [];
    const all = ['a', 'b', 'c', 'd', 'e'].map((name, i) => entry(100 + 10 * i, fired, name));
    for (const each of all) deadlines.add(each);
    deadlines.add(all[2]!);
    expect(deadlines.size).toBe(5);
    deadlines.delete(all[1]!);
    deadlines.delete(all[0]!);
    deadlines.delete(all[1]!);
    expect(deadlines.size).toBe(3);
    deadlines.add(all[1]!);
    advanceTo(1000);
    expect(fired).toEqual(['b@110', 'c@120', 'd@130', 'e@140']);
    expect(deadlines.size).toBe(0);
  });

  it('forgets every entry on stop() and takes them again afterwards', () => {
    const { scheduler, advanceTo } = clock();
    const deadlines = new Deadlines(scheduler);
    const fired: string[] = [];
    const all = ['a', 'b', 'c'].map((name) => entry(100, fired, name));
    for (const each of all) deadlines.add(each);
    deadlines.stop();
    expect(deadlines.size).toBe(0);
    deadlines.add(all[2]!);
    deadlines.add(all[1]!);
    advanceTo(200);
    expect(fired.sort()).toEqual(['b@100', 'c@100']);
  });

  it('stop() cancels the action and forgets every entry', () => {
    const { scheduler, advanceTo, pending } = clock();
    const deadlines = new Deadlines(scheduler);
    const fired: string[] = [];
    deadlines.add(entry(100, fired, 'x'));
    deadlines.stop();
    expect(pending()).toBe(0);
    advanceTo(500);
    expect(fired).toEqual([]);
    expect(deadlines.size).toBe(0);
  });
});

describe('a client after its handshake', () => {
  it('holds no scheduled action: the handshake deadline is let go', async () => {
    const scheduler = new VirtualTimeScheduler();
    const server = createServer({ name: 'idle', version: '1.0.0', logging: false });
    const [clientSide, serverSide] = createInMemoryPair();
    server.connect(serverSide);
    const client = await connect(clientSide, { name: 'c', version: '1.0.0', protocolVersion: '2025-11-25', scheduler });
    expect(scheduler.actions.filter((action) => !action.closed)).toEqual([]);
    client.close();
    server.close();
  });
});

describe('Deadlines on the default scheduler', () => {
  const refedTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

  it('uses one Node timer that keeps the process alive only while a deadline waits', () => {
    const deadlines = new Deadlines(asyncScheduler);
    const before = refedTimers();
    const fired: string[] = [];
    const first = entry(Date.now() + 60_000, fired, 'first');
    deadlines.add(first);
    expect(refedTimers()).toBe(before + 1);
    deadlines.add(entry(Date.now() + 90_000, fired, 'second'));
    expect(refedTimers()).toBe(before + 1);
    deadlines.stop();
    expect(refedTimers()).toBe(before);

    const alone = entry(Date.now() + 60_000, fired, 'alone');
    deadlines.add(alone);
    deadlines.delete(alone);
    expect(refedTimers()).toBe(before);
    deadlines.add(entry(Date.now() + 70_000, fired, 'again'));
    expect(refedTimers()).toBe(before + 1);
    deadlines.stop();
    expect(fired).toEqual([]);
  });

  it('fires on time under fake timers', () => {
    jest.useFakeTimers();
    try {
      const deadlines = new Deadlines(asyncScheduler);
      const fired: string[] = [];
      deadlines.add(entry(Date.now() + 1000, fired, 'x'));
      jest.advanceTimersByTime(999);
      expect(fired).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(fired).toHaveLength(1);
    } finally {
      jest.useRealTimers();
    }
  });
});
