import { asyncScheduler } from 'rxjs';
import { counterOf, createMemoryRateLimitStore } from '../../lib/server/rate-limit-store';

/** The in-memory store on the default clock: a timer closes each window, so a count under the limit reads no clock. */
describe('the in-memory store on the default clock', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  const counting = () => {
    const store = createMemoryRateLimitStore();
    const counter = counterOf(store)!;
    return {
      store,
      count: (caller = 'alice') => {
        const window = counter(caller, 'calls', 1000, 2, asyncScheduler);
        return { count: window.count, end: window.end };
      },
    };
  };

  it('counts a window from its first request and starts another once a timer saw it end', () => {
    const { count } = counting();
    expect(count()).toEqual({ count: 1, end: 1_001_000 });
    jest.advanceTimersByTime(400);
    expect(count()).toEqual({ count: 2, end: 1_001_000 });
    expect(count()).toEqual({ count: 3, end: 1_001_000 });
    expect(count('bob')).toEqual({ count: 1, end: 1_001_400 });
    jest.advanceTimersByTime(600);
    expect(count()).toEqual({ count: 1, end: 1_002_000 });
    expect(count('bob')).toEqual({ count: 2, end: 1_001_400 });
  });

  it('reads the clock for a request that would be refused, so a late timer refuses nothing past the end', () => {
    const { count } = counting();
    count();
    count();
    // The clock moves past the window's end, the timer has not run yet.
    jest.setSystemTime(1_001_000);
    expect(count()).toEqual({ count: 1, end: 1_002_000 });
  });

  it('keeps counting on the clock it is given by `hit`, in the same windows', () => {
    const { store, count } = counting();
    count();
    expect(store.hit({ caller: 'alice', name: 'calls', windowMs: 1000, now: 1_000_500 })).toEqual({
      count: 2,
      resetInMs: 500,
    });
    // `hit` starts a new window past the end; the timer of the old one closes the new one only once it ended.
    expect(store.hit({ caller: 'alice', name: 'calls', windowMs: 1000, now: 1_001_000 })).toEqual({
      count: 1,
      resetInMs: 1000,
    });
    jest.setSystemTime(1_001_000);
    jest.advanceTimersByTime(500);
    expect(count()).toEqual({ count: 2, end: 1_002_000 });
    jest.advanceTimersByTime(500);
    expect(count()).toEqual({ count: 1, end: 1_003_000 });
  });

  it('keeps no timer waiting once the windows closed', () => {
    const { count } = counting();
    count();
    count('bob');
    expect(jest.getTimerCount()).toBe(2);
    jest.advanceTimersByTime(1000);
    expect(jest.getTimerCount()).toBe(0);
  });
});
