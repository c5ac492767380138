import { defer, map, NEVER, Observable, VirtualTimeScheduler } from 'rxjs';
import type { RequestContext } from '../../lib/connection/dispatcher';
import { createProxyRouter } from '../../lib/proxy/proxy-router';
import type { ProxyRouter } from '../../lib/proxy/proxy-router';

/** A modern caller's request as a handler sees it. */
function modernContext(requestId: number, progressToken?: number): RequestContext & { progressed: number[] } {
  const progressed: number[] = [];
  return {
    requestId,
    method: 'tools/call',
    revision: '2026-07-28',
    progressToken,
    peer: { revision: '2026-07-28', clientCapabilities: {}, clientInfo: undefined, logLevel: undefined },
    signal: new AbortController().signal,
    progress: (value: number) => void progressed.push(value),
    log: () => undefined,
    notify: () => undefined,
    request: () => NEVER,
    progressed,
  };
}

const SAMPLE = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 };

/** The upstream client asking its caller to sample, as a server's request would make it. */
const askSampling = (router: ProxyRouter) =>
  (router.clientOptions.sampling as unknown as (params: unknown) => Observable<{ model: string }>)(SAMPLE);

/** Virtual time: what has passed in the test so far. */
let now = 0;

/** What the round emits, or its error, once `ms` more of virtual time have passed. */
function outcome(round: Observable<unknown>, scheduler: VirtualTimeScheduler, ms = 0): unknown {
  let seen: unknown = 'nothing yet';
  round.subscribe({ next: (value) => (seen = value), error: (error: unknown) => (seen = error) });
  now += ms;
  scheduler.maxFrames = now;
  scheduler.flush();
  return seen;
}

describe('bridged calls: an upstream’s questions to a modern caller as input_required rounds', () => {
  let scheduler: VirtualTimeScheduler;
  let router: ProxyRouter;
  let upstreamRuns: number;
  let upstreamEnded: number;

  /** An upstream call that asks the caller to sample once, then answers with what it heard. */
  const upstreamCall = () =>
    new Observable<Record<string, unknown>>((subscriber) => {
      upstreamRuns++;
      const asking = defer(() => askSampling(router))
        .pipe(map((answer) => ({ content: [{ type: 'text', text: `model ${answer.model}` }] })))
        .subscribe(subscriber);
      return () => {
        upstreamEnded++;
        asking.unsubscribe();
      };
    });

  beforeEach(() => {
    scheduler = new VirtualTimeScheduler();
    now = 0;
    router = createProxyRouter({ scheduler, inputWaitMs: 1000 });
    upstreamRuns = 0;
    upstreamEnded = 0;
  });

  it('ends the first round with the question and a requestState, and the retry with the result', () => {
    const first = outcome(router.bridge({}, modernContext(1), upstreamCall), scheduler) as Record<string, unknown>;
    expect(first).toEqual({
      resultType: 'input_required',
      inputRequests: { '1': { method: 'sampling/createMessage', params: SAMPLE } },
      requestState: expect.any(String),
    });
    expect(router.bridged.size).toBe(1);
    const retry = {
      inputResponses: { '1': { role: 'assistant', content: {}, model: 'm1' } },
      requestState: first.requestState,
    };
    const second = outcome(router.bridge(retry, modernContext(2), upstreamCall), scheduler);
    expect(second).toEqual({ content: [{ type: 'text', text: 'model m1' }] });
    expect(upstreamRuns).toBe(1); // the upstream call ran once, across both rounds
    expect(router.bridged.size).toBe(0);
  });

  it('cancels the upstream call when no retry comes in time, and then refuses the late retry', () => {
    const first = outcome(router.bridge({}, modernContext(1), upstreamCall), scheduler) as Record<string, unknown>;
    expect(upstreamEnded).toBe(0);
    outcome(NEVER, scheduler, 999);
    expect(upstreamEnded).toBe(0);
    outcome(NEVER, scheduler, 2);
    expect(upstreamEnded).toBe(1);
    expect(() =>
      router.bridge({ inputResponses: {}, requestState: first.requestState }, modernContext(2), upstreamCall),
    ).toThrow(expect.objectContaining({ code: -32602, message: expect.stringMatching(/expired requestState/) }));
  });

  it('cancels the upstream call when the caller cancels before any question', () => {
    const slow = () =>
      new Observable<Record<string, unknown>>(() => {
        upstreamRuns++;
        return () => upstreamEnded++;
      });
    const round = router.bridge({}, modernContext(1), slow).subscribe();
    expect(upstreamRuns).toBe(1);
    round.unsubscribe();
    expect(upstreamEnded).toBe(1);
    expect(router.bridged.size).toBe(0);
  });

  it('asks again for what the retry left unanswered, under the same key', () => {
    const first = outcome(router.bridge({}, modernContext(1), upstreamCall), scheduler) as Record<string, unknown>;
    const again = outcome(
      router.bridge({ inputResponses: {}, requestState: first.requestState }, modernContext(2), upstreamCall),
      scheduler,
    ) as Record<string, unknown>;
    expect(again.resultType).toBe('input_required');
    expect(Object.keys(again.inputRequests as object)).toEqual(['1']);
    expect(again.requestState).toBe(first.requestState);
  });

  it('refuses an answer that is not an object', () => {
    const first = outcome(router.bridge({}, modernContext(1), upstreamCall), scheduler) as Record<string, unknown>;
    expect(() =>
      router.bridge(
        { inputResponses: { '1': 'yes' }, requestState: first.requestState },
        modernContext(2),
        upstreamCall,
      ),
    ).toThrow(/inputResponses\.1/);
  });

  it('sends the upstream’s progress to the caller of the round in progress', () => {
    let report: ((value: number) => void) | undefined;
    const progressing = (current: () => RequestContext) =>
      new Observable<Record<string, unknown>>((subscriber) => {
        report = (value) => current().progress(value);
        return defer(() => askSampling(router)).subscribe({
          next: () => subscriber.next({ content: [] }),
        });
      });
    const firstCaller = modernContext(1, 7);
    const first = outcome(router.bridge({}, firstCaller, progressing), scheduler) as Record<string, unknown>;
    report!(1);
    const secondCaller = modernContext(2, 8);
    router.bridge({ requestState: first.requestState }, secondCaller, progressing).subscribe();
    report!(2);
    expect(firstCaller.progressed).toEqual([1]);
    expect(secondCaller.progressed).toEqual([2]);
  });
});
