import { lastValueFrom, map, NEVER, Observable, of, throwError, toArray } from 'rxjs';
import type { Subscription } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { DeferredOutput, observeOutput } from '../../lib/connection/dispatcher';
import type { HandlerResult, OutputSink, RequestContext, RequestHandler } from '../../lib/connection/dispatcher';
import { admissionOf, RUN_MIDDLEWARE, withAdmission } from '../../lib/connection/middleware';
import type { Admission, MiddlewareEvent } from '../../lib/connection/middleware';
import { ErrorCode, JsonRpcError } from '../../lib/jsonrpc/errors';
import { withMiddleware } from '../../lib/server/middleware';
import { admitted, decidesAtOnce, replaceableMiddleware } from '../../lib/server/middleware-runner';
import type { ServerMiddleware } from '../../lib/server/middleware';
import { authorize, concurrencyLimit, rateLimit } from '../../lib/server/middleware-kit';
import type { McpServer } from '../../lib/server/server';
import { toolPolicy } from '../../lib/server/tool-policy';
import type { AuthInfo } from '../../lib/transport/transport';
import { authenticated } from '../support/authenticated';
import { linkedPair } from '../support/linked-pair';
import { until } from '../support/until';
import { demoServer } from './harness';

/** The same middleware with its decision taken away: the chain runs it as a stream. */
const asStream =
  (middleware: ServerMiddleware): ServerMiddleware =>
  (request, context, next) =>
    middleware(request, context, next);

/** A request context for a handler called outside a connection. */
function requestContext(method = 'tools/call'): RequestContext {
  return {
    requestId: 1,
    method,
    revision: '2025-11-25',
    signal: new AbortController().signal,
    progress: () => undefined,
    log: () => undefined,
    notify: () => undefined,
    request: () => NEVER,
  };
}

const SESSION = { id: 's-1', auth: undefined };

/** What `handler` inside `chain` gives for one request: its events, or its error. */
async function run(chain: ServerMiddleware[], handler: RequestHandler, method = 'tools/call'): Promise<unknown> {
  const output = withMiddleware(handler, chain)({ name: 'echo' }, requestContext(method), SESSION);
  return lastValueFrom(observeOutput(output).pipe(toArray())).catch((error: unknown) => ({ failed: error }));
}

/**
 * A middleware that decides at once, recording what it is asked and what it releases. Made as the
 * kit makes its own: through `admitted`, which has servers run such chains on the request's path.
 */
function recorded(name: string, log: string[], admission: () => Admission | 'hold'): ServerMiddleware {
  return admitted(
    withAdmission(
      (_request, _context, next) => {
        log.push(`${name} as a stream`);
        return next();
      },
      () => {
        log.push(`${name} asked`);
        const answer = admission();
        return answer === 'hold' ? { release: () => void log.push(`${name} released`) } : answer;
      },
    ),
  );
}

describe('middleware that decides at once', () => {
  const result = { content: [{ type: 'text', text: 'ok' }] };

  it('runs the handler of every form, once, after every decision', async () => {
    const log: string[] = [];
    const chain = [recorded('a', log, () => undefined), recorded('b', log, () => 'hold')];
    const handlers: RequestHandler[] = [
      () => result,
      () => Promise.resolve(result),
      () => of(result),
      () => undefined,
      () =>
        new (class extends DeferredOutput {
          start(sink: OutputSink<HandlerResult>) {
            sink.next(result);
            sink.complete();
            return undefined;
          }
        })(),
    ];
    for (const handler of handlers) expect(await run(chain, handler)).toEqual([handler === handlers[3] ? {} : result]);
    expect(log).toEqual(Array(5).fill(['a asked', 'b asked', 'b released']).flat());
  });

  it('refuses with the decision’s error before the handler runs, releasing what was held', async () => {
    const log: string[] = [];
    const refusal = new JsonRpcError(ErrorCode.RateLimited, 'no');
    let runs = 0;
    const chain = [recorded('a', log, () => 'hold'), recorded('b', log, () => refusal)];
    expect(await run(chain, () => void runs++)).toEqual({ failed: refusal });
    expect(runs).toBe(0);
    expect(log).toEqual(['a asked', 'b asked', 'a released']);
  });

  it('fails with what a decision or the handler throws', async () => {
    const thrown = new Error('boom');
    const throwing = withAdmission<never, never>(
      (_r, _c, next) => next(),
      () => {
        throw thrown;
      },
    ) as ServerMiddleware;
    expect(await run([throwing], () => result)).toEqual({ failed: thrown });
    const log: string[] = [];
    expect(
      await run([recorded('a', log, () => 'hold')], () => {
        throw thrown;
      }),
    ).toEqual({ failed: thrown });
    expect(await run([recorded('a', log, () => 'hold')], () => throwError(() => thrown))).toEqual({
      failed: thrown,
    });
    expect(log).toEqual(['a asked', 'a released', 'a asked', 'a released']);
  });

  it('releases once when the reader cancels, and stops the handler', async () => {
    const log: string[] = [];
    let torn = 0;
    const handler: RequestHandler = () => new Observable(() => () => void torn++);
    const output = withMiddleware(handler, [recorded('a', log, () => 'hold')])({}, requestContext(), SESSION);
    const subscription: Subscription = observeOutput(output).subscribe();
    expect(log).toEqual(['a asked']);
    subscription.unsubscribe();
    subscription.unsubscribe();
    expect(torn).toBe(1);
    expect(log).toEqual(['a asked', 'a released']);
  });

  it('runs the rest of the chain as streams from a middleware that asks to run, or that cannot decide', async () => {
    const log: string[] = [];
    const upper: ServerMiddleware = (_request, _context, next) =>
      next().pipe(map((event: MiddlewareEvent) => ({ ...event, seen: true })));
    const chain = [
      recorded('a', log, () => 'hold'),
      recorded('b', log, () => RUN_MIDDLEWARE),
      upper,
      recorded('c', log, () => undefined),
    ];
    expect(await run(chain, () => result)).toEqual([{ ...result, seen: true }]);
    // `c` comes after a middleware that cannot decide at once: it runs as a stream.
    expect(log).toEqual(['a asked', 'b asked', 'b as a stream', 'c as a stream', 'a released']);
  });

  it('is carried by the limits and policies of the kit', () => {
    const kit = [
      rateLimit({ limit: 1, windowMs: 1000 }),
      concurrencyLimit({ limit: 1 }),
      toolPolicy({ tools: {} }),
      authorize({ tools: {} }),
    ];
    for (const middleware of kit) expect(admissionOf(middleware)).toBeInstanceOf(Function);
    // A store that may wait cannot decide at once.
    expect(
      admissionOf(
        rateLimit({ limit: 1, windowMs: 1000, store: { hit: () => Promise.resolve({ count: 1, resetInMs: 1 }) } }),
      ),
    ).toBeUndefined();
  });
});

