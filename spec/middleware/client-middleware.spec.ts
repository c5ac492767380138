import { firstValueFrom, lastValueFrom, tap, toArray } from 'rxjs';
import type { McpClient } from '../../lib/client/client';
import { retrying, withMeta } from '../../lib/client/middleware';
import type { ClientMiddleware } from '../../lib/client/middleware';
import { ProgressUpdate } from '../../lib/connection/handler-events';
import { RequestSent } from '../../lib/connection/middleware';
import { metrics, timing } from '../../lib/connection/middleware-kit';
import type { RequestOutcome } from '../../lib/connection/middleware-kit';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import type { ServerMiddleware } from '../../lib/server/middleware';
import { until } from '../support/until';
import { clientOf, demoServer, textOf, virtualClock } from './harness';

/** A server middleware that records the `_meta` of each tools/call. */
function metaRecorder(into: unknown[]): ServerMiddleware {
  return (request, _context, next) => {
    if (request.method === 'tools/call') into.push(request.params._meta);
    return next();
  };
}

/** A server middleware that fails the first `times` tools/call requests with `error`. */
function failing(times: number, error: () => Error): ServerMiddleware {
  let left = times;
  return (request, _context, next) => {
    if (request.method === 'tools/call' && left-- > 0) throw error();
    return next();
  };
}

describe('client middleware', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('runs in order around every request the client sends, with its context', async () => {
    const order: string[] = [];
    const mark =
      (name: string): ClientMiddleware =>
      (request, context, next) => {
        order.push(`${name} ${request.method} ${context.revision ?? 'connecting'}`);
        return next();
      };
    const { server } = demoServer();
    client = await clientOf(server, { middleware: [mark('a'), mark('b')] });
    await client.promises.callTool('echo', { text: 'hi' });
    expect(order).toEqual(['a tools/call 2025-11-25', 'b tools/call 2025-11-25']);
  });

  it('adds _meta to the request on the wire; the caller’s fields win', async () => {
    const metas: unknown[] = [];
    const { server } = demoServer({ middleware: [metaRecorder(metas)] });
    client = await clientOf(server, {
      middleware: [
        withMeta((request) => (request.method === 'tools/call' ? { 'example.com/tenant': 't1', a: 1 } : undefined)),
      ],
    });
    await client.promises.callTool('echo', { text: 'hi' }, { meta: { a: 2 }, progress: false });
    expect(metas).toEqual([{ 'example.com/tenant': 't1', a: 2 }]);
  });

  it('retries a failed request with a new id, after a delay on the scheduler', async () => {
    const clock = virtualClock();
    const { server, seen } = demoServer({
      middleware: [failing(2, () => new JsonRpcError(-32603, 'Internal error'))],
    });
    const attempts: string[] = [];
    client = await clientOf(server, {
      middleware: [
        retrying({ count: 2, delayMs: (n) => n * 100, scheduler: clock.scheduler }),
        (request, _context, next) => {
          attempts.push(request.method);
          return next();
        },
      ],
    });
    const result = client.promises.callTool('echo', { text: 'third time' });
    await until(() => attempts.length === 1);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(100);
    await until(() => attempts.length === 2);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(200);
    expect(textOf(await result)).toBe('third time');
    expect(attempts).toHaveLength(3);
    expect(seen.handlerRuns).toBe(1);
  });

  it('does not retry an error a retry cannot mend, nor past count', async () => {
    const { server } = demoServer({ middleware: [failing(5, () => new JsonRpcError(-32602, 'Invalid params: x'))] });
    let attempts = 0;
    client = await clientOf(server, {
      middleware: [
        retrying({ count: 3 }),
        (_r, _c, next) => {
          attempts++;
          return next();
        },
      ],
    });
    await expect(client.promises.callTool('echo', { text: 'x' })).rejects.toMatchObject({ code: -32602 });
    expect(attempts).toBe(1);
  });

  it('times each request and sees its progress as it streams; the caller still gets the progress', async () => {
    const outcomes: RequestOutcome[] = [];
    const events: string[] = [];
    const counted = metrics();
    const { server } = demoServer();
    client = await clientOf(server, {
      middleware: [
        timing((outcome) => outcomes.push(outcome)),
        counted,
        (_r, _c, next) =>
          next().pipe(
            tap((event) =>
              events.push(
                event instanceof ProgressUpdate ? 'progress' : event instanceof RequestSent ? 'sent' : 'result',
              ),
            ),
          ),
      ],
    });
    const received = await lastValueFrom(client.callTool('steps').pipe(toArray()));
    expect(events).toEqual(['sent', 'progress', 'progress', 'progress', 'result']);
    expect(received.map((event) => event.type)).toEqual(['progress', 'progress', 'progress', 'result']);
    expect(outcomes).toMatchObject([{ method: 'tools/call', outcome: 'result', progressEvents: 3 }]);
    expect(counted.snapshot()['tools/call steps']).toMatchObject({ count: 1, errors: 0 });
  });

  it('passes the caller’s cancellation through to the server’s handler', async () => {
    const outcomes: RequestOutcome[] = [];
    const { server, seen } = demoServer();
    client = await clientOf(server, { middleware: [timing((outcome) => outcomes.push(outcome))] });
    const subscription = client.callTool('hang').subscribe();
    await until(() => [...server.sessions][0]?.connection.inFlightRequests === 1);
    subscription.unsubscribe();
    await until(() => seen.hangTornDown);
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['cancelled']);
  });

  it('tells middleware the id of each request as it goes out, before its result', async () => {
    const { server } = demoServer();
    const events: string[] = [];
    client = await clientOf(server, {
      middleware: [
        (_r, _c, next) =>
          next().pipe(tap((event) => events.push(event instanceof RequestSent ? `sent ${event.id}` : 'result'))),
      ],
    });
    await client.promises.callTool('echo', { text: 'a' }, { progress: false });
    await client.promises.callTool('echo', { text: 'b' }, { progress: false });
    expect(events).toEqual([
      expect.stringMatching(/^sent \d+$/),
      'result',
      expect.stringMatching(/^sent \d+$/),
      'result',
    ]);
    expect(events[0]).not.toBe(events[2]);
  });

  it('sends a request with no params as it would without middleware', async () => {
    const { server } = demoServer();
    const methods: string[] = [];
    client = await clientOf(server, {
      middleware: [
        (request, _c, next) => {
          methods.push(`${request.method} ${JSON.stringify(request.params)}`);
          return next();
        },
      ],
    });
    await client.promises.ping();
    await firstValueFrom(client.listTools());
    expect(methods).toEqual(['ping {}', 'tools/list {}']);
  });
});
