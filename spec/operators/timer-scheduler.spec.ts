import { timer } from 'rxjs';
import { timerScheduler } from '../../lib/operators/timer-scheduler';

describe('timerScheduler', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs work after its delay, once, with its state', () => {
    const seen: unknown[] = [];
    timerScheduler.schedule((state) => seen.push(state), 100, 'a');
    jest.advanceTimersByTime(99);
    expect(seen).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(seen).toEqual(['a']);
    jest.advanceTimersByTime(1000);
    expect(seen).toEqual(['a']);
  });

  it('runs nothing once unsubscribed, and the action is closed', () => {
    const work = jest.fn();
    const action = timerScheduler.schedule(work, 50);
    action.unsubscribe();
    jest.advanceTimersByTime(100);
    expect(work).not.toHaveBeenCalled();
    expect(action.closed).toBe(true);
  });

  it('lets work schedule itself again, as RxJS actions do', () => {
    const ticks: number[] = [];
    timerScheduler.schedule(
      function (count) {
        ticks.push(count ?? 0);
        if ((count ?? 0) < 2) this.schedule((count ?? 0) + 1, 10);
      },
      10,
      0,
    );
    jest.advanceTimersByTime(100);
    expect(ticks).toEqual([0, 1, 2]);
  });

  it('drives RxJS operators in place of asyncScheduler', () => {
    const values: number[] = [];
    timer(30, timerScheduler).subscribe((value) => values.push(value));
    jest.advanceTimersByTime(30);
    expect(values).toEqual([0]);
  });
});

describe('timerScheduler on real Node timers', () => {
  it('unrefs and refs its timer, so a waiting deadline alone does not hold the process', () => {
    // Node lists a timer among the resources that keep the event loop alive only while it is ref'd.
    const held = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    const before = held();
    const action = timerScheduler.schedule(() => undefined, 60_000);
    try {
      expect(held()).toBe(before + 1);
      action.unref();
      expect(held()).toBe(before);
      action.ref();
      expect(held()).toBe(before + 1);
    } finally {
      action.unsubscribe();
    }
    expect(held()).toBe(before);
  });
});