describe('a replaceable middleware', () => {
  const result = { content: [{ type: 'text', text: 'ok' }] };

  it('runs its list in its place; a replaced list applies to the requests that start after', async () => {
    const log: string[] = [];
    const policies = replaceableMiddleware([recorded('a', log, () => 'hold')]);
    const handler = withMiddleware(() => of(result), [recorded('outer', log, () => undefined), policies.middleware]);
    let release!: () => void;
    const slow = withMiddleware(
      () => new Observable((subscriber) => void (release = () => (subscriber.next(result), subscriber.complete()))),
      [policies.middleware],
    );
    const under = lastValueFrom(observeOutput(slow({}, requestContext(), SESSION)));
    expect(await lastValueFrom(observeOutput(handler({}, requestContext(), SESSION)))).toEqual(result);
    policies.replace([recorded('b', log, () => new JsonRpcError(ErrorCode.Forbidden, 'no'))]);
    await expect(lastValueFrom(observeOutput(handler({}, requestContext(), SESSION)))).rejects.toMatchObject({
      code: ErrorCode.Forbidden,
    });
    // The request under way keeps what it started with: it ends, releasing its hold of `a`.
    release();
    expect(await under).toEqual(result);
    expect(log).toEqual(['a asked', 'outer asked', 'a asked', 'a released', 'outer asked', 'b asked', 'a released']);
  });

  it('decides at once while its list does, and runs as a stream in a chain run as streams', async () => {
    const policies = replaceableMiddleware([rateLimit({ limit: 1, windowMs: 1000 })]);
    expect(decidesAtOnce(policies.middleware)).toBe(true);
    policies.replace([asStream(rateLimit({ limit: 1, windowMs: 1000 }))]);
    expect(decidesAtOnce(policies.middleware)).toBe(false);
    const chain = [asStream((_r, _c, next) => next()), policies.middleware];
    expect(await run(chain, () => result)).toEqual([result]);
    expect(await run(chain, () => result)).toMatchObject({ failed: { code: ErrorCode.RateLimited } });
  });
});

/** The same scenarios through a server whose middleware decides at once, and one whose runs as streams. */
describe.each([
  ['decided at once', (middleware: ServerMiddleware) => middleware],
  ['run as streams', asStream],
])('the kit’s limits and policies, %s', (_form, form) => {
  let clients: McpClient[] = [];
  afterEach(() => {
    for (const client of clients) client.close();
    clients = [];
  });
  const user = (sub: string, scopes: string[] = []): AuthInfo => ({
    subject: sub,
    scopes,
    claims: { iss: 'https://issuer.example', sub },
  });
  async function sessionAs(server: McpServer, auth: AuthInfo): Promise<McpClient> {
    const { client, server: serverSide } = linkedPair();
    server.connect(authenticated(serverSide, auth));
    const session = await connect(client, { name: 'admission', version: '1.0.0', protocolVersion: '2025-11-25' });
    clients.push(session);
    return session;
  }
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: { code?: number }) => error.code,
    );

  it('counts, caps and filters alike', async () => {
    const { server, seen } = demoServer({
      middleware: [
        form(toolPolicy({ tools: { steps: { scopes: ['admin'] } } })),
        form(authorize({ tools: { broken: ['never'] } })),
        form(rateLimit({ limit: 3, windowMs: 60_000, when: (request) => request.method === 'tools/call' })),
        form(concurrencyLimit({ limit: 1 })),
      ],
    });
    const alice = await sessionAs(server, user('alice'));
    const tools = (await alice.promises.listTools()).map((tool) => tool.name);
    expect(tools).not.toContain('steps');
    expect(await codeOf(alice.promises.callTool('steps'))).toBe(ErrorCode.Forbidden);
    expect(await codeOf(alice.promises.callTool('broken'))).toBe(ErrorCode.Forbidden);
    const hanging = alice.callTool('hang').subscribe({ error: () => undefined });
    await alice.promises.listTools();
    expect(await codeOf(alice.promises.callTool('echo', { text: 'x' }))).toBe(ErrorCode.RateLimited);
    hanging.unsubscribe();
    await until(() => seen.hangTornDown);
    // The third call of the window passes; the fourth is past the rate limit.
    expect(await codeOf(alice.promises.callTool('echo', { text: 'y' }))).toBe('ok');
    expect(await codeOf(alice.promises.callTool('echo', { text: 'z' }))).toBe(ErrorCode.RateLimited);
    expect(seen.echoArgs).toEqual([{ text: 'y' }]);
    const bob = await sessionAs(server, user('bob', ['admin']));
    expect((await bob.promises.listTools()).map((tool) => tool.name)).toContain('steps');
  });
});
