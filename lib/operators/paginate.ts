import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
import { concatMap, defer, Observable, take } from '../rx/rxjs';
import type { ObservableInput, Subscription } from '../rx/rxjs';

/** Options of {@link paginatePages}. */
export interface PaginatePagesOptions<P> {
  /** Fetches one page: `undefined` for the first, then each `nextCursor`. Only its first value is used. */
  readonly fetchPage: (cursor: string | undefined) => ObservableInput<P>;
  /** The cursor of the page after this one; `undefined` or `''` when this page is the last. */
  readonly nextCursor: (page: P) => string | undefined;
  /** Fetch at most this many pages; a listing that would need more errors with {@link PageLimitError}. Default: no limit. */
  readonly maxPages?: number;
}

/** Options of {@link paginate}. */
export interface PaginateOptions<P, T> extends PaginatePagesOptions<P> {
  /** The items of a page, in order. */
  readonly items: (page: P) => readonly T[];
}

/**
 * The listing had more pages than `maxPages` allows. Everything up to the limit was delivered
 * before this error; `nextCursor` is where the listing would have gone on, so a caller can resume.
 */
export class PageLimitError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.PageLimit;
  override readonly name = 'PageLimitError';

  constructor(
    readonly maxPages: number,
    readonly nextCursor: string,
  ) {
    super(
      `Listing cut after ${maxPages} page(s) (maxPages); the server has more (next cursor ${JSON.stringify(nextCursor)})`,
    );
  }
}

/** The server returned a cursor it had already returned, which would make the listing loop forever. */
export class RepeatedCursorError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.RepeatedCursor;
  override readonly name = 'RepeatedCursorError';

  constructor(
    readonly cursor: string,
    readonly pagesFetched: number,
  ) {
    super(
      `The server returned cursor ${JSON.stringify(cursor)} again after ${pagesFetched} page(s); stopping the listing`,
    );
  }
}

/** A page fetch completed without producing a page. */
export class MissingPageError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.MissingPage;
  override readonly name = 'MissingPageError';

  constructor(readonly cursor: string | undefined) {
    super(
      cursor === undefined
        ? 'Fetching the first page completed without a page'
        : `Fetching the page at cursor ${JSON.stringify(cursor)} completed without a page`,
    );
  }
}

/**
 * All pages of a cursor-paginated listing, in order, as one Observable. The next page is fetched
 * only once the previous one has arrived (and been delivered); the listing completes after a page
 * without a next cursor.
 *
 * Cold: each subscriber starts from the first page. Unsubscribing unsubscribes the page fetch in
 * flight and fetches nothing more, so `take(n)` downstream stops the listing early.
 *
 * Errors: a fetch's error is forwarded; a cursor seen before errors with {@link RepeatedCursorError};
 * more pages than `maxPages` error with {@link PageLimitError} (a cut listing is never passed off as
 * complete; catch the error to accept a partial one); a fetch that completes empty errors with
 * {@link MissingPageError}. In each case the pages received so far have been delivered first.
 *
 * @example
 * ```ts
 * const pages$ = paginatePages({
 *   fetchPage: (cursor) => client.request('tools/list', cursor === undefined ? {} : { cursor }),
 *   nextCursor: (page) => page.nextCursor,
 * });
 * ```
 */
export function paginatePages<P>(options: PaginatePagesOptions<P>): Observable<P> {
  const { fetchPage, nextCursor, maxPages = Infinity } = options;
  if (!(maxPages >= 1) || (Number.isFinite(maxPages) && !Number.isInteger(maxPages))) {
    throw new RangeError(`paginate: maxPages must be a positive integer or Infinity, got ${maxPages}`);
  }

  return new Observable<P>((subscriber) => {
    const seen = new Set<string>();
    let pagesFetched = 0;
    let inFlight: Subscription | undefined;
    // A trampoline: fetches that answer synchronously queue the next fetch instead of recursing,
    // so a long synchronous listing does not grow the stack.
    let queued: { readonly cursor: string | undefined } | undefined = { cursor: undefined };
    let pumping = false;

    const arrived = (cursor: string | undefined, page: P): void => {
      pagesFetched++;
      let next: string | undefined;
      try {
        next = nextCursor(page);
      } catch (error) {
        subscriber.error(error);
        return;
      }
      subscriber.next(page);
      if (subscriber.closed) return;
      if (next === undefined || next === '') subscriber.complete();
      else if (seen.has(next) || next === cursor) subscriber.error(new RepeatedCursorError(next, pagesFetched));
      else if (pagesFetched >= maxPages) subscriber.error(new PageLimitError(maxPages, next));
      else {
        seen.add(next);
        queued = { cursor: next };
        pump();
      }
    };

    const fetch = (cursor: string | undefined): void => {
      let page: { readonly value: P } | undefined;
      inFlight = defer(() => fetchPage(cursor))
        .pipe(take(1))
        .subscribe({
          next: (value) => (page = { value }),
          error: (error: unknown) => subscriber.error(error),
          complete: () => (page ? arrived(cursor, page.value) : subscriber.error(new MissingPageError(cursor))),
        });
    };

    const pump = (): void => {
      if (pumping) return;
      pumping = true;
      while (queued !== undefined && !subscriber.closed) {
        const { cursor } = queued;
        queued = undefined;
        fetch(cursor);
      }
      pumping = false;
    };

    pump();
    return () => inFlight?.unsubscribe();
  });
}

/**
 * All items of a cursor-paginated listing, across pages, as one Observable: {@link paginatePages}
 * with each page's `items` emitted in order. Same laziness, errors and cancellation: cold, the next
 * page is fetched only after the previous page's items were emitted, and unsubscribing (or a
 * downstream `take`) unsubscribes the fetch in flight and fetches no more.
 *
 * @example
 * ```ts
 * const tools$ = paginate({
 *   fetchPage: (cursor) => client.request('tools/list', cursor === undefined ? {} : { cursor }),
 *   items: (page) => page.tools,
 *   nextCursor: (page) => page.nextCursor,
 *   maxPages: 100,
 * });
 * ```
 */
export function paginate<P, T>(options: PaginateOptions<P, T>): Observable<T> {
  const { items } = options;
  return paginatePages(options).pipe(concatMap((page) => items(page)));
}
