import pino from 'pino';
import { firstValueFrom, Observable, VirtualTimeScheduler } from 'rxjs';
import { z } from 'zod';
import { createConnection } from '../../lib/connection/create-connection';
import type { Connection } from '../../lib/connection/connection';
import { META } from '../../lib/connection/modern';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import { serveApps, UI_EXTENSION } from '../../lib/server/apps';
import { capabilitiesDigest } from '../../lib/server/digest';
import { cache, callerOf, rateLimit } from '../../lib/server/middleware-kit';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import type { ServerSession } from '../../lib/server/server-context';
import { TaskQuota } from '../../lib/server/tasks/task-quota';
import { TaskRunner } from '../../lib/server/tasks/task-runner';
import { createMemoryTaskStore } from '../../lib/server/tasks/task-store';
import type { AuthInfo } from '../../lib/transport/transport';
import { linkedPair } from '../support/linked-pair';
import { advanceTo } from '../support/virtual-time';
import { authenticated } from '../support/authenticated';

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

/** Serves one modern request as a protected endpoint would hand it over, with `auth`. */
async function serveModern(
  server: McpServer,
  method: string,
  params: Record<string, unknown>,
  options: { auth?: AuthInfo; capabilities?: Record<string, unknown> } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    server.modern.serve(
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
    const first = await serveModern(server, 'tools/call', { name: 'transfer', arguments: { to: 'bob' } }, { auth });
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
    const replay = await serveModern(server, 'tools/call', retry(state), { auth: mallory });
    expect(replay.error?.code).toBe(-32602);
    expect(replay.error?.message).toMatch(/requestState belongs to another principal/);
    expect(runs).toEqual([]);
    // Alice's own retry still works: her answer is in the state she holds.
    const own = await serveModern(
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
    const anonymous = await serveModern(server, 'tools/call', retry(withAuth));
    expect(anonymous.error?.code).toBe(-32602);
    expect(anonymous.error?.message).toMatch(/another principal/);
    const withoutAuth = await aliceState(server, undefined);
    const claimed = await serveModern(server, 'tools/call', retry(withoutAuth), { auth: mallory });
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
    const replay = await serveModern(server, 'tools/call', retry(state), { auth: elsewhere });
    expect(replay.error?.code).toBe(-32602);
    // Another token of the same user (other scopes) is the same principal.
    const again: AuthInfo = { ...alice, scopes: ['other'] };
    const answered = await serveModern(
      server,
      'tools/call',
      { ...retry(state), inputResponses: { 'elicitation-0': { action: 'accept', content: { pin: '9' } } } },
      { auth: again },
    );
    expect(answered.result?.content).toBeDefined();
    expect(runs).toEqual(['alice:9']);
  });
});

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

