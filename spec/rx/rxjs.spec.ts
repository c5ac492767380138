import * as rxjs from 'rxjs';
import * as rx from '../../lib/rx/rxjs';

// lib/rx/rxjs.ts: RxJS as the library loads it, the creators and operators on first read.

const LAZY = [
  'defer',
  'forkJoin',
  'from',
  'interval',
  'merge',
  'of',
  'race',
  'throwError',
  'timer',
  'catchError',
  'concatMap',
  'exhaustMap',
  'filter',
  'finalize',
  'last',
  'map',
  'share',
  'skip',
  'switchMap',
  'take',
  'takeUntil',
  'tap',
  'toArray',
] as const;

describe('the RxJS the library uses', () => {
  it('gives each creator and operator as RxJS has it, read through a getter that then leaves the value', () => {
    const exported = rx as unknown as Record<string, unknown>;
    for (const name of LAZY) {
      const before = Object.getOwnPropertyDescriptor(exported, name);
      expect(before?.get).toBeInstanceOf(Function);
      expect(exported[name]).toBe((rxjs as unknown as Record<string, unknown>)[name]);
      const after = Object.getOwnPropertyDescriptor(exported, name)!;
      expect(after.get).toBeUndefined();
      expect(after.value).toBe((rxjs as unknown as Record<string, unknown>)[name]);
      expect(after.enumerable).toBe(true);
    }
  });

  it('works as RxJS does: an Observable piped through operators loaded on first use', async () => {
    const out = await rx.lastValueFrom(
      rx.of(1, 2, 3).pipe(
        rx.map((n) => n * 2),
        rx.filter((n) => n > 2),
        rx.toArray(),
      ),
    );
    expect(out).toEqual([4, 6]);
  });
});
