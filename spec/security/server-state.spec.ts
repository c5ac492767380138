import pino from 'pino';
import { firstValueFrom, Observable, VirtualTimeScheduler } from 'rxjs';
import { z } from 'zod';
import { createConnection } from '../../lib/connection/connection';
import type { Connection } from '../../lib/connection/connection';
import { META } from '../../lib/connection/stateless';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import type { ServerSession } from '../../lib/server/server-context';
import { TaskQuota } from '../../lib/server/tasks/task-quota';
import { TaskRunner } from '../../lib/server/tasks/task-runner';
import { createMemoryTaskStore } from '../../lib/server/tasks/task-store';
import type { AuthInfo, Transport } from '../../lib/transport/transport';
import { linkedPair } from '../support/linked-pair';
import { advanceTo } from '../support/virtual-time';

// Everything a server keeps for a caller is bound to the caller's principal (issuer + sub, else
// issuer + client_id): a caller who holds another's handle (a requestState, a task id, a cached
// result) gets nothing of theirs.

const REVISION = '2026-07-28';
const ISSUER = 'https://issuer.example';

const authOf = (subject: string): AuthInfo => ({
  subject,
  scopes: ['mcp'],
  claims: { iss: ISSUER, sub: subject },
});
const alice = authOf('alice');
const mallory = authOf('mallory');

const meta = (capabilities: Record<string, unknown> = { elicitation: {} }) => ({
  [META.protocolVersion]: REVISION,
  [META.clientCapabilities]: capabilities,
  [META.clientInfo]: { name: 'spec', version: '1.0.0' },
});

interface Answer {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

/** Serves one stateless request as a protected endpoint would hand it over, with `auth`. */
async function serveStateless(
  server: McpServer,
  method: string,
  params: Record<string, unknown>,
  options: { auth?: AuthInfo; capabilities?: Record<string, unknown> } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    server.stateless.serve(
      { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta(options.capabilities) } },
      {
        auth: options.auth,
        notify: () => undefined,
        respond: (message: JsonRpcMessage) => resolve(message as Answer),
      },
    );
  });
}

describe('requestState is bound to the principal it was issued to', () => {
  function askingServer() {
    const runs: string[] = [];
    const server = createServer({ name: 'mrtr', version: '1.0.0' });
    server.tool({
      name: 'transfer',
      description: 'asks to confirm, then acts with the answer',
      inputSchema: z.object({ to: z.string() }),
      handler: async ({ to }, context) => {
        const answer = await firstValueFrom(
          context.elicit({
            message: `Send to ${to}?`,
            requestedSchema: { type: 'object', properties: { pin: { type: 'string' } } },
          }),
        );
        runs.push(`${context.auth?.subject ?? 'nobody'}:${String(answer.content?.pin)}`);
        return { content: [{ type: 'text', text: `sent to ${to}` }] };
      },
    });
    return { server, runs };
  }

  /** Alice's first round, and her state holding her answer (a second, unanswered round keeps it sealed). */
  async function aliceState(server: McpServer, auth: AuthInfo | undefined): Promise<string> {
    const first = await serveStateless(server, 'tools/call', { name: 'transfer', arguments: { to: 'bob' } }, { auth });
    expect(first.result?.resultType).toBe('input_required');
    return first.result!.requestState as string;
  }

  const retry = (requestState: string) => ({
    name: 'transfer',
    arguments: { to: 'bob' },
    requestState,
    inputResponses: {},
  });

  it("refuses Mallory's replay of Alice's state with his own token, and the handler never runs for him", async () => {
    const { server, runs } = askingServer();
    const state = await aliceState(server, alice);
    const replay = await serveStateless(server, 'tools/call', retry(state), { auth: mallory });
    expect(replay.error?.code).toBe(-32602);
    expect(replay.error?.message).toMatch(/requestState belongs to another principal/);
    expect(runs).toEqual([]);
    // Alice's own retry still works: her answer is in the state she holds.
    const own = await serveStateless(
      server,
      'tools/call',
      { ...retry(state), inputResponses: { 'elicitation-0': { action: 'accept', content: { pin: '1234' } } } },
      { auth: alice },
    );
    expect(own.result?.content).toEqual([{ type: 'text', text: 'sent to bob' }]);
    expect(runs).toEqual(['alice:1234']);
  });

  it('refuses a retry without auth of a state issued with auth, and one with auth of a state issued without', async () => {
    const { server, runs } = askingServer();
    const withAuth = await aliceState(server, alice);
    const anonymous = await serveStateless(server, 'tools/call', retry(withAuth));
    expect(anonymous.error?.code).toBe(-32602);
    expect(anonymous.error?.message).toMatch(/another principal/);
    const withoutAuth = await aliceState(server, undefined);
    const claimed = await serveStateless(server, 'tools/call', retry(withoutAuth), { auth: mallory });
    expect(claimed.error?.code).toBe(-32602);
    expect(runs).toEqual([]);
  });

  it('binds to the issuer too: the same sub from another issuer is another principal', async () => {
    const { server, runs } = askingServer();
    const state = await aliceState(server, alice);
    const elsewhere: AuthInfo = {
      subject: 'alice',
      scopes: [],
      claims: { iss: 'https://other.example', sub: 'alice' },
    };
    const replay = await serveStateless(server, 'tools/call', retry(state), { auth: elsewhere });
    expect(replay.error?.code).toBe(-32602);
    // Another token of the same user (other scopes) is the same principal.
    const again: AuthInfo = { ...alice, scopes: ['other'] };
    const answered = await serveStateless(
      server,
      'tools/call',
      { ...retry(state), inputResponses: { 'elicitation-0': { action: 'accept', content: { pin: '9' } } } },
      { auth: again },
    );
    expect(answered.result?.content).toBeDefined();
    expect(runs).toEqual(['alice:9']);
  });
});

