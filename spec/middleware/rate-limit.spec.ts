import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { ErrorCode, JsonRpcError } from '../../lib/jsonrpc/errors';
import { rateLimit } from '../../lib/server/middleware-kit';
import { createMemoryRateLimitStore } from '../../lib/server/rate-limit-store';
import type { RateLimitStore } from '../../lib/server/rate-limit-store';
import type { McpServer } from '../../lib/server/server';
import type { AuthInfo } from '../../lib/transport/transport';
import { authenticated } from '../support/authenticated';
import { linkedPair } from '../support/linked-pair';
import { clientOf, demoServer, textOf, virtualClock } from './harness';

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const user = (sub: string): AuthInfo => ({ subject: sub, scopes: [], claims: { iss: 'https://issuer.example' } });

let clients: McpClient[] = [];
afterEach(() => {
  for (const client of clients) client.close();
  clients = [];
});

/** A session of `server` whose requests carry `auth`, as a protected endpoint would give them. */
async function sessionAs(server: McpServer, auth: AuthInfo): Promise<McpClient> {
  const { client, server: serverSide } = linkedPair();
  server.connect(authenticated(serverSide, auth));
  const session = await connect(client, { name: 'rate-client', version: '1.0.0', protocolVersion: '2025-11-25' });
  clients.push(session);
  return session;
}

const echo = (client: McpClient, text: string) => client.promises.callTool('echo', { text });

describe('rateLimit per principal', () => {
  it('counts a user’s sessions together (a new session does not reset the count), and another user apart', async () => {
    const clock = virtualClock();
    const { server, seen } = demoServer({
      middleware: [
        rateLimit({ limit: 2, windowMs: 1000, when: (r) => r.method === 'tools/call', scheduler: clock.scheduler }),
      ],
    });
    const alice1 = await sessionAs(server, user('alice'));
    await echo(alice1, '1');
    const alice2 = await sessionAs(server, user('alice'));
    await echo(alice2, '2');
    const alice3 = await sessionAs(server, user('alice'));
    expect(await failureOf(echo(alice3, '3'))).toMatchObject({ code: ErrorCode.RateLimited });
    expect(await failureOf(echo(alice1, '4'))).toMatchObject({ code: ErrorCode.RateLimited });
    const bob = await sessionAs(server, user('bob'));
    expect(textOf(await echo(bob, 'bob'))).toBe('bob');
    expect(seen.handlerRuns).toBe(3);
  });

  it('says when to retry, by the clock, in the message and in data, with the limit’s name and window', async () => {
    const clock = virtualClock();
    const { server } = demoServer({
      middleware: [
        rateLimit({
          name: 'calls',
          limit: 1,
          windowMs: 60_000,
          when: (r) => r.method === 'tools/call',
          scheduler: clock.scheduler,
        }),
      ],
    });
    const alice = await sessionAs(server, user('alice'));
    await echo(alice, '1');
    clock.advance(15_000);
    const refused = await failureOf(echo(alice, '2'));
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect(refused).toMatchObject({
      code: -32029,
      message: 'Rate limit exceeded (calls): 1 requests per 60000 ms; retry in 45000 ms',
      data: { retryAfterMs: 45_000, name: 'calls', limit: 1, windowMs: 60_000 },
    });
    clock.advance(44_999);
    expect(await failureOf(echo(alice, '3'))).toMatchObject({ data: { retryAfterMs: 1 } });
    clock.advance(1);
    expect(textOf(await echo(alice, '4'))).toBe('4');
  });

  it('keeps two limits on one store apart by name', async () => {
    const clock = virtualClock();
    const store = createMemoryRateLimitStore();
    const calls = (r: { method: string }) => r.method === 'tools/call';
    const { server } = demoServer({
      middleware: [
        rateLimit({ name: 'burst', limit: 2, windowMs: 1000, when: calls, store, scheduler: clock.scheduler }),
        rateLimit({ name: 'daily', limit: 3, windowMs: 86_400_000, when: calls, store, scheduler: clock.scheduler }),
      ],
    });
    const alice = await sessionAs(server, user('alice'));
    await echo(alice, '1');
    await echo(alice, '2');
    expect(await failureOf(echo(alice, '3'))).toMatchObject({ data: { name: 'burst' } });
    clock.advance(1000);
    await echo(alice, '4');
    expect(await failureOf(echo(alice, '5'))).toMatchObject({ data: { name: 'daily', retryAfterMs: 86_399_000 } });
  });
});

describe('rateLimit with a store that fails', () => {
  const broken: RateLimitStore = { hit: () => Promise.reject(new Error('connection refused')) };

  it('lets requests through by default, and warns once', async () => {
    const warnings: unknown[] = [];
    const logger = { error: () => undefined, info: () => undefined, warn: (...data: unknown[]) => warnings.push(data) };
    const { server, seen } = demoServer({
      middleware: [rateLimit({ limit: 1, windowMs: 1000, store: broken, logger })],
    });
    const client = await clientOf(server);
    clients.push(client);
    await echo(client, '1');
    await echo(client, '2');
    expect(seen.handlerRuns).toBe(2);
    expect(warnings).toHaveLength(1);
  });

  it('refuses every request with onStoreError: refuse', async () => {
    const { server, seen } = demoServer({
      middleware: [rateLimit({ limit: 1, windowMs: 1000, store: broken, onStoreError: 'refuse' })],
    });
    const client = await clientOf(server);
    clients.push(client);
    expect(await failureOf(firstValueFrom(client.listTools()))).toMatchObject({
      code: -32029,
      data: { retryAfterMs: 1000, name: 'requests' },
    });
    expect(seen.handlerRuns).toBe(0);
  });
});
