import { Observable, Subject, VirtualTimeScheduler } from 'rxjs';
import type { Subscription } from 'rxjs';
import { createConnection } from '../../lib/connection/create-connection';
import type { Connection } from '../../lib/connection/connection';
import { RequestTimeoutError } from '../../lib/jsonrpc/errors';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { abortOnSignal } from '../../lib/operators/abort-on-signal';
import { cancelOnUnsubscribe, timeoutCancelReason } from '../../lib/operators/cancel-on-unsubscribe';
import { timeoutWithReset } from '../../lib/operators/timeout-with-reset';
import type { Transport } from '../../lib/transport/transport';

// One set of request semantics, two implementations: the operators the design names
// (timeoutWithReset, cancelOnUnsubscribe, abortOnSignal) composed over a request, and the fused
// request pipeline behind Connection.request. Every scenario runs against both on a virtual clock
// and both must end the same way (#12).

type Step = readonly [atMs: number, action: 'respond' | 'progress' | 'abort' | 'unsubscribe'];

interface Scenario {
  readonly name: string;
  readonly idleMs: number;
  readonly totalMs?: number;
  readonly steps: readonly Step[];
  readonly expected: { readonly values: number; readonly error?: string; readonly cancels: number };
}

/** One request under test: what the peer sees and what the caller gets. */
interface Harness {
  readonly result$: Observable<unknown>;
  respond(): void;
  progress(): void;
  readonly cancels: number;
}

function viaOperators(scheduler: VirtualTimeScheduler, scenario: Scenario, signal: AbortSignal): Harness {
  let cancels = 0;
  const responses = new Subject<unknown>();
  const progress = new Subject<void>();
  const request = new Observable<unknown>((subscriber) =>
    responses.subscribe((value) => {
      subscriber.next(value);
      subscriber.complete();
    }),
  );
  const result$ = request.pipe(
    timeoutWithReset({
      idleMs: scenario.idleMs,
      totalMs: scenario.totalMs,
      resets: progress,
      resetOnValue: false,
      scheduler,
    }),
    abortOnSignal(signal),
    cancelOnUnsubscribe({
      onCancel: () => cancels++,
      reasonForError: (error) =>
        timeoutCancelReason(error) ?? (signal.aborted && error === signal.reason ? 'aborted' : undefined),
    }),
  );
  return {
    result$,
    respond: () => responses.next({ ok: true }),
    progress: () => progress.next(),
    get cancels() {
      return cancels;
    },
  };
}

/**
 * `Connection.startRequest`: the sink is no subscriber, so nothing tears the call down when it
 * fails (a timeout or an abort must cancel it by itself); only the caller's unsubscribe does.
 */
function viaSink(scheduler: VirtualTimeScheduler, scenario: Scenario, signal: AbortSignal): Harness {
  const wire = modernClient(scheduler);
  const result$ = new Observable<unknown>((subscriber) => {
    let ended = false;
    const handle = wire.connection.startRequest(
      'tools/call',
      { name: 'x' },
      { timeoutMs: scenario.idleMs, maxTotalTimeoutMs: scenario.totalMs, onProgress: () => undefined, signal },
      {
        next: (value) => subscriber.next(value),
        error: (error) => {
          ended = true;
          subscriber.error(error);
        },
        complete: () => {
          ended = true;
          subscriber.complete();
        },
      },
    );
    return () => {
      if (!ended) handle?.unsubscribe();
    };
  });
  return withResult(wire.harness, result$);
}

function viaConnection(scheduler: VirtualTimeScheduler, scenario: Scenario, signal: AbortSignal): Harness {
  const wire = modernClient(scheduler);
  const result$ = wire.connection.request(
    'tools/call',
    { name: 'x' },
    { timeoutMs: scenario.idleMs, maxTotalTimeoutMs: scenario.totalMs, onProgress: () => undefined, signal },
  );
  return withResult(wire.harness, result$);
}

/** `harness` with the request's result (its `cancels` read when asked, not copied). */
function withResult(harness: Omit<Harness, 'result$'>, result$: Observable<unknown>): Harness {
  return {
    result$,
    respond: harness.respond,
    progress: harness.progress,
    get cancels() {
      return harness.cancels;
    },
  };
}

