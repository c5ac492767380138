import { of, Subject, take } from 'rxjs';
import { JsonRpcError, RequestTimeoutError } from '../../lib/jsonrpc/errors';
import type { JsonRpcNotification } from '../../lib/jsonrpc/message';
import {
  cancelledNotification,
  cancelOnUnsubscribe,
  cancelRequestOnUnsubscribe,
  DEFAULT_CANCEL_REASON,
} from '../../lib/operators/cancel-on-unsubscribe';
import { timeoutWithReset } from '../../lib/operators/timeout-with-reset';
import { testScheduler } from '../support/test-scheduler';

/** Records what onCancel/send received, with the virtual frame it happened at. */
function recorder<T>(scheduler: { now(): number }) {
  const calls: { frame: number; value: T }[] = [];
  return { calls, record: (value: T) => void calls.push({ frame: scheduler.now(), value }) };
}

describe('cancelOnUnsubscribe', () => {
  it('calls onCancel with the reason when unsubscribed before the source completes', () => {
    const scheduler = testScheduler();
    const cancels = recorder<string>(scheduler);
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const response = cold('------r|');
      const unsub = '---!';
      expectObservable(
        response.pipe(cancelOnUnsubscribe({ onCancel: cancels.record, reason: 'user left' })),
        unsub,
      ).toBe('---');
      expectSubscriptions(response.subscriptions).toBe('^--!');
    });
    expect(cancels.calls).toEqual([{ frame: 3, value: 'user left' }]);
  });

  it('uses the default reason when none is given', () => {
    const scheduler = testScheduler();
    const cancels = recorder<string>(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('-----r|').pipe(cancelOnUnsubscribe({ onCancel: cancels.record })), '--!').toBe('--');
    });
    expect(cancels.calls).toEqual([{ frame: 2, value: DEFAULT_CANCEL_REASON }]);
  });

  it('reads a reason function at the moment of cancelling', () => {
    const scheduler = testScheduler();
    const cancels = recorder<string>(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const reason = () => `gave up at ${scheduler.now()}`;
      expectObservable(cold('-----r|').pipe(cancelOnUnsubscribe({ onCancel: cancels.record, reason })), '----!').toBe(
        '----',
      );
    });
    expect(cancels.calls).toEqual([{ frame: 4, value: 'gave up at 4' }]);
  });

  it('does not call onCancel after the source completes', () => {
    const scheduler = testScheduler();
    const cancels = recorder<string>(scheduler);
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const response = cold('--r|');
      expectObservable(response.pipe(cancelOnUnsubscribe({ onCancel: cancels.record })), '------!').toBe('--r|');
      expectSubscriptions(response.subscriptions).toBe('^--!');
    });
    expect(cancels.calls).toEqual([]);
  });

  it('does not call onCancel when the source errors with an error response', () => {
    const scheduler = testScheduler();
    const cancels = recorder<string>(scheduler);
    const error = JsonRpcError.methodNotFound('tools/nope');
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('--#', undefined, error).pipe(cancelOnUnsubscribe({ onCancel: cancels.record }))).toBe(
        '--#',
        undefined,
        error,
      );
    });
    expect(cancels.calls).toEqual([]);
  });

  it('calls onCancel with the timeout message when the source errors with a RequestTimeoutError', () => {
    const scheduler = testScheduler();
    const cancels = recorder<string>(scheduler);
    const error = new RequestTimeoutError('total', 9, { method: 'tools/call', id: 3 });
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('--#', undefined, error).pipe(cancelOnUnsubscribe({ onCancel: cancels.record }))).toBe(
        '--#',
        undefined,
        error,
      );
    });
    expect(cancels.calls).toEqual([{ frame: 2, value: error.message }]);
  });

  it('lets reasonForError decide which errors cancel', () => {
    const scheduler = testScheduler();
    const cancels = recorder<string>(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const reasonForError = (e: unknown) => (e instanceof Error && e.message === 'stale' ? 'stale data' : undefined);
      const op = cancelOnUnsubscribe<string>({ onCancel: cancels.record, reasonForError });
      expectObservable(cold('-#', undefined, new Error('stale')).pipe(op)).toBe('-#', undefined, new Error('stale'));
      expectObservable(cold('--#', undefined, new Error('other')).pipe(op)).toBe('--#', undefined, new Error('other'));
      expectObservable(cold('---#', undefined, new RequestTimeoutError('idle', 1)).pipe(op)).toBe(
        '---#',
        undefined,
        new RequestTimeoutError('idle', 1),
      );
    });
    expect(cancels.calls).toEqual([{ frame: 1, value: 'stale data' }]);
  });

  it('calls onCancel once per subscription', () => {
    const scheduler = testScheduler();
    const cancels = recorder<string>(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const guarded = cold('------r|').pipe(cancelOnUnsubscribe({ onCancel: cancels.record }));
      expectObservable(guarded, '-!').toBe('-');
      expectObservable(guarded, '---!').toBe('---');
    });
    expect(cancels.calls.map((c) => c.frame)).toEqual([1, 3]);
  });

  it('does not call onCancel for a synchronous source that completes', () => {
    const onCancel = jest.fn();
    const values: number[] = [];
    of(1, 2)
      .pipe(cancelOnUnsubscribe({ onCancel }))
      .subscribe((v) => values.push(v));
    expect(values).toEqual([1, 2]);
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('calls onCancel when a downstream take ends a stream that has not completed', () => {
    const onCancel = jest.fn();
    const source = new Subject<number>();
    const values: number[] = [];
    source.pipe(cancelOnUnsubscribe({ onCancel }), take(1)).subscribe((v) => values.push(v));
    source.next(1);
    expect(values).toEqual([1]);
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(source.observed).toBe(false);
  });

  it('unsubscribes the source before calling onCancel', () => {
    const source = new Subject<number>();
    let observedDuringCancel: boolean | undefined;
    const subscription = source
      .pipe(cancelOnUnsubscribe({ onCancel: () => (observedDuringCancel = source.observed) }))
      .subscribe();
    subscription.unsubscribe();
    expect(observedDuringCancel).toBe(false);
  });
});

