import { of, take, throwError, EMPTY } from 'rxjs';
import type { Observable } from 'rxjs';
import {
  MissingPageError,
  PageLimitError,
  paginate,
  paginatePages,
  RepeatedCursorError,
} from '../../lib/operators/paginate';
import { testScheduler } from '../support/test-scheduler';

interface Page {
  readonly items: readonly string[];
  readonly nextCursor?: string;
}

const page = (items: readonly string[], nextCursor?: string): Page =>
  nextCursor === undefined ? { items } : { items, nextCursor };

/** A fetchPage over marble pages keyed by cursor ('first' for the first page), recording the cursors asked for. */
function server(pages: Record<string, Observable<Page>>) {
  const cursors: (string | undefined)[] = [];
  const fetchPage = (cursor: string | undefined): Observable<Page> => {
    cursors.push(cursor);
    const found = pages[cursor ?? 'first'];
    if (found === undefined) throw new Error(`no page at ${String(cursor)}`);
    return found;
  };
  return { fetchPage, cursors };
}

const listing = { items: (p: Page) => p.items, nextCursor: (p: Page) => p.nextCursor };

describe('paginate', () => {
  it('emits the items of every page in order, fetching each page after the previous one arrives', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold('--p|', { p: page(['a', 'b'], 'c1') });
      const second = cold('-----p|', { p: page(['c'], 'c2') });
      const third = cold('-p|', { p: page(['d', 'e']) });
      const { fetchPage } = server({ first, c1: second, c2: third });
      const expected = '--(ab)-c(de|)';
      expectObservable(paginate({ ...listing, fetchPage })).toBe(expected, {
        a: 'a',
        b: 'b',
        c: 'c',
        d: 'd',
        e: 'e',
      });
      expectSubscriptions(first.subscriptions).toBe('^-!');
      expectSubscriptions(second.subscriptions).toBe('--^----!');
      expectSubscriptions(third.subscriptions).toBe('-------^!');
    });
  });

  it('is cold: nothing is fetched before subscribe, and each subscriber starts from the first page', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold('-p|', { p: page(['a']) });
      const { fetchPage, cursors } = server({ first });
      const items$ = paginate({ ...listing, fetchPage });
      expect(cursors).toEqual([]);
      expectObservable(items$).toBe('-(a|)');
      expectObservable(items$, '---^').toBe('----(a|)');
      expectSubscriptions(first.subscriptions).toBe(['^!', '---^!']);
    });
  });

  it('goes on past an empty page that has a cursor', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { fetchPage } = server({
        first: cold('-p|', { p: page([], 'c1') }),
        c1: cold('-p|', { p: page([], 'c2') }),
        c2: cold('-p|', { p: page(['z']) }),
      });
      expectObservable(paginate({ ...listing, fetchPage })).toBe('---(z|)');
    });
  });

  it('completes on an empty last page', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { fetchPage } = server({
        first: cold('-p|', { p: page(['a'], 'c1') }),
        c1: cold('-p|', { p: page([]) }),
      });
      expectObservable(paginate({ ...listing, fetchPage })).toBe('-a|');
    });
  });

  it('treats an empty cursor as the end of the listing', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { fetchPage } = server({ first: cold('-p|', { p: page(['a'], '') }) });
      expectObservable(paginate({ ...listing, fetchPage })).toBe('-(a|)');
    });
  });

  it('errors with RepeatedCursorError when the server returns the same cursor twice', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold('-p|', { p: page(['a'], 'same') });
      const again = cold('-p|', { p: page(['b'], 'same') });
      const { fetchPage } = server({ first, same: again });
      expectObservable(paginate({ ...listing, fetchPage })).toBe(
        '-a(b#)',
        undefined,
        new RepeatedCursorError('same', 2),
      );
      expectSubscriptions(again.subscriptions).toBe('-^!');
    });
  });

  it('errors with RepeatedCursorError when the cursors go round in a cycle', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const { fetchPage, cursors } = server({
        first: cold('-p|', { p: page(['a'], 'x') }),
        x: cold('-p|', { p: page(['b'], 'y') }),
        y: cold('-p|', { p: page(['c'], 'x') }),
      });
      expectObservable(paginate({ ...listing, fetchPage })).toBe('-ab(c#)', undefined, new RepeatedCursorError('x', 3));
      flush();
      expect(cursors).toEqual([undefined, 'x', 'y']);
    });
  });

  it('errors with PageLimitError after maxPages pages when the server has more', () => {
    const caught: unknown[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold('-p|', { p: page(['a'], 'c1') });
      const second = cold('-p|', { p: page(['b'], 'c2') });
      const third = cold('-p|', { p: page(['c']) });
      const { fetchPage } = server({ first, c1: second, c2: third });
      const items$ = paginate({ ...listing, fetchPage, maxPages: 2 });
      expectObservable(items$).toBe('-a(b#)', undefined, new PageLimitError(2, 'c2'));
      expectSubscriptions(third.subscriptions).toBe([]);
      items$.subscribe({ error: (e: unknown) => caught.push(e) });
    });
    expect(caught[0]).toBeInstanceOf(PageLimitError);
    expect(caught[0]).toMatchObject({ maxPages: 2, nextCursor: 'c2' });
  });

  it('completes when the last page arrives exactly at maxPages', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { fetchPage } = server({
        first: cold('-p|', { p: page(['a'], 'c1') }),
        c1: cold('-p|', { p: page(['b']) }),
      });
      expectObservable(paginate({ ...listing, fetchPage, maxPages: 2 })).toBe('-a(b|)');
    });
  });

  it('unsubscribes the page in flight and fetches no more when unsubscribed mid-way', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const first = cold('-p|', { p: page(['a'], 'c1') });
      const second = cold('----p|', { p: page(['b'], 'c2') });
      const third = cold('-p|', { p: page(['c']) });
      const { fetchPage, cursors } = server({ first, c1: second, c2: third });
      expectObservable(paginate({ ...listing, fetchPage }), '---!').toBe('-a-');
      expectSubscriptions(second.subscriptions).toBe('-^-!');
      expectSubscriptions(third.subscriptions).toBe([]);
      flush();
      expect(cursors).toEqual([undefined, 'c1']);
    });
  });

  it('fetches no further page when a downstream take has what it needs', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold('-p|', { p: page(['a', 'b', 'c'], 'c1') });
      const second = cold('-p|', { p: page(['d']) });
      const { fetchPage } = server({ first, c1: second });
      expectObservable(paginate({ ...listing, fetchPage }).pipe(take(2))).toBe('-(ab|)');
      expectSubscriptions(second.subscriptions).toBe([]);
    });
  });

  it('passes an error of a page fetch through after the items before it', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { fetchPage } = server({
        first: cold('-p|', { p: page(['a'], 'c1') }),
        c1: cold('--#', undefined, new Error('server error')),
      });
      expectObservable(paginate({ ...listing, fetchPage })).toBe('-a-#', undefined, new Error('server error'));
    });
  });

  it('errors with MissingPageError when a fetch completes without a page', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const { fetchPage } = server({
        first: cold('-p|', { p: page(['a'], 'c1') }),
        c1: cold('--|'),
      });
      expectObservable(paginate({ ...listing, fetchPage })).toBe('-a-#', undefined, new MissingPageError('c1'));
    });
  });

  it('turns a synchronous throw of fetchPage into an error', () => {
    const errors: unknown[] = [];
    paginate({ ...listing, fetchPage: () => throwError(() => new Error('x')) }).subscribe({
      error: (e) => errors.push(e),
    });
    paginate({
      ...listing,
      fetchPage: (): Observable<Page> => {
        throw new Error('sync');
      },
    }).subscribe({
      error: (e) => errors.push(e),
    });
    expect(errors).toEqual([new Error('x'), new Error('sync')]);
  });

  it('walks a long synchronous listing without growing the stack', () => {
    const total = 20_000;
    let count = 0;
    let completed = false;
    paginate<number, number>({
      fetchPage: (cursor) => of(cursor === undefined ? 0 : Number(cursor)),
      items: (n) => [n],
      nextCursor: (n) => (n + 1 < total ? String(n + 1) : undefined),
    }).subscribe({ next: () => count++, complete: () => (completed = true) });
    expect(count).toBe(total);
    expect(completed).toBe(true);
  });

  it('uses only the first value of a page fetch', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold('-pq|', { p: page(['a']), q: page(['b']) });
      const { fetchPage } = server({ first });
      expectObservable(paginate({ ...listing, fetchPage })).toBe('-(a|)');
      expectSubscriptions(first.subscriptions).toBe('^!');
    });
  });

  it('rejects a maxPages that is not a positive integer when called', () => {
    expect(() => paginate({ ...listing, fetchPage: () => EMPTY, maxPages: 0 })).toThrow(RangeError);
    expect(() => paginate({ ...listing, fetchPage: () => EMPTY, maxPages: 1.5 })).toThrow(RangeError);
  });
});

describe('paginatePages', () => {
  it('emits each page as it arrives', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const p1 = page(['a'], 'c1');
      const p2 = page([]);
      const { fetchPage } = server({ first: cold('-p|', { p: p1 }), c1: cold('--p|', { p: p2 }) });
      expectObservable(paginatePages({ fetchPage, nextCursor: (p: Page) => p.nextCursor })).toBe('-x-(y|)', {
        x: p1,
        y: p2,
      });
    });
  });

  it('asks for the first page without a cursor and then for each next cursor', () => {
    const { fetchPage, cursors } = server({
      first: of(page(['a'], 'c1')),
      c1: of(page(['b'], 'c2')),
      c2: of(page(['c'])),
    });
    paginatePages({ fetchPage, nextCursor: (p: Page) => p.nextCursor }).subscribe();
    expect(cursors).toEqual([undefined, 'c1', 'c2']);
  });
});
