import { NEVER, Subject } from 'rxjs';
import { abortOnSignal, abortReasonText, whenAborted } from '../../lib/operators/abort-on-signal';

describe('abortOnSignal', () => {
  it('mirrors the source until the signal aborts, then errors with its reason and unsubscribes the source', () => {
    const controller = new AbortController();
    const source = new Subject<number>();
    const seen: unknown[] = [];
    source.pipe(abortOnSignal(controller.signal)).subscribe({
      next: (value) => seen.push(value),
      error: (error: unknown) => seen.push(['error', error]),
    });
    source.next(1);
    const reason = new Error('user left');
    controller.abort(reason);
    source.next(2);
    expect(seen).toEqual([1, ['error', reason]]);
    expect(source.observed).toBe(false);
  });

  it('errors at once, without subscribing, when the signal has already aborted', () => {
    const controller = new AbortController();
    controller.abort('too late');
    const source = new Subject<number>();
    const errors: unknown[] = [];
    source.pipe(abortOnSignal(controller.signal)).subscribe({ error: (error: unknown) => errors.push(error) });
    expect(errors).toEqual(['too late']);
    expect(source.observed).toBe(false);
  });

  it('passes the source through untouched without a signal, and stops listening on teardown', () => {
    const source = NEVER;
    expect(source.pipe(abortOnSignal(undefined))).toBe(source);
    const controller = new AbortController();
    const listening = jest.spyOn(controller.signal, 'removeEventListener');
    source.pipe(abortOnSignal(controller.signal)).subscribe().unsubscribe();
    expect(listening).toHaveBeenCalledWith('abort', expect.any(Function));
  });
});

describe('the abort parts the request path runs', () => {
  it('whenAborted calls back once, and not after it stopped listening', () => {
    const first = new AbortController();
    const calls: string[] = [];
    whenAborted(first.signal, () => calls.push('first'));
    first.abort();
    first.abort();
    const second = new AbortController();
    whenAborted(second.signal, () => calls.push('second'))();
    second.abort();
    expect(calls).toEqual(['first']);
  });

  it("abortReasonText says an Error's message, a string as it is, and a generic text otherwise", () => {
    const reasonOf = (reason: unknown) => {
      const controller = new AbortController();
      controller.abort(reason);
      return abortReasonText(controller.signal);
    };
    expect(reasonOf(new Error('closing the tab'))).toBe('closing the tab');
    expect(reasonOf('shutting down')).toBe('shutting down');
    expect(reasonOf(42)).toBe('The request was aborted');
  });
});