/** A client connection on a hand-driven transport, and how the peer answers its last request. */
function modernClient(scheduler: VirtualTimeScheduler): {
  connection: Connection;
  harness: Omit<Harness, 'result$'>;
} {
  const incoming = new Subject<unknown>();
  const sent: JsonRpcMessage[] = [];
  const transport: Transport = {
    incoming$: incoming,
    closed$: new Subject(),
    send: (message) => void sent.push(message as JsonRpcMessage),
    close: () => undefined,
  };
  const connection = createConnection({
    transport,
    role: 'client',
    info: { name: 'c', version: '1' },
    scheduler,
    validateResults: false,
  });
  connection.useModern('2026-07-28');
  const lastId = () => (sent.filter((message) => 'id' in message && 'method' in message).at(-1) as { id: number }).id;
  return {
    connection,
    harness: {
      respond: () => incoming.next({ jsonrpc: '2.0', id: lastId(), result: { ok: true } }),
      progress: () =>
        incoming.next({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: lastId(), progress: 1 },
        }),
      get cancels() {
        return sent.filter((message) => 'method' in message && message.method === 'notifications/cancelled').length;
      },
    },
  };
}

function play(make: typeof viaOperators, scenario: Scenario) {
  const scheduler = new VirtualTimeScheduler();
  const abort = new AbortController();
  const harness = make(scheduler, scenario, abort.signal);
  let values = 0;
  let error: string | undefined;
  const subscription: Subscription = harness.result$.subscribe({
    next: () => values++,
    error: (failure: unknown) => {
      error =
        failure instanceof RequestTimeoutError
          ? `timeout:${failure.deadline}`
          : failure === abort.signal.reason
            ? 'aborted'
            : String(failure);
    },
  });
  for (const [atMs, action] of scenario.steps) {
    scheduler.schedule(() => {
      if (action === 'respond') harness.respond();
      else if (action === 'progress') harness.progress();
      else if (action === 'abort') abort.abort(new Error('stop'));
      else subscription.unsubscribe();
    }, atMs);
  }
  scheduler.flush();
  subscription.unsubscribe();
  return { values, ...(error === undefined ? {} : { error }), cancels: harness.cancels };
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'a response in time', idleMs: 100, steps: [[50, 'respond']], expected: { values: 1, cancels: 0 } },
  {
    name: 'the idle timeout',
    idleMs: 100,
    steps: [[500, 'respond']],
    expected: { values: 0, error: 'timeout:idle', cancels: 1 },
  },
  {
    name: 'progress resetting the idle timeout',
    idleMs: 100,
    steps: [
      [80, 'progress'],
      [160, 'progress'],
      [240, 'respond'],
    ],
    expected: { values: 1, cancels: 0 },
  },
  {
    name: 'the total cap despite progress',
    idleMs: 100,
    totalMs: 200,
    steps: [
      [80, 'progress'],
      [160, 'progress'],
      [240, 'progress'],
      [300, 'respond'],
    ],
    expected: { values: 0, error: 'timeout:total', cancels: 1 },
  },
  {
    name: 'cancel on unsubscribe',
    idleMs: 100,
    steps: [
      [30, 'unsubscribe'],
      [60, 'respond'],
    ],
    expected: { values: 0, cancels: 1 },
  },
  {
    name: 'no cancel after the response',
    idleMs: 100,
    steps: [
      [30, 'respond'],
      [60, 'unsubscribe'],
    ],
    expected: { values: 1, cancels: 0 },
  },
  {
    name: 'an abort signal',
    idleMs: 100,
    steps: [
      [30, 'abort'],
      [60, 'respond'],
    ],
    expected: { values: 0, error: 'aborted', cancels: 1 },
  },
  {
    name: 'a late response after the timeout',
    idleMs: 100,
    steps: [[300, 'respond']],
    expected: { values: 0, error: 'timeout:idle', cancels: 1 },
  },
];

describe.each([
  ['the operators', viaOperators],
  ['Connection.request', viaConnection],
  ['Connection.startRequest', viaSink],
])('request semantics through %s', (_name, make) => {
  it.each(SCENARIOS.map((scenario) => [scenario.name, scenario] as const))('%s', (_scenario, scenario) => {
    expect(play(make, scenario)).toEqual(scenario.expected);
  });
});
