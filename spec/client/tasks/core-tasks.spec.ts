import { lastValueFrom, toArray } from 'rxjs';
import { connect } from '../../../lib/client/client';
import { toolResult } from '../../../lib/client/tool-call';
import type { McpClient } from '../../../lib/client/client';
import { TaskCancelledError, TaskNotSupportedError } from '../../../lib/client/tasks/task-errors';
import type { TaskEvent } from '../../../lib/client/tasks/task-follower';
import { JsonRpcError, RequestTimeoutError } from '../../../lib/jsonrpc/errors';
import { fakeServer, flush } from '../fake-server';
import type { FakeServer } from '../fake-server';

// The experimental core tasks of 2025-11-25 (Basic → Utilities → Tasks), client side, against a
// scripted server over the in-memory transport; polls run on jest's fake clock.

const legacy = { name: 'tasks-spec', version: '1.0.0', protocolVersion: '2025-11-25' } as const;
const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
const done = { content: [{ type: 'text', text: 'rendered' }] };

/** The server's side of one task: its state, and what each handler saw. */
function taskServer(initial: Partial<{ pollInterval: number }> = {}) {
  const state = {
    taskId: 'task-1',
    status: 'working' as string,
    statusMessage: undefined as string | undefined,
    createdAt: '2025-11-25T10:00:00Z',
    lastUpdatedAt: '2025-11-25T10:00:00Z',
    ttl: 60000,
    pollInterval: initial.pollInterval ?? 500,
    outcome: { result: done } as { result: Record<string, unknown> } | { error: JsonRpcError },
  };
  const seen: Array<{ method: string; params: Record<string, unknown> }> = [];
  const task = () => {
    const { outcome: _outcome, statusMessage, ...rest } = state;
    return statusMessage === undefined ? rest : { ...rest, statusMessage };
  };
  const move = (status: string, at: string) => Object.assign(state, { status, lastUpdatedAt: at });
  const record =
    (method: string, answer: (params: Record<string, unknown>) => unknown) => (params: Record<string, unknown>) => {
      seen.push({ method, params });
      return answer(params) as Record<string, unknown>;
    };
  const handlers = {
    'tools/list': () => ({
      tools: [
        { name: 'render', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } },
        { name: 'quick', inputSchema: { type: 'object' } },
        { name: 'batch', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
      ],
    }),
    'tools/call': record('tools/call', (params) => (params.task === undefined ? { content: [] } : { task: task() })),
    'tasks/get': record('tasks/get', () => task()),
    'tasks/result': record('tasks/result', () => {
      if ('error' in state.outcome) throw state.outcome.error;
      return { ...state.outcome.result, _meta: { 'io.modelcontextprotocol/related-task': { taskId: state.taskId } } };
    }),
    'tasks/cancel': record('tasks/cancel', () => move('cancelled', '2025-11-25T10:00:09Z') && task()),
    'tasks/list': record('tasks/list', (params) =>
      params.cursor === undefined
        ? { tasks: [task()], nextCursor: 'p2' }
        : { tasks: [{ ...task(), taskId: 'task-0' }] },
    ),
  };
  return { state, seen, task, move, handlers };
}

async function collect(events: TaskEvent[], done$: Promise<unknown>) {
  await done$;
  return events.map((event) => (event.type === 'status' ? `status:${event.task.status}` : event.type));
}

