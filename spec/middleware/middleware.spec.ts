import { map } from 'rxjs';
import { retrying } from '../../lib/client/middleware';
import type { ClientRequest } from '../../lib/client/middleware';
import { ProgressUpdate } from '../../lib/connection/handler-events';
import { runMiddleware } from '../../lib/connection/middleware';
import type { Middleware, MiddlewareEvent, MiddlewareRequest } from '../../lib/connection/middleware';
import { timing } from '../../lib/connection/middleware-kit';
import type { RequestOutcome } from '../../lib/connection/middleware-kit';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { testScheduler } from '../support/test-scheduler';

const request: MiddlewareRequest = { method: 'tools/call', params: { name: 'echo' } };
const p = new ProgressUpdate(1);
const r = { content: [] };

describe('runMiddleware', () => {
  it('unsubscribes the request below when the caller unsubscribes, through every middleware', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const handler = cold<MiddlewareEvent>('--p----r|', { p, r });
      const outcomes: RequestOutcome[] = [];
      const passThrough: Middleware<MiddlewareRequest, unknown> = (_req, _ctx, next) => next().pipe(map((e) => e));
      const chain = [timing((o) => outcomes.push(o)), passThrough];
      expectObservable(
        runMiddleware(chain, request, {}, () => handler),
        '^---!',
      ).toBe('--p-', { p });
      expectSubscriptions(handler.subscriptions).toBe('^---!');
    });
  });

  it('passes the rewritten request to the next and keeps the method', () => {
    const seen: MiddlewareRequest[] = [];
    const rewrite: Middleware<MiddlewareRequest, unknown> = (req, _ctx, next) =>
      next({ method: 'elsewhere', params: { ...req.params, extra: 1 } });
    testScheduler().run(({ cold, expectObservable }) => {
      const result = runMiddleware([rewrite], request, {}, (req) => {
        seen.push(req);
        return cold('r|', { r });
      });
      expectObservable(result).toBe('r|', { r });
    });
    expect(seen).toEqual([{ method: 'tools/call', params: { name: 'echo', extra: 1 } }]);
  });

  it('times requests on the scheduler: result, error and cancellation', () => {
    const outcomes: RequestOutcome[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const chain = [timing((o) => outcomes.push(o))];
      const error = new JsonRpcError(-32003, 'no');
      expectObservable(runMiddleware(chain, request, {}, () => cold('---r|', { r }))).toBe('---r|', { r });
      expectObservable(runMiddleware(chain, request, {}, () => cold('-----#', undefined, error))).toBe(
        '-----#',
        undefined,
        error,
      );
      expectObservable(
        runMiddleware(chain, request, {}, () => cold('--p------r|', { p, r })),
        '^-------!',
      ).toBe('--p', { p });
    });
    expect(outcomes.map((o) => [o.outcome, o.durationMs, o.progressEvents])).toEqual([
      ['result', 4, 0],
      ['error', 5, 0],
      ['cancelled', 8, 1],
    ]);
  });
});

describe('retrying', () => {
  const clientRequest: ClientRequest = { ...request, options: {} };

  it('resubscribes after each delay, up to count, then gives up with the last error', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const error = new JsonRpcError(-32603, 'Internal error');
      const failing = cold<MiddlewareEvent>('-#', undefined, error);
      const retried = runMiddleware(
        [retrying({ count: 2, delayMs: (n) => n * 2 })],
        clientRequest,
        { revision: undefined, serverInfo: undefined, sessionId: undefined },
        () => failing,
      );
      expectObservable(retried).toBe('---------#', undefined, error);
      expectSubscriptions(failing.subscriptions).toBe(['^!', '---^!', '--------^!']);
    });
  });
});
