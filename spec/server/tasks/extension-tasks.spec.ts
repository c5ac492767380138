import { concat, defer, forkJoin, map, Observable, of, Subject, switchMap } from 'rxjs';
import { startTask } from '../../../lib/connection/handler-events';
import { META } from '../../../lib/connection/modern';
import { JsonRpcError } from '../../../lib/jsonrpc/errors';
import { DetailedTaskSchema, ExtensionCreateTaskResultSchema, TASKS_EXTENSION } from '../../../lib/schema/tasks';
import { createServer } from '../../../lib/server/server';
import type { McpServer } from '../../../lib/server/server';
import type { ToolResult } from '../../../lib/server/tool-registry';
import { linkedPair } from '../../support/linked-pair';
import { rawPeer } from '../../support/raw-peer';
import type { RawPeer } from '../../support/raw-peer';
import { serve } from '../harness';

// The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663), on the modern wire.

const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });
const WITH_TASKS: Record<string, unknown> = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };
const meta = (capabilities: Record<string, unknown>) => ({
  [META.protocolVersion]: '2026-07-28',
  [META.clientCapabilities]: capabilities,
  [META.clientInfo]: { name: 'spec', version: '1.0.0' },
});
const FORM = { type: 'object' as const, properties: { name: { type: 'string' as const } } };

interface Fixture {
  readonly server: McpServer;
  /** The `work` tool's calls, each driven by its Subject. */
  readonly runs: Subject<unknown>[];
  /** `work` calls unsubscribed before they finished. */
  cancelled: number;
}

function makeServer(): Fixture {
  const server = createServer({ name: 'extension-tasks', version: '1.0.0', tasks: true });
  const fixture: Fixture = { server, runs: [], cancelled: 0 };
  server.tool({
    name: 'work',
    description: 'driven by the test',
    execution: { taskSupport: 'optional' },
    handler: () =>
      new Observable<never>((subscriber) => {
        const run = new Subject<unknown>();
        fixture.runs.push(run);
        let done = false;
        const inner = run.subscribe({
          next: (value) => subscriber.next(value as never),
          error: (error: unknown) => ((done = true), subscriber.error(error)),
          complete: () => ((done = true), subscriber.complete()),
        });
        return () => {
          inner.unsubscribe();
          if (!done) fixture.cancelled++;
        };
      }),
  });
  server.tool({ name: 'plain', description: 'never a task', handler: () => text('plain') });
  server.tool({
    name: 'plain-task',
    description: 'may run as a task, and finishes at once',
    execution: { taskSupport: 'optional' },
    handler: () => text('quick'),
  });
  server.tool({
    name: 'only-task',
    description: 'only as a task',
    execution: { taskSupport: 'required' },
    handler: () => text('done'),
  });
  server.tool({
    name: 'two-questions',
    description: 'asks two questions at once',
    execution: { taskSupport: 'optional' },
    handler: (_args, context) =>
      forkJoin([
        context.elicit({ message: 'First?', requestedSchema: FORM }),
        context.elicit({ message: 'Second?', requestedSchema: FORM }),
      ]).pipe(map(([a, b]) => text(`${String(a.content?.name)} and ${String(b.content?.name)}`))),
  });
  server.tool({
    name: 'gather-then-task',
    description: 'asks within the request, then becomes a task',
    execution: { taskSupport: 'required' },
    taskStart: 'signalled',
    handler: (_args, context) =>
      context.elicit({ message: 'Name?', requestedSchema: FORM }, { inputKey: 'user_name' }).pipe(
        switchMap((answer) =>
          concat(
            of(startTask()),
            defer(() => of(text(`hello ${String(answer.content?.name)}`))),
          ),
        ),
      ),
  });
  return fixture;
}

