import { firstValueFrom } from 'rxjs';
import type { McpClient } from '../../lib/client/client';
import { logging } from '../../lib/connection/middleware-kit';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import { authorize, cache, rateLimit } from '../../lib/server/middleware-kit';
import type { ServerMiddleware } from '../../lib/server/middleware';
import { clientOf, demoServer, textOf, virtualClock } from './harness';

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** Stands in for what a protected endpoint verified: sets `context.auth` of every request. */
const asCaller =
  (scopes: readonly string[]): ServerMiddleware =>
  (request, context, next) => {
    Object.defineProperty(context, 'auth', { value: { scopes, clientId: 'app', claims: {} } });
    return next();
  };

describe('rateLimit', () => {
  let clients: McpClient[] = [];
  afterEach(() => {
    for (const client of clients) client.close();
    clients = [];
  });

  it('refuses the request past the limit with a JSON-RPC error saying when to retry, per session', async () => {
    const clock = virtualClock();
    const { server, seen } = demoServer({
      middleware: [rateLimit({ limit: 2, windowMs: 1000, scheduler: clock.scheduler })],
    });
    const first = await clientOf(server);
    const second = await clientOf(server);
    clients = [first, second];
    await first.promises.callTool('echo', { text: '1' });
    clock.advance(400);
    await first.promises.callTool('echo', { text: '2' });
    const refused = await failureOf(first.promises.callTool('echo', { text: '3' }));
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect(refused).toMatchObject({
      code: ErrorCode.RateLimited,
      data: { retryAfterMs: 600, limit: 2, windowMs: 1000 },
    });
    expect(seen.handlerRuns).toBe(2);
    // Another session has its own window.
    expect(textOf(await second.promises.callTool('echo', { text: 'other' }))).toBe('other');
    // The window passes: the first session may call again.
    clock.advance(600);
    expect(textOf(await first.promises.callTool('echo', { text: '4' }))).toBe('4');
  });

  it('counts only the requests `when` selects', async () => {
    const clock = virtualClock();
    const { server } = demoServer({
      middleware: [
        rateLimit({ limit: 1, windowMs: 1000, when: (r) => r.method === 'tools/call', scheduler: clock.scheduler }),
      ],
    });
    const client = await clientOf(server);
    clients = [client];
    await client.promises.callTool('echo', { text: '1' });
    await firstValueFrom(client.listTools());
    await firstValueFrom(client.listTools());
    expect(await failureOf(client.promises.callTool('echo', { text: '2' }))).toMatchObject({ code: -32029 });
  });

  it('refuses a limit that allows nothing', () => {
    expect(() => rateLimit({ limit: 0, windowMs: 1000 })).toThrow(RangeError);
  });
});

describe('cache', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('answers tools/list from the cache until ttlMs passes', async () => {
    const clock = virtualClock();
    const cached = cache({ ttlMs: 5000, scheduler: clock.scheduler });
    let lists = 0;
    const { server } = demoServer({
      middleware: [
        (request, _context, next) => {
          if (request.method === 'tools/list') lists++;
          return next();
        },
        cached,
        // Inside the cache: sees only the requests that reach the handler.
        (request, _context, next) => {
          if (request.method === 'tools/list') lists += 100;
          return next();
        },
      ],
    });
    client = await clientOf(server);
    const first = await firstValueFrom(client.listTools());
    clock.advance(4999);
    const second = await firstValueFrom(client.listTools());
    expect(second).toEqual(first);
    expect(lists).toBe(102);
    clock.advance(1);
    await firstValueFrom(client.listTools());
    expect(lists).toBe(203);
    cached.clear();
    await firstValueFrom(client.listTools());
    expect(lists).toBe(304);
  });

  it('keeps a read-only tool’s result by its arguments, and not a failed one', async () => {
    const clock = virtualClock();
    const { server, seen } = demoServer({
      middleware: [
        cache({
          ttlMs: 1000,
          when: (r) => r.method === 'tools/call' && ['echo', 'broken'].includes(r.params.name as string),
          scheduler: clock.scheduler,
        }),
      ],
    });
    client = await clientOf(server);
    await client.promises.callTool('echo', { text: 'a' });
    await client.promises.callTool('echo', { text: 'a' });
    await client.promises.callTool('echo', { text: 'b' });
    expect(seen.echoArgs).toEqual([{ text: 'a' }, { text: 'b' }]);
    await client.promises.callTool('broken');
    const again = await client.promises.callTool('broken');
    expect(again.isError).toBe(true);
    expect(seen.brokenRuns).toBe(2);
  });
});

describe('authorize', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('refuses a tool call whose caller lacks the tool’s scopes, naming them, and lets the others through', async () => {
    const { server, seen } = demoServer({
      middleware: [asCaller(['read']), authorize({ tools: { echo: ['read'], broken: ['admin', 'write'] } })],
    });
    client = await clientOf(server);
    expect(textOf(await client.promises.callTool('echo', { text: 'ok' }))).toBe('ok');
    const refused = await failureOf(client.promises.callTool('broken'));
    expect(refused).toMatchObject({
      code: ErrorCode.Forbidden,
      message: 'Forbidden: tools/call needs the scopes admin write',
    });
    expect(seen.handlerRuns).toBe(1);
  });

  it('refuses by a rule of its own, by tool name', async () => {
    const { server } = demoServer({
      middleware: [
        authorize({
          check: (request) => (request.params.name === 'steps' ? 'steps is switched off' : undefined),
        }),
      ],
    });
    client = await clientOf(server);
    expect(await failureOf(client.promises.callTool('steps'))).toMatchObject({
      code: -32003,
      message: 'Forbidden: steps is switched off',
    });
    expect(textOf(await client.promises.callTool('echo', { text: 'ok' }))).toBe('ok');
  });

  it('refuses a method by scope when the caller is anonymous', async () => {
    const { server } = demoServer({ middleware: [authorize({ methods: { 'tools/list': ['list'] } })] });
    client = await clientOf(server);
    expect(await failureOf(firstValueFrom(client.listTools()))).toMatchObject({
      message: 'Forbidden: tools/list needs the scope list',
    });
  });
});

describe('logging', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('logs method, tool name, duration and outcome of each request', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = {
      info: (...args: unknown[]) => lines.push({ level: 'info', args }),
      warn: (...args: unknown[]) => lines.push({ level: 'warn', args }),
      error: (...args: unknown[]) => lines.push({ level: 'error', args }),
    };
    const clock = virtualClock();
    const { server } = demoServer({
      middleware: [logging({ logger: sink, scheduler: clock.scheduler }), authorize({ tools: { steps: ['x'] } })],
    });
    client = await clientOf(server);
    await client.promises.callTool('echo', { text: 'hi' });
    await failureOf(client.promises.callTool('steps'));
    const text = JSON.stringify(lines);
    expect(text).toContain('"method":"tools/call"');
    expect(text).toContain('"name":"echo"');
    expect(text).toContain('"durationMs":0');
    expect(text).toContain('"outcome":"result"');
    expect(text).toContain('"outcome":"error"');
    expect(text).toContain('"code":-32003');
  });
});