describe('cache: the default key keeps apart what differs by caller', () => {
  function appsServer() {
    let lists = 0;
    const server = createServer({
      name: 'apps',
      version: '1.0.0',
      middleware: [
        cache({ ttlMs: 60_000, when: (r) => r.method === 'tools/list' || r.params.name === 'whoami' }),
        (request, _context, next) => {
          if (request.method === 'tools/list') lists++;
          return next();
        },
      ],
    });
    const apps = serveApps(server);
    apps.resource({ uri: 'ui://clock/view.html', name: 'clock-view', html: '<!doctype html><p>clock</p>' });
    apps.tool(
      { name: 'clock', description: 'the time', handler: () => ({ content: [{ type: 'text', text: 'noon' }] }) },
      { resourceUri: 'ui://clock/view.html' },
    );
    server.tool({
      name: 'whoami',
      description: 'names the caller',
      handler: (_args, context) => ({ content: [{ type: 'text', text: context.auth?.subject ?? 'nobody' }] }),
    });
    return { server, lists: () => lists };
  }
  const appsClient = { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
  const uiOf = async (server: McpServer, capabilities: Record<string, unknown>) => {
    const listed = await serveModern(server, 'tools/list', {}, { capabilities });
    const clock = (listed.result?.tools as { name: string; _meta?: Record<string, unknown> }[]).find(
      (tool) => tool.name === 'clock',
    );
    return clock?._meta?.ui;
  };

  it('gives a plain client no _meta.ui after an MCP Apps client filled the cache, and the Apps client its own', async () => {
    const { server, lists } = appsServer();
    expect(await uiOf(server, appsClient)).toEqual({ resourceUri: 'ui://clock/view.html' });
    expect(await uiOf(server, {})).toBeUndefined();
    // The other order, from the cache this time: each still gets its own.
    expect(await uiOf(server, appsClient)).toEqual({ resourceUri: 'ui://clock/view.html' });
    expect(await uiOf(server, {})).toBeUndefined();
    expect(lists()).toBe(2);
  });

  it('never answers one principal with what was cached for another', async () => {
    const { server } = appsServer();
    const call = async (auth: AuthInfo) =>
      (await serveModern(server, 'tools/call', { name: 'whoami', arguments: {} }, { auth })).result?.content;
    expect(await call(alice)).toEqual([{ type: 'text', text: 'alice' }]);
    expect(await call(mallory)).toEqual([{ type: 'text', text: 'mallory' }]);
    expect(await call(alice)).toEqual([{ type: 'text', text: 'alice' }]);
  });

  it('keeps a revision apart from another', async () => {
    const { server, lists } = appsServer();
    const clients: McpClient[] = [];
    for (const protocolVersion of ['2025-06-18', '2025-11-25'] as const) {
      const { client, server: serverSide } = linkedPair();
      server.connect(serverSide);
      const connected = await connect(client, { name: 'plain', version: '1.0.0', protocolVersion });
      clients.push(connected);
      await firstValueFrom(connected.listTools());
    }
    expect(lists()).toBe(2);
    for (const client of clients) client.close();
  });

  it('digests a capabilities object once, and equal declarations alike whatever their key order', () => {
    const declared = { elicitation: {}, extensions: { [UI_EXTENSION]: {} } };
    expect(capabilitiesDigest(declared)).toBe(
      capabilitiesDigest({ extensions: { [UI_EXTENSION]: {} }, elicitation: {} }),
    );
    expect(capabilitiesDigest(declared)).not.toBe(capabilitiesDigest({ elicitation: {} }));
    // The canonical form sorts keys: a digest made again would list them again.
    const keys = jest.spyOn(Object, 'keys');
    const before = keys.mock.calls.length;
    capabilitiesDigest(declared);
    expect(keys.mock.calls.length).toBe(before);
    keys.mockRestore();
  });
});

describe('callerOf: who a request counts against', () => {
  it('is the principal first, so two sessions of one user share a rate limit and another user has their own', async () => {
    const server = createServer({
      name: 'limited',
      version: '1.0.0',
      middleware: [rateLimit({ limit: 2, windowMs: 60_000 })],
    });
    server.tool({ name: 'ping2', description: 'answers', handler: () => ({ content: [] }) });
    const clients: McpClient[] = [];
    const as = async (auth: AuthInfo) => {
      const { client, server: serverSide } = linkedPair();
      server.connect(authenticated(serverSide, auth));
      const connected = await connect(client, { name: 'c', version: '1.0.0', protocolVersion: '2025-11-25' });
      clients.push(connected);
      return connected;
    };
    const first = await as(alice);
    const second = await as(alice);
    await first.promises.callTool('ping2');
    await second.promises.callTool('ping2');
    await expect(first.promises.callTool('ping2')).rejects.toMatchObject({ code: ErrorCode.RateLimited });
    await expect(second.promises.callTool('ping2')).rejects.toMatchObject({ code: ErrorCode.RateLimited });
    const other = await as(mallory);
    await expect(other.promises.callTool('ping2')).resolves.toBeDefined();
    for (const client of clients) client.close();
    server.close();
  });

  it('names a principal apart from a session id or a client name', () => {
    const context = (auth: AuthInfo | undefined, session?: { id: string }) =>
      ({ auth, session, clientInfo: { name: 'x', version: '1' } }) as unknown as Parameters<typeof callerOf>[0];
    expect(callerOf(context(alice, { id: 's1' }))).toBe(callerOf(context(alice, { id: 's2' })));
    expect(callerOf(context(alice))).not.toBe(callerOf(context(mallory)));
    expect(callerOf(context(undefined, { id: 's1' }))).not.toBe(callerOf(context(undefined, { id: 's2' })));
  });
});

describe('subscriptions and listen streams belong to whoever opened them', () => {
  const URI = 'file:///ledger.txt';
  function resourceServer(): McpServer {
    const server = createServer({ name: 'subs', version: '1.0.0' });
    server.resource({
      uri: URI,
      name: 'ledger',
      read: () => ({ contents: [{ uri: URI, text: 'balance' }] }),
    });
    return server;
  }

  it("lets no one else cancel a principal's listen stream: Mallory's notifications/cancelled for its id has no effect", async () => {
    const server = resourceServer();
    const received: JsonRpcMessage[] = [];
    let answered: JsonRpcMessage | undefined;
    const listenId = 'listen-1';
    const goAway = server.modern.serve(
      {
        jsonrpc: '2.0',
        id: listenId,
        method: 'subscriptions/listen',
        params: { notifications: { resourceSubscriptions: [URI] }, _meta: meta() },
      },
      { auth: alice, notify: (message) => received.push(message), respond: (message) => (answered = message) },
    );
    await flush();
    const stray: JsonRpcMessage[] = [];
    for (const method of ['notifications/cancelled', 'notifications/resources/unsubscribe']) {
      server.modern.serve(
        { jsonrpc: '2.0', method, params: { requestId: listenId, uri: URI, _meta: meta() } },
        { auth: mallory, notify: (message) => stray.push(message), respond: (message) => stray.push(message) },
      );
    }
    await flush();
    server.resourceUpdated(URI);
    await flush();
    const updates = received.filter((m) => 'method' in m && m.method === 'notifications/resources/updated');
    expect(updates).toHaveLength(1);
    expect(answered).toBeUndefined();
    expect(stray).toEqual([]);
    // Only its own exchange ends it: then no update follows.
    goAway();
    server.resourceUpdated(URI);
    await flush();
    expect(received.filter((m) => 'method' in m && m.method === 'notifications/resources/updated')).toHaveLength(1);
    server.close();
  });

  it("leaves a session's resource subscription alone when another principal unsubscribes from the same resource", async () => {
    const server = resourceServer();
    const updated: string[] = [];
    const connections: Connection[] = [];
    const as = async (auth: AuthInfo, who: string) => {
      const { client, server: serverSide } = linkedPair();
      server.connect(authenticated(serverSide, auth));
      const connection = createConnection({
        transport: client,
        role: 'client',
        info: { name: who, version: '1.0.0' },
        capabilities: () => ({}),
        protocolVersion: '2025-11-25',
      });
      connection.notifications$.subscribe((n) => {
        if (n.method === 'notifications/resources/updated') updated.push(who);
      });
      await firstValueFrom(connection.initialize());
      connections.push(connection);
      return connection;
    };
    const own = await as(alice, 'alice');
    const other = await as(mallory, 'mallory');
    await firstValueFrom(own.request('resources/subscribe', { uri: URI }));
    await firstValueFrom(other.request('resources/unsubscribe', { uri: URI }));
    server.resourceUpdated(URI);
    await flush();
    expect(updated).toEqual(['alice']);
    for (const connection of connections) connection.close();
    server.close();
  });
});

describe('listen streams per principal', () => {
  it('refuses a principal past maxListenStreamsPerPrincipal with -32029, not another, and gives the place back when a stream ends', async () => {
    const server = createServer({ name: 'listeners', version: '1.0.0', maxListenStreamsPerPrincipal: 2 });
    server.resource({ uri: 'file:///a.txt', name: 'a', text: 'a' });
    let next = 0;
    const listen = (auth: AuthInfo) => {
      const answers: JsonRpcMessage[] = [];
      const stop = server.modern.serve(
        {
          jsonrpc: '2.0',
          id: `listen-${(next += 1)}`,
          method: 'subscriptions/listen',
          params: { notifications: {}, _meta: meta() },
        },
        { auth, notify: () => undefined, respond: (message) => answers.push(message) },
      );
      return { answers, stop };
    };
    const refusal = (answers: JsonRpcMessage[]) =>
      (answers[0] as { error?: { code: number } } | undefined)?.error?.code;
    const first = listen(alice);
    listen(alice);
    const third = listen(alice);
    await flush();
    expect(refusal(first.answers)).toBeUndefined();
    expect(refusal(third.answers)).toBe(ErrorCode.RateLimited);
    const bobs = listen(mallory);
    await flush();
    expect(bobs.answers).toEqual([]);
    first.stop();
    const again = listen(alice);
    await flush();
    expect(again.answers).toEqual([]);
    server.close();
  });
});

describe('scopes of a tool, resource or prompt, checked by the server itself', () => {
  function scopedServer(ran: string[]): McpServer {
    const server = createServer({ name: 'scoped', version: '1.0.0' });
    server.tool({ name: 'admin', scopes: ['admin'], handler: () => (ran.push('admin'), { content: [] }) });
    server.resource({
      uri: 'file:///admin.txt',
      name: 'admin',
      scopes: ['admin'],
      read: () => (ran.push('read'), { contents: [{ uri: 'file:///admin.txt', text: 'x' }] }),
    });
    server.prompt({ name: 'admin', scopes: ['admin'], handler: () => (ran.push('prompt'), { messages: [] }) });
    return server;
  }
  const calls: Array<[string, Record<string, unknown>]> = [
    ['tools/call', { name: 'admin', arguments: {} }],
    ['resources/read', { uri: 'file:///admin.txt' }],
    ['prompts/get', { name: 'admin' }],
  ];

  it('refuses, on a transport that carries a caller, what needs a scope its token lacks (-32003), and serves it with the scope', async () => {
    for (const scopes of [['mcp'], ['mcp', 'admin']]) {
      const ran: string[] = [];
      const server = scopedServer(ran);
      const pair = linkedPair();
      server.connect(authenticated(pair.server, { ...alice, scopes }));
      const client = await connect(pair.client, { name: 'c', version: '1', protocolVersion: '2025-11-25' });
      for (const [method, params] of calls) {
        const outcome = firstValueFrom(client.request(method, params)).then(
          () => 'served',
          (error: { code?: number; data?: { error?: string } }) => `${error.code} ${error.data?.error}`,
        );
        expect(await outcome).toBe(scopes.includes('admin') ? 'served' : '-32003 insufficient_scope');
      }
      expect(ran).toEqual(scopes.includes('admin') ? ['admin', 'read', 'prompt'] : []);
      client.close();
      server.close();
    }
  });

  it('refuses the same in a modern request whose caller lacks the scope', async () => {
    const ran: string[] = [];
    const server = scopedServer(ran);
    const answers: JsonRpcMessage[] = [];
    server.modern.serve(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'admin', arguments: {}, _meta: meta() } },
      { auth: alice, notify: () => undefined, respond: (message) => answers.push(message) },
    );
    await flush();
    expect(answers).toEqual([expect.objectContaining({ error: expect.objectContaining({ code: -32003 }) })]);
    expect(ran).toEqual([]);
    server.close();
  });
});
