import pino from 'pino';
import { NEVER } from 'rxjs';
import type { Observable } from 'rxjs';
import { followTask } from '../../../lib/client/tasks/task-follower';
import type { FollowOptions, TaskDriver } from '../../../lib/client/tasks/task-follower';
import { readTask2026 } from '../../../lib/client/tasks/task-wire';
import type { SnapshotPartials, TaskInfo, TaskSnapshot } from '../../../lib/client/tasks/task-wire';
import { PARTIAL_RESULTS_EXTENSION } from '../../../lib/connection/partial-results';
import { testScheduler } from '../../support/test-scheduler';

// Following a task of the tasks extension whose answers carry partial results (SEP-2998, kept by
// the server): each piece becomes one `partial` event, in seq order, before the state that carried
// it, and each poll asks from the next seq. Virtual time: the polls run on the TestScheduler.

const log = pino({ level: 'silent' });
const TOKEN = 'tok-1';

function info(status: TaskInfo['status'], at: number): TaskInfo {
  return {
    taskId: 't1',
    status,
    createdAt: '2026-01-01T00:00:00Z',
    lastUpdatedAt: `2026-01-01T00:00:${String(at).padStart(2, '0')}Z`,
    ttlMs: 60000,
    pollIntervalMs: 100,
  };
}

const piece = (seq: number, token: string | number = TOKEN) => ({
  token,
  params: { seq, content: [{ type: 'text', text: `p${seq}` }], taskId: 't1' },
});

function snap(status: TaskInfo['status'], at: number, partials?: SnapshotPartials, result?: Record<string, unknown>) {
  return { info: info(status, at), ...(partials ? { partials } : {}), ...(result ? { result } : {}) } as TaskSnapshot;
}

const result = { content: [{ type: 'text', text: 'done' }] };
const event = (seq: number, missed?: number) => ({
  type: 'partial',
  taskId: 't1',
  seq,
  content: [{ type: 'text', text: `p${seq}` }],
  ...(missed === undefined ? {} : { missed }),
});

/** A driver whose successive tasks/get answers are `gets`; `asked` records each poll's nextSeq. */
function driver(gets: Array<() => Observable<TaskSnapshot>>) {
  const asked: Array<number | undefined> = [];
  const d: TaskDriver = {
    log,
    get: (_taskId, nextSeq) => {
      asked.push(nextSeq);
      const next = gets[asked.length - 1];
      if (!next) throw new Error('unexpected tasks/get');
      return next();
    },
    pushed: () => NEVER,
    cancel: () => NEVER,
  };
  return { d, asked };
}

const withToken: FollowOptions<Record<string, unknown>> = { checkResult: (r) => r, partialResultToken: TOKEN };

describe('followTask with partial results (tasks extension)', () => {
  it('emits each piece once, in seq order, before the state that carried it; each poll asks from the next seq', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const { d, asked } = driver([
        // Out of order within an answer, and a piece twice.
        () => cold('-a|', { a: snap('working', 1, { pieces: [piece(1), piece(0), piece(1)], dropped: 0 }) }),
        // A server that ignores nextSeq and answers everything it keeps: nothing is emitted twice.
        () => cold('-b|', { b: snap('completed', 2, { pieces: [piece(0), piece(1), piece(2)], dropped: 0 }, result) }),
      ]);
      expectObservable(followTask(d, snap('working', 0), withToken)).toBe('a 100ms (bc) 97ms (def|)', {
        a: { type: 'status', task: info('working', 0) },
        b: event(0),
        c: event(1),
        d: event(2),
        e: { type: 'status', task: info('completed', 2) },
        f: { type: 'result', task: info('completed', 2), result },
      });
      flush();
      expect(asked).toEqual([0, 2]);
    });
  });
});