describe('client.tasks, 2025-11-25 core tasks', () => {
  let client: McpClient | undefined;
  let server: FakeServer;
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] }));
  afterEach(() => {
    client?.close();
    jest.useRealTimers();
  });

  async function start(
    script = taskServer(),
    capabilities: Record<string, unknown> = { tools: {}, tasks: TASKS_CAPABILITY },
  ) {
    server = fakeServer({ capabilities, handlers: script.handlers });
    client = await connect(server.clientTransport, legacy);
    return client;
  }

  it('[tasks.call] sends tools/call with task, polls tasks/get at the pollInterval, and ends with tasks/result', async () => {
    const script = taskServer();
    const c = await start(script);
    const events: TaskEvent[] = [];
    const finished = lastValueFrom(c.tasks.callTool('render', { scene: 1 }, { ttlMs: 30000 }).pipe(toArray()));
    const seenEvents = finished.then((all) => events.push(...all));
    await flush(20);
    expect(script.seen[0]).toEqual({
      method: 'tools/call',
      params: { name: 'render', arguments: { scene: 1 }, task: { ttl: 30000 } },
    });
    await jest.advanceTimersByTimeAsync(499);
    expect(script.seen.filter((s) => s.method === 'tasks/get')).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(script.seen.filter((s) => s.method === 'tasks/get')).toEqual([
      { method: 'tasks/get', params: { taskId: 'task-1' } },
    ]);
    script.move('completed', '2025-11-25T10:00:05Z');
    await jest.advanceTimersByTimeAsync(500);
    expect(await collect(events, seenEvents)).toEqual(['status:working', 'status:completed', 'result']);
    const last = events.at(-1);
    expect(last).toMatchObject({
      type: 'result',
      result: { content: done.content },
      task: { taskId: 'task-1', ttlMs: 60000, pollIntervalMs: 500 },
    });
    expect(script.seen.map((s) => s.method)).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/result']);
  });

  it('[tasks.notifications] emits the status a notifications/tasks/status brings before the next poll', async () => {
    const script = taskServer({ pollInterval: 60000 });
    const c = await start(script);
    const events: TaskEvent[] = [];
    c.tasks.callTool('render').subscribe((event) => events.push(event));
    await flush(20);
    script.move('completed', '2025-11-25T10:00:02Z');
    server.connection.notify('notifications/tasks/status', script.task());
    await flush(20);
    expect(events.map((e) => (e.type === 'status' ? e.task.status : e.type))).toEqual([
      'working',
      'completed',
      'result',
    ]);
    expect(script.seen.map((s) => s.method)).toEqual(['tools/call', 'tasks/result']);
  });

  it('[tasks.failed] fails with the JSON-RPC error tasks/result gives for a failed task', async () => {
    const script = taskServer();
    script.state.outcome = { error: new JsonRpcError(-32603, 'renderer crashed') };
    script.move('failed', '2025-11-25T10:00:00Z');
    const c = await start(script);
    await expect(lastValueFrom(c.tasks.callTool('render'))).rejects.toMatchObject({
      code: -32603,
      message: 'renderer crashed',
    });
  });

  it('[tasks.tool-level] refuses locally when the server lacks the capability or the tool forbids tasks', async () => {
    const script = taskServer();
    const c = await start(script);
    await expect(lastValueFrom(c.tasks.callTool('quick'))).rejects.toThrow(TaskNotSupportedError);
    await expect(lastValueFrom(c.tasks.callTool('quick'))).rejects.toThrow(/taskSupport: absent/);
    client?.close();
    const bare = await start(taskServer(), { tools: {} });
    await expect(lastValueFrom(bare.tasks.callTool('render'))).rejects.toThrow(/tasks\.requests\.tools\.call/);
    expect(script.seen.filter((s) => s.method === 'tools/call')).toEqual([]);
  });

  it('[tasks.cancel] cancels with tasks/cancel; a follower then fails with TaskCancelledError', async () => {
    const script = taskServer();
    const c = await start(script);
    const following = lastValueFrom(c.tasks.callTool('render'));
    const failure = expect(following).rejects.toThrow(TaskCancelledError);
    await flush(20);
    await lastValueFrom(c.tasks.cancel('task-1'), { defaultValue: undefined });
    expect(script.seen.at(-1)).toEqual({ method: 'tasks/cancel', params: { taskId: 'task-1' } });
    await jest.advanceTimersByTimeAsync(500);
    await failure;
  });

  it('[tasks.unsubscribe] leaves the task running when the subscriber leaves, unless asked to cancel it', async () => {
    const script = taskServer();
    const c = await start(script);
    c.tasks.callTool('render').subscribe().unsubscribe();
    const leaving = c.tasks.callTool('render', {}, { cancelOnUnsubscribe: true }).subscribe();
    await flush(20);
    leaving.unsubscribe();
    await flush(20);
    await jest.advanceTimersByTimeAsync(2000);
    expect(script.seen.map((s) => s.method)).toEqual(['tools/call', 'tasks/cancel']);
  });

  it('[tasks.list] lists every task across pages, in the shape both designs share', async () => {
    const c = await start();
    const tasks = await lastValueFrom(c.tasks.list());
    expect(tasks.map((t) => t.taskId)).toEqual(['task-1', 'task-0']);
    expect(tasks[0]).toEqual({
      taskId: 'task-1',
      status: 'working',
      createdAt: '2025-11-25T10:00:00Z',
      lastUpdatedAt: '2025-11-25T10:00:00Z',
      ttlMs: 60000,
      pollIntervalMs: 500,
    });
  });

  it('[tasks.resume] a second client follows the task by id after the first one closed', async () => {
    const script = taskServer();
    const first = await start(script);
    const created = await new Promise<string>((resolve) =>
      first.tasks.callTool('render').subscribe((event) => event.type === 'status' && resolve(event.task.taskId)),
    );
    first.close();
    const second = await start(script);
    const events = lastValueFrom(second.tasks.resume(created).pipe(toArray()));
    // Resuming polls at once.
    await jest.advanceTimersByTimeAsync(0);
    expect(script.seen.at(-1)).toEqual({ method: 'tasks/get', params: { taskId: 'task-1' } });
    script.move('completed', '2025-11-25T10:00:07Z');
    await jest.advanceTimersByTimeAsync(500);
    const all = await events;
    expect(all.map((e) => (e.type === 'status' ? e.task.status : e.type))).toEqual(['working', 'completed', 'result']);
    expect(all.at(-1)).toMatchObject({ result: { content: done.content } });
  });

  it('[tasks.get] reads a task with tasks/get, and an unknown one fails with the server error', async () => {
    const script = taskServer();
    const c = await start(script);
    await expect(lastValueFrom(c.tasks.get('task-1'))).resolves.toMatchObject({ taskId: 'task-1', status: 'working' });
    script.handlers['tasks/get'] = () => {
      throw new JsonRpcError(-32602, 'Failed to retrieve task: Task not found');
    };
    const other = await start(script);
    await expect(lastValueFrom(other.tasks.get('nope'))).rejects.toMatchObject({ code: -32602 });
  });

  it('[tasks.required] a plain callTool of a tool whose taskSupport is required runs it as a task', async () => {
    const script = taskServer();
    const c = await start(script);
    const result = lastValueFrom(c.callTool('batch', { n: 1 }).pipe(toolResult()));
    await flush(20);
    expect(script.seen[0]).toMatchObject({
      method: 'tools/call',
      params: { name: 'batch', arguments: { n: 1 }, task: {} },
    });
    script.move('completed', '2025-11-25T10:00:03Z');
    await jest.advanceTimersByTimeAsync(500);
    await expect(result).resolves.toMatchObject({ content: done.content });
    // Any other tool goes as a plain call.
    await expect(lastValueFrom(c.callTool('quick').pipe(toolResult()))).resolves.toEqual({ content: [] });
    expect(script.seen.at(-1)).toMatchObject({ method: 'tools/call', params: { name: 'quick', arguments: {} } });
    expect(script.seen.at(-1)?.params).not.toHaveProperty('task');
  });

  it('[tasks.result-wait] tasks/result waits as long as a running task runs, and only the usual timeout for one that is over', async () => {
    const script = taskServer({ pollInterval: 60000 });
    let finish: () => void = () => undefined;
    script.handlers['tasks/result'] = (() =>
      new Promise((resolve) => {
        finish = () => resolve(done);
      })) as never;
    script.move('input_required', '2025-11-25T10:00:01Z');
    const c = await start(script);
    const waiting = lastValueFrom(c.tasks.callTool('render'));
    await jest.advanceTimersByTimeAsync(180000);
    script.move('completed', '2025-11-25T10:00:02Z');
    finish();
    await expect(waiting).resolves.toMatchObject({ type: 'result', result: { content: done.content } });
    // Over already: an answer that never comes fails after the request timeout (60 s by default).
    const stuck = lastValueFrom(c.tasks.resume('task-1'));
    const failure = expect(stuck).rejects.toThrow(RequestTimeoutError);
    await jest.advanceTimersByTimeAsync(60000);
    await failure;
  });
});
