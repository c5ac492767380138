import { of, Subject } from 'rxjs';
import { notification } from '../../lib/jsonrpc/message';
import type { JsonRpcNotification } from '../../lib/jsonrpc/message';
import { monotonicProgress, progressFor, progressNotification, readProgress } from '../../lib/operators/progress';
import type { ProgressEvent } from '../../lib/operators/progress';
import { testScheduler } from '../support/test-scheduler';

const progress = (params: Record<string, unknown>): JsonRpcNotification =>
  notification('notifications/progress', params);

describe('progressFor', () => {
  it('emits the progress of notifications/progress carrying the token', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const inbound = hot('-a-b-c-d-|', {
        a: progress({ progressToken: 'tok', progress: 1, total: 10 }),
        b: notification('notifications/message', { level: 'info', data: 'x' }),
        c: progress({ progressToken: 'other', progress: 2 }),
        d: progress({ progressToken: 'tok', progress: 5, total: 10, message: 'halfway' }),
      });
      const expected = '-a-----d-|';
      expectObservable(inbound.pipe(progressFor('tok'))).toBe(expected, {
        a: { progress: 1, total: 10 },
        d: { progress: 5, total: 10, message: 'halfway' },
      });
      expectSubscriptions(inbound.subscriptions).toBe('^--------!');
    });
  });

  it('compares tokens strictly: the number 1 and the string "1" differ', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const inbound = hot('-a-b-|', {
        a: progress({ progressToken: '1', progress: 1 }),
        b: progress({ progressToken: 1, progress: 2 }),
      });
      expectObservable(inbound.pipe(progressFor(1))).toBe('---b-|', { b: { progress: 2 } });
      expectObservable(inbound.pipe(progressFor('1'))).toBe('-a---|', { a: { progress: 1 } });
    });
  });

  it('drops malformed progress notifications', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const inbound = hot('abcdefgh|', {
        a: notification('notifications/progress'),
        b: progress({ progressToken: 'tok' }),
        c: progress({ progressToken: 'tok', progress: '3' }),
        d: progress({ progressToken: 'tok', progress: Number.NaN }),
        e: progress({ progressToken: 'tok', progress: 4, total: 'ten' }),
        f: progress({ progressToken: 'tok', progress: 4, message: 42 }),
        g: progress({ progressToken: ['tok'], progress: 4 }),
        h: progress({ progressToken: 'tok', progress: 4 }),
      });
      expectObservable(inbound.pipe(progressFor('tok'))).toBe('-------h|', { h: { progress: 4 } });
    });
  });

  it('passes an error of the source through', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const inbound = hot<JsonRpcNotification>('--#', undefined, new Error('closed'));
      expectObservable(inbound.pipe(progressFor('tok'))).toBe('--#', undefined, new Error('closed'));
    });
  });

  it('reads a synchronous source', () => {
    const events: ProgressEvent[] = [];
    of(progress({ progressToken: 7, progress: 1 }), progress({ progressToken: 7, progress: 2, total: 2 }))
      .pipe(progressFor(7))
      .subscribe((e) => events.push(e));
    expect(events).toEqual([{ progress: 1 }, { progress: 2, total: 2 }]);
  });

  it('unsubscribes the source when unsubscribed', () => {
    const inbound = new Subject<JsonRpcNotification>();
    const subscription = inbound.pipe(progressFor('tok')).subscribe();
    expect(inbound.observed).toBe(true);
    subscription.unsubscribe();
    expect(inbound.observed).toBe(false);
  });
});

describe('readProgress', () => {
  it('returns the params of a well-formed progress notification', () => {
    expect(readProgress(progress({ progressToken: 'a', progress: 0.5, total: 1, message: 'm' }))).toEqual({
      progressToken: 'a',
      progress: 0.5,
      total: 1,
      message: 'm',
    });
  });

  it('returns undefined for other methods and for a non-integer numeric token', () => {
    expect(readProgress(notification('notifications/cancelled', { requestId: 1 }))).toBeUndefined();
    expect(readProgress(progress({ progressToken: 1.5, progress: 1 }))).toBeUndefined();
  });
});

describe('progressNotification', () => {
  it('builds a notifications/progress message', () => {
    expect(progressNotification('tok', 3, 10, 'indexing')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'tok', progress: 3, total: 10, message: 'indexing' },
    });
  });

  it('leaves out total and message when not given', () => {
    expect(progressNotification(1, 3)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 3 },
    });
    expect(Object.keys(progressNotification(1, 3).params ?? {})).toEqual(['progressToken', 'progress']);
  });

  it('round-trips through progressFor', () => {
    const events: ProgressEvent[] = [];
    of(progressNotification('t', 1, 4, 'one'))
      .pipe(progressFor('t'))
      .subscribe((e) => events.push(e));
    expect(events).toEqual([{ progress: 1, total: 4, message: 'one' }]);
  });
});

describe('monotonicProgress', () => {
  it('drops reports that do not increase', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const events = cold('-a-b-c-d-e|', {
        a: { progress: 1 },
        b: { progress: 3 },
        c: { progress: 3 },
        d: { progress: 2 },
        e: { progress: 4 },
      });
      expectObservable(events.pipe(monotonicProgress())).toBe('-a-b-----e|', {
        a: { progress: 1 },
        b: { progress: 3 },
        e: { progress: 4 },
      });
      expectSubscriptions(events.subscriptions).toBe('^---------!');
    });
  });

  it('keeps its memory per subscriber', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold('-a-b|', { a: { progress: 5 }, b: { progress: 6 } });
      const monotonic = events.pipe(monotonicProgress());
      expectObservable(monotonic).toBe('-a-b|', { a: { progress: 5 }, b: { progress: 6 } });
      expectObservable(monotonic, '--^').toBe('---a-b|', { a: { progress: 5 }, b: { progress: 6 } });
    });
  });

  it('passes an error through', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold<ProgressEvent>('-a-#', { a: { progress: 1 } }, new Error('gone'));
      expectObservable(events.pipe(monotonicProgress())).toBe('-a-#', { a: { progress: 1 } }, new Error('gone'));
    });
  });
});
