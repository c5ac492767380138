import { defer } from 'rxjs';
import { cachedList } from '../../lib/client/cached-list';
import { testScheduler } from '../support/test-scheduler';

describe('cachedList', () => {
  it('[lists.cached] fetches on first subscription and replays the list to later subscribers', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      let fetches = 0;
      const changed$ = hot<unknown>('--------');
      const list$ = cachedList({ fetch: () => defer(() => (fetches++, cold('--a|', { a: ['x'] }))), changed$ });
      expectObservable(list$, '^-------').toBe('--a-----', { a: ['x'] });
      expectObservable(list$, '----^---').toBe('----a---', { a: ['x'] });
      expect(fetches).toBe(0);
    });
  });

  it('[lists.list-changed] fetches again on each change, abandoning a refresh in flight', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const responses = [cold('-a|', { a: ['1'] }), cold('---b|', { b: ['2'] }), cold('-c|', { c: ['3'] })];
      let n = 0;
      const changed$ = hot<unknown>('----x-y------|');
      const list$ = cachedList({ fetch: () => responses[n++]!, changed$ });
      expectObservable(list$).toBe('-a-----c-----|', { a: ['1'], c: ['3'] });
      expectSubscriptions(responses[1]!.subscriptions).toBe('----^-!');
    });
  });

  it('keeps following changes with no subscriber, so a later subscriber gets the refreshed list', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const responses = [cold('a|', { a: ['old'] }), cold('b|', { b: ['new'] })];
      let n = 0;
      const changed$ = hot<unknown>('---x----');
      const list$ = cachedList({ fetch: () => responses[n++]!, changed$ });
      expectObservable(list$, '^-!').toBe('a---', { a: ['old'] });
      expectObservable(list$, '-----^-').toBe('-----b-', { b: ['new'] });
    });
  });

  it('resets after a failed fetch so the next subscriber fetches afresh', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const responses = [cold<string[]>('#', undefined, new Error('down')), cold('a|', { a: ['ok'] })];
      let n = 0;
      const changed$ = hot<unknown>('-------');
      const list$ = cachedList({ fetch: () => responses[n++]!, changed$ });
      expectObservable(list$).toBe('#', undefined, new Error('down'));
      expectObservable(list$, '--^--').toBe('--a--', { a: ['ok'] });
    });
  });

  it('[caching.ttl] refreshes for a subscriber that arrives once the list went stale, not before, and never by itself', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const responses = [cold('a|', { a: ['old'] }), cold('--b|', { b: ['new'] })];
      let n = 0;
      let freshUntil = 0;
      const changed$ = hot<unknown>('----------');
      const list$ = cachedList({
        fetch: () => responses[n++]!,
        changed$,
        freshUntil: () => freshUntil,
      });
      // Fresh until frame 3 (in run mode, asyncScheduler's clock counts frames).
      freshUntil = 3;
      const lists = { a: ['old'], b: ['new'] };
      expectObservable(list$, '^---------').toBe('a------b--', lists);
      expectObservable(list$, '--^-------').toBe('--a----b--', lists);
      expectObservable(list$, '-----^----').toBe('-----a-b--', lists);
    });
  });
});
