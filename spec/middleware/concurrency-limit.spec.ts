import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import { concurrencyLimit } from '../../lib/server/middleware-kit';
import { Subject } from 'rxjs';
import type { EventEmission } from '../../lib/server/events/event-feed';
import { events } from '../../lib/server/events/events-extension';
import { createServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import type { McpServer } from '../../lib/server/server';
import type { AuthInfo } from '../../lib/transport/transport';
import { authenticated } from '../support/authenticated';
import { linkedPair } from '../support/linked-pair';
import { until } from '../support/until';
import { demoServer, textOf } from './harness';

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

async function sessionAs(server: McpServer, auth: AuthInfo): Promise<McpClient> {
  const { client, server: serverSide } = linkedPair();
  server.connect(authenticated(serverSide, auth));
  const session = await connect(client, { name: 'concurrency', version: '1.0.0', protocolVersion: '2025-11-25' });
  clients.push(session);
  return session;
}

describe('concurrencyLimit', () => {
  it('refuses a principal’s call past the limit in flight across its sessions, and frees a place on cancel', async () => {
    const { server, seen } = demoServer({ middleware: [concurrencyLimit({ limit: 1, retryAfterMs: 500 })] });
    const alice1 = await sessionAs(server, user('alice'));
    const alice2 = await sessionAs(server, user('alice'));
    const hanging = alice1.callTool('hang').subscribe({ error: () => undefined });
    await alice1.promises.listTools();
    expect(await failureOf(alice2.promises.callTool('echo', { text: 'x' }))).toMatchObject({
      code: ErrorCode.RateLimited,
      message: 'Too many calls in flight (concurrent): at most 1; retry in 500 ms',
      data: { retryAfterMs: 500, name: 'concurrent', limit: 1 },
    });
    expect(seen.handlerRuns).toBe(0);
    const bob = await sessionAs(server, user('bob'));
    expect(textOf(await bob.promises.callTool('echo', { text: 'bob' }))).toBe('bob');
    hanging.unsubscribe();
    await until(() => seen.hangTornDown);
    expect(textOf(await alice2.promises.callTool('echo', { text: 'again' }))).toBe('again');
    expect(textOf(await alice2.promises.callTool('echo', { text: 'and again' }))).toBe('and again');
  });

  it('never counts a push stream (events/stream), even where every request counts', async () => {
    const server = createServer({
      name: 'streams',
      version: '1.0.0',
      logging: false,
      middleware: [concurrencyLimit({ limit: 1, when: () => true })],
      extensions: [events([{ name: 'build.finished', source: () => new Subject<EventEmission>() }])],
    });
    server.tool({ name: 'echo', handler: () => textResult('ok') });
    const alice = await sessionAs(server, user('alice'));
    const stream = (id: number) =>
      alice
        .request('events/stream', { name: 'build.finished', arguments: {}, cursor: null })
        .subscribe({ error: (error: unknown) => failures.push({ id, error }) });
    const failures: Array<{ id: number; error: unknown }> = [];
    const streams = [stream(1), stream(2)];
    // Two streams open and a call admitted beside them: none of the streams holds the one place.
    expect(textOf(await alice.promises.callTool('echo', {}))).toBe('ok');
    expect(failures).toEqual([]);
    for (const each of streams) each.unsubscribe();
  });
});
