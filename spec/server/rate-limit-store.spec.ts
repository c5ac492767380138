import { createMemoryRateLimitStore } from '../../lib/server/rate-limit-store';
import type { RateLimitHit } from '../../lib/server/rate-limit-store';

// The in-memory rate limit store: fixed windows per limit name and caller, on the caller's clock.

const hit = (
  store: ReturnType<typeof createMemoryRateLimitStore>,
  caller: string,
  now: number,
  name = 'calls',
  windowMs = 1000,
) => store.hit({ caller, name, windowMs, now }) as RateLimitHit;

describe('createMemoryRateLimitStore', () => {
  it('counts each caller in each limit apart, in a window that starts with its first request', () => {
    const store = createMemoryRateLimitStore();
    expect(hit(store, 'alice', 100)).toEqual({ count: 1, resetInMs: 1000 });
    expect(hit(store, 'alice', 400)).toEqual({ count: 2, resetInMs: 700 });
    expect(hit(store, 'bob', 400)).toEqual({ count: 1, resetInMs: 1000 });
    expect(hit(store, 'alice', 400, 'daily', 86_400_000)).toEqual({ count: 1, resetInMs: 86_400_000 });
    expect(hit(store, 'alice', 1099)).toEqual({ count: 3, resetInMs: 1 });
    expect(hit(store, 'alice', 1100)).toEqual({ count: 1, resetInMs: 1000 });
  });

  it('drops ended windows past sweepAbove and keeps counting the windows still open', () => {
    const store = createMemoryRateLimitStore({ sweepAbove: 4 });
    hit(store, 'open', 0, 'calls', 10_000);
    hit(store, 'open', 1, 'calls', 10_000);
    for (let i = 0; i < 20; i++) hit(store, `passing-${i}`, i * 100, 'other', 50);
    expect(hit(store, 'open', 5000, 'calls', 10_000)).toEqual({ count: 3, resetInMs: 5000 });
    expect(hit(store, 'passing-0', 5000, 'other', 50)).toEqual({ count: 1, resetInMs: 50 });
  });
});
