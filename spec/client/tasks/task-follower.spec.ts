import pino from 'pino';
import { NEVER } from 'rxjs';
import type { Observable } from 'rxjs';
import { JsonRpcError, ProtocolError } from '../../../lib/jsonrpc/errors';
import { TaskCancelledError } from '../../../lib/client/tasks/task-errors';
import { followTask, taskResult } from '../../../lib/client/tasks/task-follower';
import type { FollowOptions, TaskDriver, TaskEvent } from '../../../lib/client/tasks/task-follower';
import type { TaskInfo, TaskSnapshot } from '../../../lib/client/tasks/task-wire';
import { testScheduler } from '../../support/test-scheduler';

const log = pino({ level: 'silent' });

/** A task state; `at` is the second of its last update, so that later states are newer. */
function snap(status: TaskInfo['status'], at: number, extra: Partial<TaskSnapshot> & Partial<TaskInfo> = {}) {
  const { result, error, inputRequests, ...info } = extra;
  return {
    info: {
      taskId: 't1',
      status,
      createdAt: '2026-01-01T00:00:00Z',
      lastUpdatedAt: `2026-01-01T00:00:${String(at).padStart(2, '0')}Z`,
      ttlMs: 60000,
      pollIntervalMs: 100,
      ...info,
    },
    ...(result ? { result } : {}),
    ...(error ? { error } : {}),
    ...(inputRequests ? { inputRequests } : {}),
  } as TaskSnapshot;
}

const result = { content: [{ type: 'text', text: 'done' }] };
const options: FollowOptions<Record<string, unknown>> = { checkResult: (r) => r };

/** A driver whose successive tasks/get answers are `gets` (each a cold Observable). */
function driver(parts: Partial<TaskDriver> & { gets?: Array<() => Observable<TaskSnapshot>> }) {
  const calls = { get: 0, cancel: 0, fetch: 0 };
  const { gets = [], ...rest } = parts;
  const d: TaskDriver = {
    log,
    get: () => {
      const next = gets[calls.get++];
      if (!next) throw new Error('unexpected tasks/get');
      return next();
    },
    pushed: () => NEVER,
    cancel: () => {
      calls.cancel++;
      return NEVER;
    },
    ...rest,
  };
  return { d, calls };
}

describe('followTask', () => {
  it('[tasks.poll] polls tasks/get at the pollInterval, emits each status change, then the tasks/result payload', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { d } = driver({
        gets: [() => cold('-a|', { a: snap('working', 1) }), () => cold('-c|', { c: snap('completed', 2) })],
        fetchResult: () => cold('--r|', { r: result }),
      });
      expectObservable(followTask(d, snap('working', 0), options)).toBe('a 201ms c 1ms (r|)', {
        a: { type: 'status', task: snap('working', 0).info },
        c: { type: 'status', task: snap('completed', 2).info },
        r: { type: 'result', task: snap('completed', 2).info, result },
      });
    });
  });

  it('[tasks.notifications] takes a status notification without waiting for the next poll', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const get = cold('-a|', { a: snap('working', 1) });
      const pushed = hot('---c', { c: snap('completed', 5) });
      const fetch = cold('--r|', { r: result });
      const { d } = driver({ gets: [() => get], pushed: () => pushed, fetchResult: () => fetch });
      expectObservable(followTask(d, snap('working', 0), options)).toBe('a--c-(r|)', {
        a: { type: 'status', task: snap('working', 0).info },
        c: { type: 'status', task: snap('completed', 5).info },
        r: { type: 'result', task: snap('completed', 5).info, result },
      });
      // The poll due at 100 never went out: the task had ended.
      expectSubscriptions(get.subscriptions).toBe([]);
      expectSubscriptions(fetch.subscriptions).toBe('---^-!');
    });
  });

  it('[tasks.input-required] calls tasks/result at once on input_required and keeps polling meanwhile (2025-11-25)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const fetch = cold('500ms r|', { r: result });
      const { d } = driver({
        gets: [
          () => cold('a|', { a: snap('input_required', 1) }),
          () => cold('a|', { a: snap('working', 2) }),
          () => NEVER,
        ],
        fetchResult: () => fetch,
      });
      expectObservable(followTask(d, snap('working', 0), options)).toBe('a 99ms i 99ms w 399ms (r|)', {
        a: { type: 'status', task: snap('working', 0).info },
        i: { type: 'status', task: snap('input_required', 1).info },
        w: { type: 'status', task: snap('working', 2).info },
        r: { type: 'result', task: snap('working', 2).info, result },
      });
      expectSubscriptions(fetch.subscriptions).toBe('100ms ^ 499ms !');
    });
  });

  it('[tasks.stale] ignores a state older than the last one seen', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const pushed = hot('--w', { w: snap('working', 9, { statusMessage: 'later' }) });
      const { d } = driver({
        pushed: () => pushed,
        gets: [() => cold('a|', { a: snap('working', 3, { statusMessage: 'earlier' }) }), () => NEVER],
      });
      expectObservable(followTask(d, snap('working', 0), options), '^ 300ms !').toBe('a-b', {
        a: { type: 'status', task: snap('working', 0).info },
        b: { type: 'status', task: snap('working', 9, { statusMessage: 'later' }).info },
      });
    });
  });

  it('[tasks.poll-floor] waits at least 100 ms between polls, and the default interval when the server says none', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const second = cold<TaskSnapshot>('-');
      const { d } = driver({
        gets: [() => cold('a|', { a: snap('working', 1, { pollIntervalMs: 0 }) }), () => second],
      });
      const start = snap('working', 0, { pollIntervalMs: undefined });
      expectObservable(followTask(d, start, { ...options, pollIntervalMs: 250 }), '^ 400ms !').toBe('a', {
        a: { type: 'status', task: start.info },
      });
      expectSubscriptions(second.subscriptions).toBe('350ms ^ 50ms !');
    });
  });

  it('[tasks.cancelled] fails with TaskCancelledError when the task ends cancelled', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { d } = driver({ gets: [() => cold('a|', { a: snap('cancelled', 1, { statusMessage: 'by user' }) })] });
      expectObservable(followTask(d, 't1', options)).toBe(
        '(a#)',
        { a: { type: 'status', task: snap('cancelled', 1, { statusMessage: 'by user' }).info } },
        new TaskCancelledError('t1', 'by user'),
      );
    });
  });

  it('[tasks.resume] polls at once when only the id is known', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { d } = driver({
        gets: [() => cold('-c|', { c: snap('completed', 1) })],
        fetchResult: () => cold('r|', { r: result }),
      });
      expectObservable(followTask(d, 't1', options)).toBe('-(cr|)', {
        c: { type: 'status', task: snap('completed', 1).info },
        r: { type: 'result', task: snap('completed', 1).info, result },
      });
    });
  });

  it('[tasks.unsubscribe] stops polling on unsubscribe and leaves the task alone unless asked to cancel it', () => {
    const kept = driver({});
    const cancelling = driver({});
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const get = cold('-a|', { a: snap('working', 1) });
      const kept$ = followTask({ ...kept.d, get: () => get }, snap('working', 0), options);
      expectObservable(kept$, '^ 150ms !').toBe('a', { a: { type: 'status', task: snap('working', 0).info } });
      expectSubscriptions(get.subscriptions).toBe('100ms ^!');
      const cancelling$ = followTask(cancelling.d, snap('working', 0), { ...options, cancelOnUnsubscribe: true });
      expectObservable(cancelling$, '^ 50ms !').toBe('a', { a: { type: 'status', task: snap('working', 0).info } });
    });
    expect(kept.calls.cancel).toBe(0);
    expect(cancelling.calls.cancel).toBe(1);
  });
});

