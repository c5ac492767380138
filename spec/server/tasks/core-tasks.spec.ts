import { firstValueFrom, Observable, Subject } from 'rxjs';
import { progress } from '../../../lib/connection/handler-events';
import { CreateTaskResultSchema, GetTaskResultSchema, ListTasksResultSchema } from '../../../lib/schema/tasks';
import { createServer } from '../../../lib/server/server';
import type { McpServer } from '../../../lib/server/server';
import type { ToolResult } from '../../../lib/server/tool-registry';
import { flush, serve } from '../harness';
import type { Served } from '../harness';

// The 2025-11-25 core tasks (spec: Basic → Utilities → Tasks), served to sessions.

const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });
const RELATED = 'io.modelcontextprotocol/related-task';

/** A tool handler the test drives: each call's emissions come from a Subject the test holds. */
class Runs {
  readonly subjects: Subject<unknown>[] = [];
  /** Calls whose work was unsubscribed before it finished. */
  cancelled = 0;

  handler = () =>
    new Observable<never>((subscriber) => {
      const run = new Subject<unknown>();
      this.subjects.push(run);
      let done = false;
      const inner = run.subscribe({
        next: (value) => subscriber.next(value as never),
        error: (error: unknown) => {
          done = true;
          subscriber.error(error);
        },
        complete: () => {
          done = true;
          subscriber.complete();
        },
      });
      return () => {
        inner.unsubscribe();
        if (!done) this.cancelled++;
      };
    });

  finish(index: number, result: ToolResult): void {
    this.subjects[index]!.next(result);
    this.subjects[index]!.complete();
  }
}

function makeServer(runs: Runs): McpServer {
  const server = createServer({
    name: 'core-tasks',
    version: '1.0.0',
    tasks: { defaultTtlMs: 60_000, maxTtlMs: 120_000, pollIntervalMs: 250 },
    pageSize: 2,
  });
  server.tool({
    name: 'work',
    description: 'driven by the test',
    execution: { taskSupport: 'optional' },
    handler: runs.handler,
  });
  server.tool({ name: 'plain', description: 'never a task', handler: () => text('plain') });
  server.tool({
    name: 'only-task',
    description: 'only as a task',
    execution: { taskSupport: 'required' },
    handler: () => text('done'),
  });
  server.tool({
    name: 'asks',
    description: 'asks the user, then answers',
    execution: { taskSupport: 'optional' },
    handler: async (_args, context) => {
      const answer = await firstValueFrom(
        context.elicit({
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        }),
      );
      return text(`hello ${String(answer.content?.name)}`);
    },
  });
  return server;
}

