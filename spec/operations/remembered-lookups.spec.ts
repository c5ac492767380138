import { asyncScheduler } from 'rxjs';
import { admissionOf } from '../../lib/connection/middleware';
import type { AdmissionHold, MiddlewareRequest } from '../../lib/connection/middleware';
import { MAX_METHOD_SERIES, ServerMetrics } from '../../lib/operations/server-metrics';
import { concurrencyLimit } from '../../lib/server/middleware-kit';
import { counterOf, createMemoryRateLimitStore } from '../../lib/server/rate-limit-store';
import type { RateLimitHit } from '../../lib/server/rate-limit-store';
import type { ServerContext } from '../../lib/server/server-context';

// What the metrics and the limits keep of the lookup they made last (the method's series, the
// caller's window or slots) never stands in for another's: callers and methods taking turns, and
// the sweeps that drop idle entries, count as they would with a lookup every time.

describe('the lookups the metrics and the limits remember', () => {
  it('counts methods that take turns each in its own series, and the methods past the bound in `other`', () => {
    const metrics = new ServerMetrics();
    for (const method of ['tools/call', 'tools/list', 'tools/call', 'tools/call', 'tools/list'])
      metrics.observe(method, 'ok', 0.002);
    metrics.observe('tools/call', 'error', 0.002);
    const series = (text: string, method: string) =>
      text.split('\n').filter((line) => line.startsWith(`mcp_requests_total{method="${method}"`));
    const text = metrics.render();
    expect(series(text, 'tools/call')).toEqual([
      'mcp_requests_total{method="tools/call",outcome="ok"} 3',
      'mcp_requests_total{method="tools/call",outcome="error"} 1',
    ]);
    expect(series(text, 'tools/list')).toEqual(['mcp_requests_total{method="tools/list",outcome="ok"} 2']);

    const bounded = new ServerMetrics();
    for (let i = 0; i < MAX_METHOD_SERIES; i++) bounded.observe(`m/${i}`, 'ok', 0.002);
    for (const method of ['late/a', 'late/a', 'm/0', 'late/b', 'm/0']) bounded.observe(method, 'ok', 0.002);
    const after = bounded.render();
    expect(series(after, 'other')).toEqual(['mcp_requests_total{method="other",outcome="ok"} 3']);
    expect(series(after, 'm/0')).toEqual(['mcp_requests_total{method="m/0",outcome="ok"} 3']);
    expect(series(after, 'late/a')).toEqual([]);
  });

  it('counts the windows of callers and limits that take turns on one store apart, through sweeps', () => {
    const store = createMemoryRateLimitStore({ sweepAbove: 3 });
    const hit = (caller: string, now: number, name = 'calls') =>
      (store.hit({ caller, name, windowMs: 100, now }) as RateLimitHit).count;
    expect([hit('a', 0), hit('b', 0), hit('a', 1), hit('a', 2, 'daily'), hit('a', 3), hit('b', 3)]).toEqual([
      1, 1, 2, 1, 3, 2,
    ]);
    // a's and b's windows ended: new callers sweep them; a counts from one again, in a window kept.
    expect([hit('c', 150), hit('d', 150), hit('a', 150), hit('e', 150), hit('a', 151), hit('c', 151)]).toEqual([
      1, 1, 1, 1, 2, 2,
    ]);
    expect([hit('a', 152), hit('a', 152, 'daily'), hit('a', 153)]).toEqual([3, 1, 4]);
  });

  it('counts on the default clock, a caller remembered and another in turn, each in its own window', () => {
    const store = createMemoryRateLimitStore({ sweepAbove: 2 });
    const counter = counterOf(store)!;
    const count = (caller: string, name = 'calls') => counter(caller, name, 60_000, 10, asyncScheduler).count;
    expect([count('a'), count('a'), count('b'), count('a'), count('b'), count('a', 'other'), count('a')]).toEqual([
      1, 2, 1, 3, 2, 1, 4,
    ]);
    // Past the limit, each caller's own count still says so.
    for (let i = 0; i < 6; i++) count('a');
    expect([count('b'), count('a')]).toEqual([3, 11]);
  });

  it('holds the slots of callers that take turns apart, and of a caller after idle ones were swept', () => {
    const middleware = concurrencyLimit({
      limit: 1,
      when: () => true,
      key: (request) => request.params.caller as string,
    });
    const admit = admissionOf(middleware)!;
    const context = {} as ServerContext;
    const call = (caller: string) => admit({ method: 'tools/call', params: { caller } } as MiddlewareRequest, context);
    const held = call('a') as AdmissionHold;
    expect(call('b')).toMatchObject({ taken: 1 });
    expect(call('a')).toBeInstanceOf(Error);
    expect(call('b')).toBeInstanceOf(Error);
    // Enough idle callers that the map is swept while a still holds its place.
    for (let i = 0; i < 1100; i++) (call(`idle-${i}`) as AdmissionHold).release();
    expect(call('a')).toBeInstanceOf(Error);
    held.release();
    const again = call('a') as AdmissionHold;
    expect(call('a')).toBeInstanceOf(Error);
    again.release();
    expect(call('a')).not.toBeInstanceOf(Error);
  });
});
