import type { Observable } from 'rxjs';
import { backoffDelay, reconnecting } from '../../lib/proxy/reconnect';
import type { ReconnectEvent } from '../../lib/proxy/reconnect';
import { testScheduler } from '../support/test-scheduler';

interface Link {
  readonly name: string;
  readonly closed$: Observable<unknown>;
}

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the maximum', () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(retry, options))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('takes up to the jitter’s share off each wait, at random', () => {
    expect(backoffDelay(2, { initialDelayMs: 100, jitter: 0.5, random: () => 0.5 })).toBe(150);
    expect(backoffDelay(2, { initialDelayMs: 100, jitter: 0.5, random: () => 0 })).toBe(200);
  });
});

describe('reconnecting', () => {
  it('retries a failed attempt after the backoff, and again after a connection that closes', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const refused = new Error('refused');
      const first: Link = { name: 'first', closed$: cold('-----x') };
      const second: Link = { name: 'second', closed$: cold('-') };
      const attempts = [cold<Link>('--#', undefined, refused), cold('-a', { a: first }), cold('-b', { b: second })];
      const seen: number[] = [];
      const connect = (attempt: number) => {
        seen.push(attempt);
        return attempts[seen.length - 1]!;
      };
      const events = reconnecting(connect, (link: Link) => link.closed$, { initialDelayMs: 10 });
      expectObservable(events).toBe('--f 10ms a 4ms c 10ms b', {
        f: { type: 'retrying', reason: 'failed', error: refused, attempt: 1, delayMs: 10 },
        a: { type: 'connected', value: first, attempt: 1 },
        c: { type: 'retrying', reason: 'closed', error: undefined, attempt: 1, delayMs: 10 },
        b: { type: 'connected', value: second, attempt: 1 },
      } satisfies Record<string, ReconnectEvent<Link>>);
      expectSubscriptions(attempts[1]!.subscriptions).toBe('12ms ^!');
    });
  });

  it('gives up after maxAttempts failures in a row, the waits growing', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const refused = new Error('refused');
      const connect = () => cold<Link>('-#', undefined, refused);
      const events = reconnecting(connect, (link: Link) => link.closed$, { initialDelayMs: 10, maxAttempts: 2 });
      expectObservable(events).toBe('-a 10ms b 20ms (c|)', {
        a: { type: 'retrying', reason: 'failed', error: refused, attempt: 1, delayMs: 10 },
        b: { type: 'retrying', reason: 'failed', error: refused, attempt: 2, delayMs: 20 },
        c: { type: 'gave-up', error: refused, attempts: 2 },
      });
    });
  });

  it('stops trying when unsubscribed, abandoning the attempt in flight', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const attempt = cold<Link>('------a');
      const events = reconnecting(
        () => attempt,
        (link: Link) => link.closed$,
      );
      expectObservable(events, '^--!').toBe('---');
      expectSubscriptions(attempt.subscriptions).toBe('^--!');
    });
  });

  it('counts a connector that completes with no connection as a failed attempt', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = reconnecting(
        () => cold<Link>('-|'),
        (link: Link) => link.closed$,
        { initialDelayMs: 5, maxAttempts: 0 },
      );
      expectObservable(events).toBe('-(g|)', {
        g: { type: 'gave-up', error: new Error('the connector completed without a connection'), attempts: 0 },
      });
    });
  });
});