describe('core tasks (2025-11-25) in a session', () => {
  let runs: Runs;
  let server: McpServer;
  let served: Served;

  beforeEach(async () => {
    runs = new Runs();
    server = makeServer(runs);
    served = await serve(server, { protocolVersion: '2025-11-25' });
  });
  afterEach(() => server.close());

  const create = async (name = 'work', task: Record<string, unknown> = {}) => {
    const result = await served.call('tools/call', { name, arguments: {}, task });
    expect(CreateTaskResultSchema.safeParse(result).success).toBe(true);
    return (result as { task: { taskId: string } }).task;
  };
  const get = async (taskId: string) => {
    const result = await served.call('tasks/get', { taskId });
    expect(GetTaskResultSchema.safeParse(result).success).toBe(true);
    return result;
  };

  it('[tasks.capability] declares tasks (list, cancel, tools/call) to a 2025-11-25 session, and not the extension', async () => {
    const declared = served.client.peerCapabilities as Record<string, unknown>;
    expect(declared.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    expect(declared).not.toHaveProperty('extensions');
  });

  it('[tasks.capability] declares no tasks to a session of an earlier revision', async () => {
    const older = await serve(server, { protocolVersion: '2025-06-18' });
    expect(older.client.peerCapabilities).not.toHaveProperty('tasks');
    expect(older.client.peerCapabilities).not.toHaveProperty('extensions');
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list']) {
      await expect(older.call(method, { taskId: 'x' })).rejects.toMatchObject({ code: -32601 });
    }
    await expect(served.call('tasks/update', { taskId: 'x', inputResponses: {} })).rejects.toMatchObject({
      code: -32601,
    });
  });

  it('[tasks.create] answers a task-augmented call with a working task, granting the ttl asked up to the maximum', async () => {
    const task = await create('work', { ttl: 90_000 });
    expect(task).toMatchObject({ status: 'working', ttl: 90_000, pollInterval: 250 });
    expect(Date.parse((task as unknown as { createdAt: string }).createdAt)).not.toBeNaN();
    const capped = await create('work', { ttl: 10_000_000 });
    expect(capped).toMatchObject({ ttl: 120_000 });
    const defaulted = await create('work');
    expect(defaulted).toMatchObject({ ttl: 60_000 });
  });

  it('[tasks.emissions] follows the handler: progress becomes the status message, its result completes the task', async () => {
    const { taskId } = await create();
    runs.subjects[0]!.next(progress(1, 2, 'half way'));
    expect(await get(taskId)).toMatchObject({ taskId, status: 'working', statusMessage: 'half way' });
    runs.finish(0, text('finished'));
    expect(await get(taskId)).toMatchObject({ status: 'completed' });
    const payload = await served.call('tasks/result', { taskId });
    expect(payload).toMatchObject({ content: [{ type: 'text', text: 'finished' }], _meta: { [RELATED]: { taskId } } });
  });

  it('[tasks.progress] keeps sending progress with the call’s token while it runs as a task', async () => {
    const created = await served.call('tools/call', {
      name: 'work',
      arguments: {},
      task: {},
      _meta: { progressToken: 'p1' },
    });
    const { taskId } = (created as { task: { taskId: string } }).task;
    runs.subjects[0]!.next(progress(3, 4, 'almost'));
    await served.call('tasks/get', { taskId });
    await flush();
    expect(served.received('notifications/progress').map((n) => n.params)).toEqual([
      { progressToken: 'p1', progress: 3, total: 4, message: 'almost' },
    ]);
  });

  it('[tasks.result] blocks tasks/result until the task is final', async () => {
    const { taskId } = await create();
    let settled: Record<string, unknown> | undefined;
    const waiting = served.call('tasks/result', { taskId }).then((result) => (settled = result));
    await flush();
    expect(settled).toBeUndefined();
    runs.finish(0, text('late'));
    await waiting;
    expect(settled).toMatchObject({ content: [{ text: 'late' }] });
  });

  it('[tasks.failed] fails the task on a tool error, and tasks/result gives the tool result as the call would have', async () => {
    const { taskId } = await create();
    runs.finish(0, { ...text('broken input'), isError: true });
    expect(await get(taskId)).toMatchObject({ status: 'failed', statusMessage: 'broken input' });
    expect(await served.call('tasks/result', { taskId })).toMatchObject({ isError: true });
  });

  it('[tasks.cancel] cancels a running task: the handler is unsubscribed and the task stays cancelled', async () => {
    const { taskId } = await create();
    const cancelled = await served.call('tasks/cancel', { taskId });
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    expect(runs.cancelled).toBe(1);
    expect(await get(taskId)).toMatchObject({ status: 'cancelled' });
    await expect(served.call('tasks/cancel', { taskId })).rejects.toMatchObject({ code: -32602 });
  });

  it('[tasks.errors] answers -32602 for an unknown task', async () => {
    await expect(served.call('tasks/get', { taskId: 'nope' })).rejects.toMatchObject({ code: -32602 });
    await expect(served.call('tasks/result', { taskId: 'nope' })).rejects.toMatchObject({ code: -32602 });
    await expect(served.call('tasks/cancel', { taskId: 'nope' })).rejects.toMatchObject({ code: -32602 });
  });

  it('[tasks.tool-negotiation] refuses a task for a tool that forbids it and a plain call to one that requires it (-32601)', async () => {
    await expect(served.call('tools/call', { name: 'plain', arguments: {}, task: {} })).rejects.toMatchObject({
      code: -32601,
    });
    await expect(served.call('tools/call', { name: 'only-task', arguments: {} })).rejects.toMatchObject({
      code: -32601,
    });
    // An optional one called without `task` runs as an ordinary call.
    const plainCall = served.call('tools/call', { name: 'work', arguments: {} });
    await flush();
    runs.finish(0, text('direct'));
    expect(await plainCall).toMatchObject({ content: [{ text: 'direct' }] });
    expect(await plainCall).not.toHaveProperty('task');
  });

  it('[tasks.status] notifies the session of each change of status', async () => {
    const { taskId } = await create();
    runs.finish(0, text('ok'));
    await served.call('tasks/get', { taskId });
    await flush();
    const statuses = served.received('notifications/tasks/status').map((n) => n.params);
    expect(statuses).toEqual([expect.objectContaining({ taskId, status: 'completed' })]);
  });

  it('[tasks.list] lists the session’s tasks a page at a time, and no other session’s', async () => {
    const ids = [(await create()).taskId, (await create()).taskId, (await create()).taskId];
    const first = await served.call('tasks/list', {});
    expect(ListTasksResultSchema.safeParse(first).success).toBe(true);
    const second = await served.call('tasks/list', { cursor: first.nextCursor });
    const listed = [...(first.tasks as { taskId: string }[]), ...(second.tasks as { taskId: string }[])];
    expect(listed.map((task) => task.taskId)).toEqual(ids);
    expect(second.nextCursor).toBeUndefined();
    const other = await serve(server, { protocolVersion: '2025-11-25' });
    expect(await other.call('tasks/list', {})).toMatchObject({ tasks: [] });
  });

  it('[tasks.input] asks the client on the task’s behalf: input_required meanwhile, the request tied to the task', async () => {
    const answer = new Subject<Record<string, unknown>>();
    const asked: Record<string, unknown>[] = [];
    const withElicitation = await serve(server, {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: {} },
      handlers: {
        'elicitation/create': (params) => {
          asked.push(params);
          return firstValueFrom(answer);
        },
      },
    });
    const created = await withElicitation.call('tools/call', { name: 'asks', arguments: {}, task: {} });
    const { taskId } = (created as { task: { taskId: string } }).task;
    await flush();
    expect(asked).toEqual([expect.objectContaining({ message: 'Name?', _meta: { [RELATED]: { taskId } } })]);
    expect(await withElicitation.call('tasks/get', { taskId })).toMatchObject({ status: 'input_required' });
    answer.next({ action: 'accept', content: { name: 'Ada' } });
    expect(await withElicitation.call('tasks/result', { taskId })).toMatchObject({ content: [{ text: 'hello Ada' }] });
    expect(await withElicitation.call('tasks/get', { taskId })).toMatchObject({ status: 'completed' });
  });
});
