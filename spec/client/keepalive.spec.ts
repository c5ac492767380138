import { NEVER, throwError } from 'rxjs';
import type { Observable } from 'rxjs';
import { keepalive, KeepaliveTimeoutError } from '../../lib/client/keepalive';
import { testScheduler } from '../support/test-scheduler';

describe('keepalive', () => {
  it('[keepalive.ping] pings every interval and reports 0 missed while the peer answers', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      let pings = 0;
      const ping = () => {
        pings++;
        return cold('-a|');
      };
      expectObservable(keepalive(ping, { intervalMs: 5 }), '^------------------!').toBe('------z----z----z---', {
        z: 0,
      });
      expect(pings).toBe(0); // nothing before subscription: cold
    });
  });

  it('[keepalive.dead] errors with KeepaliveTimeoutError after maxMissed unanswered pings in a row', () => {
    testScheduler().run(({ expectObservable }) => {
      const ping = () => NEVER;
      // Ticks at 5 and 10, each ping's deadline 3 later.
      expectObservable(keepalive(ping, { intervalMs: 5, timeoutMs: 3, maxMissed: 2 })).toBe(
        '--------a----(b#)',
        { a: 1, b: 2 },
        new KeepaliveTimeoutError(2, 5),
      );
    });
  });

  it('[keepalive.reset] an answer resets the count of missed pings; errors count as missed', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const answers: Array<() => Observable<string>> = [
        () => throwError(() => new Error('boom')),
        () => cold('a|'),
        () => throwError(() => new Error('boom')),
        () => throwError(() => new Error('boom')),
      ];
      let call = 0;
      const ping = () => answers[call++]!();
      expectObservable(keepalive(ping, { intervalMs: 2, maxMissed: 2 })).toBe(
        '--a-b-a-(c#)',
        { a: 1, b: 0, c: 2 },
        new KeepaliveTimeoutError(2, 2),
      );
    });
  });

  it('skips ticks while a ping is still out, so pings never overlap', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const answer = cold('-------a|');
      expectObservable(
        keepalive(() => answer, { intervalMs: 3, timeoutMs: 10 }),
        '^-------------------!',
      ).toBe('----------z--------z', { z: 0 });
      expectSubscriptions(answer.subscriptions).toBe(['---^------!', '------------^------!']);
    });
  });

  it('stops the timer and the ping in flight when unsubscribed', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const answer = cold('----a|');
      expectObservable(
        keepalive(() => answer, { intervalMs: 3, timeoutMs: 10 }),
        '^----!',
      ).toBe('------');
      expectSubscriptions(answer.subscriptions).toBe('---^-!');
    });
  });

  it('refuses a non-positive interval or maxMissed', () => {
    expect(() => keepalive(() => NEVER, { intervalMs: 0 })).toThrow(RangeError);
    expect(() => keepalive(() => NEVER, { intervalMs: 1, maxMissed: 0 })).toThrow(RangeError);
  });
});