describe('the tasks extension (2026-07-28)', () => {
  let fixture: Fixture;
  let peer: RawPeer;
  let id = 0;
  const send = async (method: string, params: Record<string, unknown>, capabilities = WITH_TASKS) => {
    const requestId = ++id;
    peer.send({ jsonrpc: '2.0', id: requestId, method, params: { ...params, _meta: meta(capabilities) } });
    return (await peer.nextMatching((frame) => frame.id === requestId)) as {
      result?: Record<string, unknown>;
      error?: { code: number; message: string; data?: unknown };
    };
  };
  const result = async (method: string, params: Record<string, unknown>, capabilities = WITH_TASKS) => {
    const answer = await send(method, params, capabilities);
    if (answer.error) throw new JsonRpcError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result!;
  };
  const create = async (name: string, args: Record<string, unknown> = {}) => {
    const created = await result('tools/call', { name, arguments: args });
    expect(ExtensionCreateTaskResultSchema.safeParse(created).success).toBe(true);
    return created.taskId as string;
  };
  const get = async (taskId: string) => {
    const task = await result('tasks/get', { taskId });
    expect(DetailedTaskSchema.safeParse(task).success).toBe(true);
    return task;
  };

  beforeEach(() => {
    fixture = makeServer();
    const { client, server } = linkedPair();
    fixture.server.connect(server);
    peer = rawPeer(client);
  });
  afterEach(() => fixture.server.close());

  it('[ext.discover] advertises the extension under capabilities.extensions, and no core tasks capability', async () => {
    const discovered = await result('server/discover', {});
    const capabilities = discovered.capabilities as Record<string, unknown>;
    expect(capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect(capabilities).not.toHaveProperty('tasks');
  });

  it('[ext.gate] sends nothing of a task to a client that did not declare the extension', async () => {
    for (const method of ['tasks/get', 'tasks/cancel']) {
      expect((await send(method, { taskId: 'x' }, {})).error?.code).toBe(-32021);
    }
    expect((await send('tasks/update', { taskId: 'x', inputResponses: {} }, {})).error?.code).toBe(-32021);
    const required = await send('tools/call', { name: 'only-task', arguments: {} }, {});
    expect(required.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
    const direct = send('tools/call', { name: 'work', arguments: {} }, {});
    await new Promise((resolve) => setImmediate(resolve));
    fixture.runs[0]!.next(text('direct'));
    fixture.runs[0]!.complete();
    const answer = (await direct).result!;
    expect(answer).toMatchObject({ resultType: 'complete', content: [{ text: 'direct' }] });
    expect(answer).not.toHaveProperty('taskId');
  });

  it('[ext.create] answers a task-supporting tool with a flat task handle, and a plain one as it is', async () => {
    const created = await result('tools/call', { name: 'work', arguments: {} });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 300_000, pollIntervalMs: 1000 });
    expect(created).not.toHaveProperty('task');
    expect(created).not.toHaveProperty('ttl');
    const plain = await result('tools/call', { name: 'plain', arguments: {}, task: { ttl: 1000 } });
    expect(plain).toMatchObject({ resultType: 'complete', content: [{ text: 'plain' }] });
  });

  it('[ext.get] inlines the result of a completed task, without the related-task _meta', async () => {
    const taskId = await create('work');
    expect(await get(taskId)).toMatchObject({ taskId, status: 'working', resultType: 'complete' });
    fixture.runs[0]!.next({ ...text('done'), _meta: { 'io.modelcontextprotocol/related-task': { taskId } } });
    fixture.runs[0]!.complete();
    const done = await get(taskId);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'done' }] } });
    expect((done.result as Record<string, unknown>)._meta).toBeUndefined();
  });

  it('[ext.errors] reports a tool error as completed with isError, a protocol error as failed with the error', async () => {
    const toolError = await create('work');
    fixture.runs[0]!.next({ ...text('bad'), isError: true });
    fixture.runs[0]!.complete();
    expect(await get(toolError)).toMatchObject({ status: 'completed', result: { isError: true } });
    const protocolError = await create('work');
    fixture.runs[1]!.error(new JsonRpcError(-32603, 'worker lost'));
    const failed = await get(protocolError);
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: 'worker lost' } });
    expect(failed).not.toHaveProperty('result');
  });

  it('[ext.cancel] acknowledges tasks/cancel with an empty result, unsubscribes the work, and acks a final task again', async () => {
    const taskId = await create('work');
    const ack = await result('tasks/cancel', { taskId });
    expect(Object.keys(ack).sort()).toEqual(['_meta', 'resultType']);
    expect(ack.resultType).toBe('complete');
    expect(fixture.cancelled).toBe(1);
    expect(await get(taskId)).toMatchObject({ status: 'cancelled' });
    expect((await result('tasks/cancel', { taskId })).resultType).toBe('complete');
    expect((await send('tasks/cancel', { taskId: 'unknown' })).error?.code).toBe(-32602);
  });

  it('[ext.input] parks input requests in the task and resumes it as tasks/update answers them, one at a time', async () => {
    const taskId = await create('two-questions');
    const waiting = await get(taskId);
    expect(waiting.status).toBe('input_required');
    const keys = Object.keys(waiting.inputRequests as Record<string, unknown>);
    expect(keys).toHaveLength(2);
    expect((waiting.inputRequests as Record<string, { method: string }>)[keys[0]!]!.method).toBe('elicitation/create');
    const bad = await send('tasks/update', { taskId, inputResponses: { [keys[0]!]: { action: 'maybe' } } });
    expect(bad.error?.code).toBe(-32602);
    const ack = await result('tasks/update', {
      taskId,
      inputResponses: { [keys[0]!]: { action: 'accept', content: { name: 'Ada' } }, unasked: {} },
    });
    expect(ack.resultType).toBe('complete');
    expect(ack).not.toHaveProperty('status');
    const partial = await get(taskId);
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests as Record<string, unknown>)).toEqual([keys[1]]);
    await result('tasks/update', {
      taskId,
      inputResponses: { [keys[1]!]: { action: 'accept', content: { name: 'Bo' } } },
    });
    const done = await get(taskId);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'Ada and Bo' }] } });
    expect(done).not.toHaveProperty('inputRequests');
  });

  it('[ext.mrtr] gathers input in multi round-trip rounds, then becomes a task on the round its handler says so', async () => {
    const first = await result('tools/call', { name: 'gather-then-task', arguments: {} });
    expect(first.resultType).toBe('input_required');
    expect(first).not.toHaveProperty('taskId');
    expect(Object.keys(first.inputRequests as Record<string, unknown>)).toEqual(['user_name']);
    const second = await result('tools/call', {
      name: 'gather-then-task',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: first.requestState,
    });
    expect(second).toMatchObject({ resultType: 'task' });
    expect(second).not.toHaveProperty('requestState');
    const done = await get(second.taskId as string);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'hello Alice' }] } });
  });

  it('[ext.bounded] refuses a new task with -32029 naming the server quota once the server runs maxTasks, without losing those it runs', async () => {
    const small = createServer({ name: 'small', version: '1.0.0', tasks: { maxTasks: 1 } });
    small.tool({
      name: 'wait',
      description: 'waits for ever',
      execution: { taskSupport: 'required' },
      handler: () => new Observable<never>(),
    });
    const { client, server } = linkedPair();
    small.connect(server);
    peer = rawPeer(client);
    const first = await create('wait');
    expect((await send('tools/call', { name: 'wait', arguments: {} })).error).toMatchObject({
      code: -32029,
      message: expect.stringMatching(/tasks\.maxTasks\b/),
      data: { quota: 'server', limit: 1 },
    });
    expect(await get(first)).toMatchObject({ status: 'working' });
    small.close();
  });

  it('[ext.removed] answers tasks/result and tasks/list with -32601: the extension has neither', async () => {
    expect((await send('tasks/result', { taskId: 'x' })).error?.code).toBe(-32601);
    expect((await send('tasks/list', {})).error?.code).toBe(-32601);
  });

  it('[ext.bad-params] answers -32602 for tasks methods without a taskId, and does not echo a huge one', async () => {
    expect((await send('tasks/get', {})).error?.code).toBe(-32602);
    const huge = await send('tasks/get', { taskId: 'x'.repeat(100_000) });
    expect(huge.error?.code).toBe(-32602);
    expect(huge.error!.message.length).toBeLessThan(200);
    expect((await send('tasks/update', { taskId: 'x' })).error?.code).toBe(-32602);
  });

  it('[ext.designs] keeps the two designs apart: a core task is unknown to the extension, and the other way round', async () => {
    const session = await serve(fixture.server, { protocolVersion: '2025-11-25' });
    const core = (await session.call('tools/call', { name: 'plain-task', arguments: {}, task: {} })) as {
      task: { taskId: string };
    };
    expect((await send('tasks/get', { taskId: core.task.taskId })).error?.code).toBe(-32602);
    const extension = await create('work');
    await expect(session.call('tasks/get', { taskId: extension })).rejects.toMatchObject({ code: -32602 });
    expect(await session.call('tasks/get', { taskId: core.task.taskId })).toMatchObject({ status: 'completed' });
  });
});
