import { Correlator } from '../../lib/connection/correlator';
import type { PendingRequest } from '../../lib/connection/correlator';

/** A request that notes what it was answered with. */
function pending(method: string): PendingRequest & { answers: unknown[] } {
  const answers: unknown[] = [];
  return {
    method,
    answers,
    resolve: (result) => answers.push(result),
    reject: (error) => answers.push(error),
    progress: () => undefined,
    partial: () => undefined,
  };
}

describe('Correlator', () => {
  it('forgets a request only when it is the one waiting under its id, in its slot or in the table', () => {
    const correlator = new Correlator();
    const [first, second, stranger] = [pending('a'), pending('b'), pending('c')];
    correlator.register(1, first);
    correlator.register(2, second);
    // Someone else's request under the same ids: nothing is forgotten.
    correlator.forget(1, stranger);
    correlator.forget(2, stranger);
    expect(correlator.size).toBe(2);
    correlator.forget(2, second);
    correlator.forget(1, first);
    expect(correlator.size).toBe(0);
    // A late response finds nobody waiting and is dropped.
    expect(correlator.settle({ jsonrpc: '2.0', id: 2, result: {} })).toBe(false);
    expect([first.answers, second.answers]).toEqual([[], []]);
  });

  it('settles each request once, from its slot or from the table', () => {
    const correlator = new Correlator();
    const [first, second] = [pending('a'), pending('b')];
    correlator.register(1, first);
    correlator.register(2, second);
    expect(correlator.settle({ jsonrpc: '2.0', id: 2, result: { n: 2 } })).toBe(true);
    expect(correlator.settle({ jsonrpc: '2.0', id: 1, result: { n: 1 } })).toBe(true);
    expect(correlator.settle({ jsonrpc: '2.0', id: 1, result: { n: 1 } })).toBe(false);
    expect([first.answers, second.answers, correlator.size]).toEqual([[{ n: 1 }], [{ n: 2 }], 0]);
  });
});