describe('cancelRequestOnUnsubscribe', () => {
  it('sends notifications/cancelled with the request id and reason when unsubscribed before the response', () => {
    const scheduler = testScheduler();
    const sent = recorder<JsonRpcNotification>(scheduler);
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const response = cold('------r|');
      const unsub = '----!';
      expectObservable(
        response.pipe(
          cancelRequestOnUnsubscribe({ requestId: 'req-1', send: sent.record, reason: 'no longer needed' }),
        ),
        unsub,
      ).toBe('----');
      expectSubscriptions(response.subscriptions).toBe('^---!');
    });
    expect(sent.calls).toEqual([
      {
        frame: 4,
        value: {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 'req-1', reason: 'no longer needed' },
        },
      },
    ]);
  });

  it('sends nothing once the response has arrived', () => {
    const scheduler = testScheduler();
    const sent = recorder<JsonRpcNotification>(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('--r|').pipe(cancelRequestOnUnsubscribe({ requestId: 1, send: sent.record }))).toBe('--r|');
    });
    expect(sent.calls).toEqual([]);
  });

  it('sends notifications/cancelled saying the request timed out when placed after timeoutWithReset', () => {
    const scheduler = testScheduler();
    const sent = recorder<JsonRpcNotification>(scheduler);
    const context = { method: 'tools/call', id: 5 };
    const error = new RequestTimeoutError('idle', 4, context);
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const progress = hot('--p-------');
      const response = cold('----------r|');
      const expected = '------#';
      const responseSubs = '^-----!';
      const request = response.pipe(
        timeoutWithReset({ idleMs: 4, resets: progress, context }),
        cancelRequestOnUnsubscribe({ requestId: 5, send: sent.record }),
      );
      expectObservable(request).toBe(expected, undefined, error);
      expectSubscriptions(response.subscriptions).toBe(responseSubs);
    });
    expect(sent.calls).toEqual([{ frame: 6, value: cancelledNotification(5, error.message) }]);
    expect(sent.calls[0]?.value.params?.['reason']).toMatch(/timed out/);
  });

  it('sends notifications/cancelled saying the request exceeded its total time on the total deadline', () => {
    const scheduler = testScheduler();
    const sent = recorder<JsonRpcNotification>(scheduler);
    scheduler.run(({ cold, hot, expectObservable }) => {
      const progress = hot('-p-p-p-p-p-p');
      const request = cold('-----------r|').pipe(
        timeoutWithReset({ idleMs: 3, totalMs: 8, resets: progress }),
        cancelRequestOnUnsubscribe({ requestId: 2, send: sent.record }),
      );
      expectObservable(request).toBe('--------#', undefined, new RequestTimeoutError('total', 8));
    });
    expect(sent.calls).toEqual([
      { frame: 8, value: cancelledNotification(2, new RequestTimeoutError('total', 8).message) },
    ]);
  });

  it('still cancels on a timeout when placed before timeoutWithReset, with the plain reason', () => {
    const scheduler = testScheduler();
    const sent = recorder<JsonRpcNotification>(scheduler);
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const response = cold('----------r|');
      const request = response.pipe(
        cancelRequestOnUnsubscribe({ requestId: 9, send: sent.record }),
        timeoutWithReset({ idleMs: 3 }),
      );
      expectObservable(request).toBe('---#', undefined, new RequestTimeoutError('idle', 3));
      expectSubscriptions(response.subscriptions).toBe('^--!');
    });
    expect(sent.calls).toEqual([{ frame: 3, value: cancelledNotification(9, DEFAULT_CANCEL_REASON) }]);
  });

  it('sends one notification when the caller unsubscribes a request guarded by a timeout', () => {
    const scheduler = testScheduler();
    const sent = recorder<JsonRpcNotification>(scheduler);
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const response = cold('----------r|');
      const request = response.pipe(
        timeoutWithReset({ idleMs: 5 }),
        cancelRequestOnUnsubscribe({ requestId: 4, send: sent.record, reason: 'closed the tab' }),
      );
      expectObservable(request, '--!').toBe('--');
      expectSubscriptions(response.subscriptions).toBe('^-!');
    });
    expect(sent.calls).toEqual([{ frame: 2, value: cancelledNotification(4, 'closed the tab') }]);
  });
});