describe('followTask with inlined outcomes (tasks extension)', () => {
  it('[tasks-ext.result] ends with the result inlined in the completed task', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { d } = driver({ gets: [() => cold('a|', { a: snap('completed', 1, { result }) })] });
      expectObservable(followTask(d, snap('working', 0), options)).toBe('a 99ms (cr|)', {
        a: { type: 'status', task: snap('working', 0).info },
        c: { type: 'status', task: snap('completed', 1).info },
        r: { type: 'result', task: snap('completed', 1).info, result },
      });
    });
  });

  it('[tasks-ext.failed] fails with the JSON-RPC error inlined in the failed task', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const error = new JsonRpcError(-32603, 'boom');
      const { d } = driver({ gets: [() => cold('a|', { a: snap('failed', 1, { error }) })] });
      expectObservable(followTask(d, 't1', options)).toBe(
        '(f#)',
        { f: { type: 'status', task: snap('failed', 1).info } },
        error,
      );
    });
  });

  it('[tasks-ext.notification-without-result] asks tasks/get at once when a notification says completed without the result', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const pushed = hot('--c', { c: snap('completed', 4) });
      const { d } = driver({
        pushed: () => pushed,
        gets: [() => cold('-c|', { c: snap('completed', 4, { result }) })],
      });
      expectObservable(followTask(d, snap('working', 0), options)).toBe('a-c(r|)', {
        a: { type: 'status', task: snap('working', 0).info },
        c: { type: 'status', task: snap('completed', 4).info },
        r: { type: 'result', task: snap('completed', 4).info, result },
      });
    });
  });

  it('[tasks-ext.no-outcome] fails with ProtocolError when tasks/get says completed but carries no result', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { d } = driver({ gets: [() => cold('a|', { a: snap('completed', 1) })] });
      expectObservable(followTask(d, 't1', options)).toBe(
        '(c#)',
        { c: { type: 'status', task: snap('completed', 1).info } },
        new ProtocolError('Task t1 is completed but tasks/get carried no result'),
      );
    });
  });

  it('[tasks-ext.input] answers each input request once with tasks/update, then polls at once', () => {
    const answered: string[][] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const inputRequests = { ask: { method: 'elicitation/create', params: { message: 'ok?' } } };
      const waiting = snap('input_required', 1, { inputRequests });
      const { d } = driver({
        gets: [
          () => cold('a|', { a: waiting }),
          // Still listed while the update is on its way: not answered twice.
          () => cold('a|', { a: snap('input_required', 1, { inputRequests }) }),
          () => cold('c|', { c: snap('completed', 2, { result }) }),
        ],
        answerInput: (_taskId, requests) => {
          answered.push(Object.keys(requests));
          return cold('--(u|)');
        },
      });
      expectObservable(followTask(d, snap('working', 0), options)).toBe('a 99ms (bi) 98ms (cr|)', {
        a: { type: 'status', task: snap('working', 0).info },
        b: { type: 'status', task: waiting.info },
        i: { type: 'input_required', task: waiting.info, requests: inputRequests },
        c: { type: 'status', task: snap('completed', 2).info },
        r: { type: 'result', task: snap('completed', 2).info, result },
      });
    });
    expect(answered).toEqual([['ask']]);
  });
});

describe('taskResult', () => {
  it('keeps only the result of a task', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold<TaskEvent<typeof result>>('a-b-(r|)', {
        a: { type: 'status', task: snap('working', 0).info },
        b: { type: 'status', task: snap('completed', 1).info },
        r: { type: 'result', result },
      });
      expectObservable(events.pipe(taskResult<typeof result>())).toBe('----(r|)', { r: result });
    });
  });
});