describe('followTask with partial results, the rules one by one', () => {
  it('orders the pieces of one answer and skips one seen before', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { d } = driver([
        () =>
          cold('-a|', {
            a: snap('completed', 1, { pieces: [piece(2), piece(0), piece(1), piece(0)], dropped: 0 }, result),
          }),
      ]);
      expectObservable(followTask(d, snap('working', 0), withToken)).toBe('s 100ms (abcef|)', {
        s: { type: 'status', task: info('working', 0) },
        a: event(0),
        b: event(1),
        c: event(2),
        e: { type: 'status', task: info('completed', 1) },
        f: { type: 'result', task: info('completed', 1), result },
      });
    });
  });

  it('ignores pieces that carry another token; a follow with none (resumed by id) takes every piece', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const answer = snap('completed', 1, { pieces: [piece(0, 'someone-else'), piece(1)], dropped: 0 }, result);
      const tokened = driver([() => cold('-a|', { a: answer })]);
      expectObservable(followTask(tokened.d, snap('working', 0), withToken)).toBe('s 100ms (aef|)', {
        s: { type: 'status', task: info('working', 0) },
        a: event(1, 1),
        e: { type: 'status', task: info('completed', 1) },
        f: { type: 'result', task: info('completed', 1), result },
      });
      const resumed = driver([() => cold('-a|', { a: answer })]);
      expectObservable(followTask(resumed.d, snap('working', 0), { checkResult: (r) => r })).toBe('s 100ms (abef|)', {
        s: { type: 'status', task: info('working', 0) },
        a: event(0),
        b: event(1),
        e: { type: 'status', task: info('completed', 1) },
        f: { type: 'result', task: info('completed', 1), result },
      });
    });
  });

  it('says how many pieces were missed before one that follows a gap (the server dropped the oldest)', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { d } = driver([
        () => cold('-a|', { a: snap('working', 1, { pieces: [piece(0)], dropped: 0 }) }),
        () => cold('-b|', { b: snap('completed', 2, { pieces: [piece(4), piece(5)], dropped: 4 }, result) }),
      ]);
      expectObservable(followTask(d, snap('working', 0), withToken)).toBe('s 100ms a 100ms (bcef|)', {
        s: { type: 'status', task: info('working', 0) },
        a: event(0),
        b: event(4, 3),
        c: event(5),
        e: { type: 'status', task: info('completed', 2) },
        f: { type: 'result', task: info('completed', 2), result },
      });
    });
  });
});

describe('readTask2026 and partial results', () => {
  const task = {
    taskId: 't1',
    status: 'working',
    createdAt: '2026-01-01T00:00:00Z',
    lastUpdatedAt: '2026-01-01T00:00:00Z',
    ttlMs: 1000,
  };

  it('reads the pieces of `_meta`, skipping one that is not well formed', () => {
    const read = readTask2026({
      ...task,
      _meta: {
        [PARTIAL_RESULTS_EXTENSION]: {
          pieces: [
            { partialResultToken: 'k', seq: 0, content: [{ type: 'text', text: 'a' }], taskId: 't1' },
            { partialResultToken: 'k', seq: -1 },
            'not a piece',
            { partialResultToken: 7, seq: 1, structuredContent: { n: 1 } },
          ],
          dropped: 2,
        },
      },
    });
    expect(read.partials).toEqual({
      pieces: [
        { token: 'k', params: { seq: 0, content: [{ type: 'text', text: 'a' }], taskId: 't1' } },
        { token: 7, params: { seq: 1, structuredContent: { n: 1 } } },
      ],
      dropped: 2,
    });
  });

  it('reads no partial results without them, or when they are not a list; a malformed count is 0', () => {
    expect(readTask2026(task).partials).toBeUndefined();
    expect(readTask2026({ ...task, _meta: { [PARTIAL_RESULTS_EXTENSION]: { pieces: 'x' } } }).partials).toBeUndefined();
    expect(
      readTask2026({ ...task, _meta: { [PARTIAL_RESULTS_EXTENSION]: { pieces: [], dropped: -3 } } }).partials,
    ).toEqual({ pieces: [], dropped: 0 });
  });
});
