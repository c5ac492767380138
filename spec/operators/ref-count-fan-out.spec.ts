import { NEVER, Observable, of, Subject } from 'rxjs';
import { createFanOut } from '../../lib/operators/ref-count-fan-out';
import type { FanOut } from '../../lib/operators/ref-count-fan-out';
import { testScheduler } from '../support/test-scheduler';

describe('createFanOut', () => {
  it('opens a key for its first watcher, shares it with the next and closes it after the last leaves', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const updates = cold('-a-b-c-d-e-f-');
      const fanOut = createFanOut({ open: () => updates });
      const first = '^----!';
      const second = '--^-------!';
      const updatesSubs = '^---------!';
      expectObservable(fanOut.watch('file:///a'), first).toBe('-a-b-');
      expectObservable(fanOut.watch('file:///a'), second).toBe('---b-c-d-e');
      expectSubscriptions(updates.subscriptions).toBe(updatesSubs);
    });
  });

  it('opens each key separately', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-x-x-x-x');
      const b = cold('-y-y-y-y');
      const fanOut = createFanOut({ open: (key: 'a' | 'b') => (key === 'a' ? a : b) });
      expectObservable(fanOut.watch('a'), '^---!').toBe('-x-x');
      expectObservable(fanOut.watch('b'), '-^-----!').toBe('--y-y-y');
      expectObservable(fanOut.watch('a'), '--^-----!').toBe('---x-x-x');
      expectSubscriptions(a.subscriptions).toBe('^-------!');
      expectSubscriptions(b.subscriptions).toBe('-^-----!');
    });
  });

  it('reopens a key watched again after it was closed', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const updates = cold('-a-b-c-');
      const fanOut = createFanOut({ open: () => updates });
      expectObservable(fanOut.watch('k'), '^--!').toBe('-a-');
      expectObservable(fanOut.watch('k'), '-----^--!').toBe('------a-');
      expectSubscriptions(updates.subscriptions).toBe(['^--!', '-----^--!']);
    });
  });

  it('counts the open keys', () => {
    const scheduler = testScheduler();
    const sizes: number[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const fanOut = createFanOut({ open: () => cold('-a-a-a-a-a') });
      expectObservable(fanOut.watch('x'), '-^---!').toBe('--a-a');
      expectObservable(fanOut.watch('x'), '--^----!').toBe('--a-a-a');
      expectObservable(fanOut.watch('y'), '---^-!').toBe('----a');
      for (let frame = 0; frame <= 8; frame++) scheduler.schedule(() => void sizes.push(fanOut.size()), frame);
    });
    // Each size is read after the watchers that join or leave in the same frame.
    expect(sizes).toEqual([0, 1, 1, 2, 2, 1, 1, 0, 0]);
  });

  it('gives a joining watcher only later values by default', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const updates = hot('-a--b--c-');
      const fanOut = createFanOut({ open: () => updates });
      expectObservable(fanOut.watch('k')).toBe('-a--b--c-');
      expectObservable(fanOut.watch('k'), '--^').toBe('----b--c-');
    });
  });

  it('gives a joining watcher the latest value at once with replayLatest', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const updates = cold('-a--b--c-');
      const fanOut = createFanOut({ open: () => updates, replayLatest: true });
      expectObservable(fanOut.watch('k'), '^-------!').toBe('-a--b--c');
      expectObservable(fanOut.watch('k'), '--^---!').toBe('--a-b-');
      expectSubscriptions(updates.subscriptions).toBe('^-------!');
    });
  });

  it('forgets the latest value when the key closes, even with replayLatest', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const fanOut = createFanOut({ open: () => cold('-a-b'), replayLatest: true });
      expectObservable(fanOut.watch('k'), '^--!').toBe('-a-');
      expectObservable(fanOut.watch('k'), '----^---!').toBe('-----a-b');
    });
  });

  it('sends an error to every watcher and forgets the key, so a later watch reopens it', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const updates = cold('-a--#', undefined, new Error('gone'));
      const fanOut = createFanOut({ open: () => updates });
      expectObservable(fanOut.watch('k')).toBe('-a--#', undefined, new Error('gone'));
      expectObservable(fanOut.watch('k'), '--^').toBe('----#', undefined, new Error('gone'));
      expectObservable(fanOut.watch('k'), '------^').toBe('-------a--#', undefined, new Error('gone'));
      expectSubscriptions(updates.subscriptions).toBe(['^---!', '------^---!']);
    });
  });

  it('completes every watcher and forgets the key when the opened stream completes', () => {
    const scheduler = testScheduler();
    let sizeAfter = -1;
    scheduler.run(({ cold, expectObservable, flush }) => {
      const fanOut = createFanOut({ open: () => cold('-a-|') });
      expectObservable(fanOut.watch('k')).toBe('-a-|');
      expectObservable(fanOut.watch('k'), '-^').toBe('-a-|');
      flush();
      sizeAfter = fanOut.size();
    });
    expect(sizeAfter).toBe(0);
  });

  it('sends resources/subscribe once per key and resources/unsubscribe when the last watcher leaves', () => {
    const scheduler = testScheduler();
    const wire: string[] = [];
    scheduler.run(({ hot, expectObservable }) => {
      const updated = hot('---u---u---u---');
      const fanOut = createFanOut({
        open: (uri: string) =>
          new Observable<string>((subscriber) => {
            wire.push(`${scheduler.now()} resources/subscribe ${uri}`);
            const inner = updated.subscribe(subscriber);
            return () => {
              inner.unsubscribe();
              wire.push(`${scheduler.now()} resources/unsubscribe ${uri}`);
            };
          }),
      });
      expectObservable(fanOut.watch('file:///a'), '-^-------!').toBe('---u---u-');
      expectObservable(fanOut.watch('file:///a'), '--^----------!').toBe('---u---u---u-');
    });
    expect(wire).toEqual(['1 resources/subscribe file:///a', '13 resources/unsubscribe file:///a']);
  });

  it('shares a key between watchers whose keys map to the same identity', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const updates = cold('-a-a-a-');
      const fanOut = createFanOut({ open: () => updates, keyOf: (k: { uri: string }) => k.uri });
      expectObservable(fanOut.watch({ uri: 'u' }), '^---!').toBe('-a-a');
      expectObservable(fanOut.watch({ uri: 'u' }), '-^-----!').toBe('-a-a-a-');
      expectSubscriptions(updates.subscriptions).toBe('^------!');
    });
  });

  it('keeps a key open for keepAliveMs after the last watcher leaves', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const updates = cold('-a-b-c-d-e-f-g-h-');
      const fanOut = createFanOut({ open: () => updates, keepAliveMs: 3, replayLatest: true });
      expectObservable(fanOut.watch('k'), '^--!').toBe('-a-');
      expectObservable(fanOut.watch('k'), '----^--!').toBe('----bc-');
      expectObservable(fanOut.watch('k'), '------------^-!').toBe('-------------a-');
      expectSubscriptions(updates.subscriptions).toBe(['^---------!', '------------^----!']);
    });
  });

  it('delivers the values of a synchronous stream to its first watcher', () => {
    const fanOut = createFanOut({ open: () => of(1, 2, 3) });
    const values: number[] = [];
    let completed = false;
    fanOut.watch('k').subscribe({ next: (v) => values.push(v), complete: () => (completed = true) });
    expect(values).toEqual([1, 2, 3]);
    expect(completed).toBe(true);
    expect(fanOut.size()).toBe(0);
  });

  it('sends a synchronous throw of open to the watcher and forgets the key', () => {
    let calls = 0;
    const fanOut = createFanOut<string, number>({
      open: () => {
        calls++;
        throw new Error('bad uri');
      },
    });
    const errors: unknown[] = [];
    fanOut.watch('k').subscribe({ error: (e) => errors.push(e) });
    fanOut.watch('k').subscribe({ error: (e) => errors.push(e) });
    expect(errors).toEqual([new Error('bad uri'), new Error('bad uri')]);
    expect(calls).toBe(2);
    expect(fanOut.size()).toBe(0);
  });

  it('does nothing until a watch is subscribed', () => {
    const open = jest.fn(() => NEVER);
    const fanOut = createFanOut({ open });
    fanOut.watch('k');
    expect(open).not.toHaveBeenCalled();
    expect(fanOut.size()).toBe(0);
  });

  it('opens afresh when watched from inside the teardown of the closing stream', () => {
    const upstreams: Subject<number>[] = [];
    let reopened: number[] | undefined;
    const fanOut: FanOut<string, number> = createFanOut<string, number>({
      open: () =>
        new Observable<number>((subscriber) => {
          const upstream = new Subject<number>();
          upstreams.push(upstream);
          const inner = upstream.subscribe(subscriber);
          return () => {
            inner.unsubscribe();
            if (reopened === undefined) {
              reopened = [];
              fanOut.watch('k').subscribe((v) => reopened!.push(v));
            }
          };
        }),
    });
    fanOut.watch('k').subscribe().unsubscribe();
    expect(upstreams).toHaveLength(2);
    upstreams[1]!.next(7);
    expect(reopened).toEqual([7]);
    expect(fanOut.size()).toBe(1);
  });
});
