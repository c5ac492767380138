import { of, Subject } from 'rxjs';
import { RequestTimeoutError } from '../../lib/jsonrpc/errors';
import { timeoutWithReset } from '../../lib/operators/timeout-with-reset';
import { testScheduler } from '../support/test-scheduler';

describe('timeoutWithReset', () => {
  it('mirrors a source that answers in time', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const response = cold('---r|');
      const expected = '---r|';
      const responseSubs = '^---!';
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 5, totalMs: 10 }))).toBe(expected);
      expectSubscriptions(response.subscriptions).toBe(responseSubs);
    });
  });

  it('errors after idleMs without progress and unsubscribes the request', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const response = cold('----------r|');
      const expected = '-----#';
      const responseSubs = '^----!';
      const error = new RequestTimeoutError('idle', 5, { method: 'tools/call', id: 1 });
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 5, context: { method: 'tools/call', id: 1 } }))).toBe(
        expected,
        undefined,
        error,
      );
      expectSubscriptions(response.subscriptions).toBe(responseSubs);
    });
  });

  it('names the deadline, the duration and the request in the error', () => {
    const caught: unknown[] = [];
    testScheduler().run(({ cold }) => {
      cold('----------r|')
        .pipe(timeoutWithReset({ idleMs: 5, context: { method: 'tools/call', id: 7 } }))
        .subscribe({ error: (e: unknown) => caught.push(e) });
    });
    expect(caught).toHaveLength(1);
    expect(caught[0]).toBeInstanceOf(RequestTimeoutError);
    expect(caught[0]).toMatchObject({ deadline: 'idle', afterMs: 5, method: 'tools/call', id: 7 });
    expect((caught[0] as Error).message).toBe(
      'Request timed out after 5 ms without a response or progress (tools/call, id 7)',
    );
  });

  it('restarts the idle timer on each reset', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const progress = hot('---p---p------');
      const response = cold('----------r|');
      const expected = '----------r|';
      const progressSubs = '^----------!';
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 5, resets: progress }))).toBe(expected);
      expectSubscriptions(progress.subscriptions).toBe(progressSubs);
    });
  });

  it('errors idleMs after the last reset', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const progress = hot('--p---------');
      const response = cold('----------r|');
      const expected = '-------#';
      const responseSubs = '^------!';
      const progressSubs = '^------!';
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 5, resets: progress }))).toBe(
        expected,
        undefined,
        new RequestTimeoutError('idle', 5),
      );
      expectSubscriptions(response.subscriptions).toBe(responseSubs);
      expectSubscriptions(progress.subscriptions).toBe(progressSubs);
    });
  });

  it('keeps the request alive when a reset arrives in the same instant as the idle deadline', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const progress = hot('-----p-----');
      const response = cold('--------r|');
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 5, resets: progress }))).toBe('--------r|');
    });
  });

  it('errors with the total deadline when totalMs passes despite resets', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const progress = hot('-p-p-p-p-p-p-p-p');
      const response = cold('----------------r|');
      const expected = '----------#';
      const responseSubs = '^---------!';
      const progressSubs = '^---------!';
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 3, totalMs: 10, resets: progress }))).toBe(
        expected,
        undefined,
        new RequestTimeoutError('total', 10),
      );
      expectSubscriptions(response.subscriptions).toBe(responseSubs);
      expectSubscriptions(progress.subscriptions).toBe(progressSubs);
    });
  });

  it('reports the total deadline when both deadlines fall in the same instant', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const response = cold('--------r|');
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 5, totalMs: 5 }))).toBe(
        '-----#',
        undefined,
        new RequestTimeoutError('total', 5),
      );
    });
  });

  it('restarts the idle timer on each value of the source by default', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const stream = cold('---a---b---c|');
      expectObservable(stream.pipe(timeoutWithReset({ idleMs: 5 }))).toBe('---a---b---c|');
    });
  });

  it('does not count the source values as resets when resetOnValue is false', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const stream = cold('---a---b---c|');
      const expected = '---a-#';
      const streamSubs = '^----!';
      expectObservable(stream.pipe(timeoutWithReset({ idleMs: 5, resetOnValue: false }))).toBe(
        expected,
        undefined,
        new RequestTimeoutError('idle', 5),
      );
      expectSubscriptions(stream.subscriptions).toBe(streamSubs);
    });
  });

  it('passes an error of the source through and releases the resets', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const progress = hot('-p---------');
      const response = cold('---#', undefined, new Error('boom'));
      const expected = '---#';
      const progressSubs = '^--!';
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 5, resets: progress }))).toBe(
        expected,
        undefined,
        new Error('boom'),
      );
      expectSubscriptions(progress.subscriptions).toBe(progressSubs);
    });
  });

  it('forwards an error of the resets and unsubscribes the source', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const progress = hot('--#', undefined, new Error('closed'));
      const response = cold('--------r|');
      const expected = '--#';
      const responseSubs = '^-!';
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 5, resets: progress }))).toBe(
        expected,
        undefined,
        new Error('closed'),
      );
      expectSubscriptions(response.subscriptions).toBe(responseSubs);
    });
  });

  it('keeps the idle deadline running after the resets complete', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const progress = hot('-p|');
      const response = cold('---------r|');
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 5, resets: progress }))).toBe(
        '------#',
        undefined,
        new RequestTimeoutError('idle', 5),
      );
    });
  });

  it('mirrors a synchronous source and leaves no timer or subscription behind', () => {
    const scheduler = testScheduler();
    const resets = new Subject<void>();
    const values: number[] = [];
    let completed = false;
    of(1, 2, 3)
      .pipe(timeoutWithReset({ idleMs: 5, totalMs: 8, resets, scheduler }))
      .subscribe({ next: (v) => values.push(v), complete: () => (completed = true) });
    expect(values).toEqual([1, 2, 3]);
    expect(completed).toBe(true);
    expect(resets.observed).toBe(false);
    expect(scheduler.actions).toHaveLength(0);
  });

  it('releases the source, the resets and the timers when unsubscribed', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const progress = hot('-p-p-p-p-p');
      const response = cold('---------r|');
      const unsub = '----!';
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 3, totalMs: 6, resets: progress })), unsub).toBe('-');
      expectSubscriptions(response.subscriptions).toBe('^---!');
      expectSubscriptions(progress.subscriptions).toBe('^---!');
    });
  });

  it('starts the clocks separately for each subscriber', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const response = cold('------r|');
      const timed = response.pipe(timeoutWithReset({ idleMs: 5 }));
      const error = new RequestTimeoutError('idle', 5);
      expectObservable(timed).toBe('-----#', undefined, error);
      expectObservable(timed, '--^').toBe('-------#', undefined, error);
    });
  });

  it('takes an explicit scheduler', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const response = cold('------r|');
      expectObservable(response.pipe(timeoutWithReset({ idleMs: 4, scheduler }))).toBe(
        '----#',
        undefined,
        new RequestTimeoutError('idle', 4),
      );
    });
  });

  it('disables the idle deadline when idleMs is Infinity', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const response = cold('-------------------r|');
      expectObservable(response.pipe(timeoutWithReset({ idleMs: Infinity }))).toBe('-------------------r|');
    });
  });

  it('rejects a negative deadline when called', () => {
    expect(() => timeoutWithReset({ idleMs: -1 })).toThrow(RangeError);
    expect(() => timeoutWithReset({ idleMs: 1, totalMs: Number.NaN })).toThrow(RangeError);
  });
});