/** The server end of an in-memory pair, as a protected endpoint would present it: with `auth`. */
function authenticated(transport: Transport, auth: AuthInfo): Transport {
  return {
    incoming$: transport.incoming$,
    closed$: transport.closed$,
    send: (message, options) => transport.send(message, options),
    close: (reason) => transport.close(reason),
    auth,
  };
}

interface Client {
  readonly connection: Connection;
  readonly session: ServerSession;
  call(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** A 2025-11-25 session with `server`, verified as `auth` when given. */
async function sessionWith(server: McpServer, auth?: AuthInfo): Promise<Client> {
  const { client, server: serverSide } = linkedPair();
  const session = server.connect(auth === undefined ? serverSide : authenticated(serverSide, auth));
  const connection = createConnection({
    transport: client,
    role: 'client',
    info: { name: 'spec-client', version: '1.0.0' },
    capabilities: () => ({}),
    protocolVersion: '2025-11-25',
  });
  await firstValueFrom(connection.initialize());
  return { connection, session, call: (method, params) => firstValueFrom(connection.request(method, params)) };
}

/** A server whose `wait` tool runs as a task until cancelled; counts the runs still going. */
function taskServer(tasks: Record<string, unknown>) {
  const running = { count: 0 };
  const server = createServer({ name: 'tasks', version: '1.0.0', tasks });
  server.tool({
    name: 'wait',
    description: 'waits until cancelled',
    execution: { taskSupport: 'optional' },
    handler: () =>
      new Observable<never>(() => {
        running.count++;
        return () => running.count--;
      }),
  });
  server.tool({
    name: 'quick',
    description: 'answers at once',
    execution: { taskSupport: 'optional' },
    handler: () => ({ content: [{ type: 'text', text: 'done' }] }),
  });
  return { server, running };
}

async function startTask(client: Client, name = 'wait'): Promise<string> {
  const result = await client.call('tools/call', { name, arguments: {}, task: {} });
  return (result.task as { taskId: string }).taskId;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('tasks: quotas per session and per principal', () => {
  let server: McpServer | undefined;
  afterEach(() => server?.close());

  it('refuses a session past its quota with -32029 naming it, serves the others, and frees its slots when it ends', async () => {
    const made = taskServer({ maxTasks: 5, maxTasksPerSession: 3 });
    server = made.server;
    const flooder = await sessionWith(server);
    for (let i = 0; i < 3; i++) await startTask(flooder);
    await expect(startTask(flooder)).rejects.toMatchObject({
      code: -32029,
      message: expect.stringMatching(/this session already runs 3.*tasks\.maxTasksPerSession/),
      data: { quota: 'session', limit: 3 },
    });
    const other = await sessionWith(server);
    await startTask(other);
    await startTask(other);
    // Five tasks run: the server's own cap is kept, and says so.
    await expect(startTask(other)).rejects.toMatchObject({ code: -32029, data: { quota: 'server', limit: 5 } });
    expect(made.running.count).toBe(5);
    flooder.session.close();
    await flush();
    // The flooding session's tasks (no principal could reach them) were cancelled and forgotten.
    expect(made.running.count).toBe(2);
    await startTask(other);
    expect(made.running.count).toBe(3);
  });

  it('counts a principal over all its sessions, and leaves other principals their own quota', async () => {
    const made = taskServer({ maxTasksPerPrincipal: 2, maxTasksPerSession: 10 });
    server = made.server;
    const first = await sessionWith(server, alice);
    const second = await sessionWith(server, alice);
    await startTask(first);
    await startTask(second);
    await expect(startTask(first)).rejects.toMatchObject({ code: -32029, data: { quota: 'principal', limit: 2 } });
    const other = await sessionWith(server, mallory);
    await startTask(other);
    // A finished task gives its slot back.
    const quickOwner = await sessionWith(server, authOf('carol'));
    for (let i = 0; i < 4; i++) await startTask(quickOwner, 'quick');
  });

  it('gives a slot back when a task expires or ends', async () => {
    const scheduler = new VirtualTimeScheduler();
    const quota = new TaskQuota(10, 1);
    const runner = new TaskRunner({
      store: createMemoryTaskStore({ scheduler }),
      scheduler,
      defaultTtlMs: 1000,
      maxTtlMs: 1000,
      pollIntervalMs: 100,
      logger: pino({ level: 'silent' }),
      quota,
    });
    const spec = { design: 'extension', method: 'tools/call', owner: 'alice' } as const;
    const first = await runner.create(spec);
    first.hold(new Observable<never>().subscribe(first));
    await expect(runner.create(spec)).rejects.toMatchObject({ code: -32029, data: { quota: 'principal' } });
    advanceTo(scheduler, 1000);
    expect(quota.count({ principal: 'alice' })).toBe(0);
    const second = await runner.create(spec);
    second.complete();
    expect(quota.count({ principal: 'alice' })).toBe(0);
    await runner.create(spec);
    expect(quota.count({ principal: 'alice' })).toBe(1);
  });
});

describe('tasks: only their own principal (or, without auth, their own session) sees them', () => {
  let server: McpServer | undefined;
  afterEach(() => server?.close());

  const unknown = { code: -32602, message: expect.stringMatching(/Unknown task/) };

  async function refusedEverything(client: Client, taskId: string): Promise<void> {
    await expect(client.call('tasks/get', { taskId })).rejects.toMatchObject(unknown);
    await expect(client.call('tasks/result', { taskId })).rejects.toMatchObject(unknown);
    await expect(client.call('tasks/cancel', { taskId })).rejects.toMatchObject(unknown);
    expect((await client.call('tasks/list')).tasks).toEqual([]);
  }

  it("answers another principal's task id like an unknown task, and leaves the task running", async () => {
    const made = taskServer({});
    server = made.server;
    const owner = await sessionWith(server, alice);
    const taskId = await startTask(owner);
    await refusedEverything(await sessionWith(server, mallory), taskId);
    // The same sub from another issuer is another principal.
    const lookalike = await sessionWith(server, {
      subject: 'alice',
      scopes: [],
      claims: { iss: 'https://other.example', sub: 'alice' },
    });
    await refusedEverything(lookalike, taskId);
    // A caller with no auth at all sees nothing of it either.
    await refusedEverything(await sessionWith(server), taskId);
    expect(await owner.call('tasks/get', { taskId })).toMatchObject({ taskId, status: 'working' });
    // Alice's other session (same principal) sees it.
    const again = await sessionWith(server, alice);
    expect((await again.call('tasks/list')).tasks).toMatchObject([{ taskId }]);
    expect(made.running.count).toBe(1);
  });

  it("without auth, keeps a session's tasks to that session: another session, or an authenticated caller, gets unknown task", async () => {
    const made = taskServer({});
    server = made.server;
    const owner = await sessionWith(server);
    const taskId = await startTask(owner);
    await refusedEverything(await sessionWith(server), taskId);
    await refusedEverything(await sessionWith(server, mallory), taskId);
    expect(await owner.call('tasks/get', { taskId })).toMatchObject({ taskId, status: 'working' });
    expect(made.running.count).toBe(1);
  });
});
