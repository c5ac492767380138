import { filter, firstValueFrom, lastValueFrom, map, of, tap, throwError, toArray } from 'rxjs';
import type { McpClient } from '../../lib/client/client';
import { ProgressUpdate } from '../../lib/connection/handler-events';
import { isResultEvent } from '../../lib/connection/middleware';
import { metrics, timing } from '../../lib/connection/middleware-kit';
import type { RequestOutcome } from '../../lib/connection/middleware-kit';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import type { ServerMiddleware } from '../../lib/server/middleware';
import { until } from '../support/until';
import { clientOf, demoServer, textOf } from './harness';

describe('server middleware', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('runs in order, the first outermost, around the handler', async () => {
    const order: string[] = [];
    const mark =
      (name: string): ServerMiddleware =>
      (_request, _context, next) => {
        order.push(`${name} in`);
        return next().pipe(tap({ complete: () => order.push(`${name} out`) }));
      };
    const { server } = demoServer({ middleware: [mark('a'), mark('b')] });
    server.use(mark('c'));
    client = await clientOf(server);
    await client.promises.callTool('echo', { text: 'hi' });
    expect(order).toEqual(['a in', 'b in', 'c in', 'c out', 'b out', 'a out']);
  });

  it('sees the request context: method, revision, session and client info', async () => {
    const seen: unknown[] = [];
    const { server } = demoServer({
      middleware: [
        (request, context, next) => {
          seen.push({
            method: request.method,
            revision: context.revision,
            session: context.session?.id,
            client: context.clientInfo?.name,
          });
          return next();
        },
      ],
    });
    client = await clientOf(server);
    await client.promises.callTool('echo', { text: 'hi' });
    expect(seen).toEqual([
      { method: 'tools/call', revision: '2025-11-25', session: expect.any(String), client: 'middleware-client' },
    ]);
    expect((seen[0] as { session: string }).session).toBe([...server.sessions][0]!.id);
  });

  it('rewrites the arguments before the handler and the result after it', async () => {
    const shout: ServerMiddleware = (request, _context, next) => {
      if (request.method !== 'tools/call') return next();
      const args = request.params.arguments as { text: string };
      return next({ ...request, params: { ...request.params, arguments: { text: args.text.toUpperCase() } } }).pipe(
        map((event) =>
          isResultEvent(event) ? { ...event, content: [{ type: 'text', text: `${textOf(event)}!` }] } : event,
        ),
      );
    };
    const { server, seen } = demoServer({ middleware: [shout] });
    client = await clientOf(server);
    const result = await client.promises.callTool('echo', { text: 'hi' });
    expect(seen.echoArgs).toEqual([{ text: 'HI' }]);
    expect(textOf(result)).toBe('HI!');
  });

  it('checks rewritten arguments against the tool schema (a bad rewrite is the tool failing, not a crash)', async () => {
    const { server, seen } = demoServer({
      middleware: [(request, _c, next) => next({ ...request, params: { ...request.params, arguments: { text: 7 } } })],
    });
    client = await clientOf(server);
    const result = await client.promises.callTool('echo', { text: 'hi' });
    expect(result.isError).toBe(true);
    expect(seen.handlerRuns).toBe(0);
  });

  it('sees progress events as the handler emits them, before the result, and the client still gets them', async () => {
    const events: string[] = [];
    const { server } = demoServer({
      middleware: [
        (_request, _context, next) =>
          next().pipe(tap((event) => events.push(event instanceof ProgressUpdate ? `p${event.progress}` : 'result'))),
      ],
    });
    client = await clientOf(server);
    const received = await lastValueFrom(client.callTool('steps').pipe(toArray()));
    expect(events).toEqual(['p1', 'p2', 'p3', 'result']);
    expect(received.filter((event) => event.type === 'progress')).toHaveLength(3);
  });

  it('may drop progress events on their way to the client', async () => {
    const { server } = demoServer({
      middleware: [(_request, _context, next) => next().pipe(filter((event) => isResultEvent(event)))],
    });
    client = await clientOf(server);
    const received = await lastValueFrom(client.callTool('steps').pipe(toArray()));
    expect(received.map((event) => event.type)).toEqual(['result']);
  });

  it('passes the client’s cancellation through to the handler', async () => {
    const outcomes: RequestOutcome[] = [];
    const { server, seen } = demoServer({ middleware: [timing((outcome) => outcomes.push(outcome))] });
    client = await clientOf(server);
    const subscription = client.callTool('hang').subscribe();
    await until(() => server.sessions.size === 1 && [...server.sessions][0]!.connection.inFlightRequests === 1);
    subscription.unsubscribe();
    await until(() => seen.hangTornDown);
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['cancelled']);
  });

  it('answers with the JSON-RPC error a middleware fails with, and the handler does not run', async () => {
    const { server, seen } = demoServer({
      middleware: [() => throwError(() => new JsonRpcError(-32003, 'Forbidden: not today', { why: 'test' }))],
    });
    client = await clientOf(server);
    const error = await firstValueFrom(client.callTool('echo', { text: 'hi' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32003, message: 'Forbidden: not today', data: { why: 'test' } });
    expect(seen.handlerRuns).toBe(0);
  });

  it('answers -32603 without details when a middleware throws something else, and the server goes on', async () => {
    let calls = 0;
    const { server } = demoServer({
      middleware: [
        (_request, _context, next) => {
          if (calls++ === 0) throw new Error('middleware bug with a secret');
          return next();
        },
      ],
    });
    client = await clientOf(server);
    const error = await firstValueFrom(client.callTool('echo', { text: 'a' })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32603 });
    expect((error as Error).message).not.toContain('secret');
    expect(textOf(await client.promises.callTool('echo', { text: 'b' }))).toBe('b');
  });

  it('fails a request whose timing callback throws, as -32603, and serves the next one', async () => {
    let calls = 0;
    const { server } = demoServer({
      middleware: [
        timing(() => {
          if (calls++ === 0) throw new Error('callback bug');
        }),
      ],
    });
    client = await clientOf(server);
    await expect(client.promises.callTool('echo', { text: 'a' })).rejects.toMatchObject({ code: -32603 });
    expect(textOf(await client.promises.callTool('echo', { text: 'b' }))).toBe('b');
  });

  it('answers from a middleware without calling the handler', async () => {
    const { server, seen } = demoServer({
      middleware: [
        (request, _context, next) =>
          request.method === 'tools/call' && request.params.name === 'echo'
            ? of({ content: [{ type: 'text', text: 'short-circuit' }] })
            : next(),
      ],
    });
    client = await clientOf(server);
    expect(textOf(await client.promises.callTool('echo', { text: 'hi' }))).toBe('short-circuit');
    expect(seen.handlerRuns).toBe(0);
  });

  it('counts every method with metrics', async () => {
    const counted = metrics();
    const { server } = demoServer({ middleware: [counted] });
    client = await clientOf(server);
    await client.promises.callTool('echo', { text: 'hi' });
    await client.promises.callTool('broken');
    await firstValueFrom(client.listTools());
    const figures = counted.snapshot();
    expect(figures['tools/call echo']).toMatchObject({ count: 1, errors: 0, toolErrors: 0 });
    expect(figures['tools/call broken']).toMatchObject({ count: 1, errors: 0, toolErrors: 1 });
    expect(figures['tools/list']).toMatchObject({ count: 1 });
  });
});
