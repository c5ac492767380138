import { lastValueFrom, toArray } from 'rxjs';
import { toolResult } from '../../../lib/client/tool-call';
import { TaskNotSupportedError } from '../../../lib/client/tasks/task-errors';
import type { TaskEvent } from '../../../lib/client/tasks/task-follower';
import { ProtocolError } from '../../../lib/jsonrpc/errors';
import { flush } from '../fake-server';
import { modernPeer } from '../modern-peer';
import type { Frame, ModernPeer } from '../modern-peer';

// The tasks extension (io.modelcontextprotocol/tasks, 2026-07-28), client side, against a raw peer
// playing a modern server: every message is scripted and asserted; polls run on jest's fake clock.

const EXT = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { tools: {}, extensions: { [EXT]: {} } };
const done = { content: [{ type: 'text', text: 'deleted' }], isError: false };

const task = (status: string, at: number, extra: Record<string, unknown> = {}) => ({
  taskId: 'tk-9',
  status,
  createdAt: '2026-07-28T10:00:00Z',
  lastUpdatedAt: `2026-07-28T10:00:0${at}Z`,
  ttlMs: 60000,
  pollIntervalMs: 200,
  ...extra,
});

const kinds = (events: readonly TaskEvent[]) =>
  events.map((e) => (e.type === 'status' ? `status:${e.task.status}` : e.type));
const capabilitiesOf = (frame: Frame) =>
  (frame.params._meta as Record<string, Record<string, unknown>>)['io.modelcontextprotocol/clientCapabilities'];

describe('client.tasks, the tasks extension', () => {
  let p: ModernPeer | undefined;
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] }));
  afterEach(() => {
    p?.client.close();
    jest.useRealTimers();
  });

  it('[tasks-ext.declare] declares the extension in every request only when the client enables it', async () => {
    p = await modernPeer({ tasks: true }, WITH_TASKS);
    expect(capabilitiesOf(p.peer.received[0] as Frame)).toMatchObject({ extensions: { [EXT]: {} } });
    void lastValueFrom(p.client.listTools()).catch(() => undefined);
    expect(capabilitiesOf(await p.nextRequest())).toMatchObject({ extensions: { [EXT]: {} } });
    p.client.close();
    p = await modernPeer({}, WITH_TASKS);
    expect(capabilitiesOf(p.peer.received[0] as Frame)).not.toHaveProperty('extensions');
    await expect(lastValueFrom(p.client.tasks.callTool('x'))).rejects.toThrow(TaskNotSupportedError);
    await expect(lastValueFrom(p.client.tasks.list())).rejects.toThrow(TaskNotSupportedError);
  });

  it('[tasks-ext.lifecycle] follows a task handle: polls with Mcp-Name, answers input with tasks/update, ends with the inlined result', async () => {
    p = await modernPeer(
      { tasks: true, elicitation: () => ({ action: 'accept', content: { confirm: true } }) },
      WITH_TASKS,
    );
    const events: TaskEvent[] = [];
    const finished = lastValueFrom(p.client.tasks.callTool('confirm_delete', { filename: 'a.txt' }).pipe(toArray()));
    const call = await p.nextRequest();
    expect(call).toMatchObject({
      method: 'tools/call',
      params: { name: 'confirm_delete', arguments: { filename: 'a.txt' } },
    });
    expect(call.params).not.toHaveProperty('task');
    p.peer.send({ jsonrpc: '2.0', id: call.id, result: { resultType: 'task', ...task('working', 0) } });
    await flush(10);
    await jest.advanceTimersByTimeAsync(200);
    const get = await p.nextRequest();
    expect(get).toMatchObject({ method: 'tasks/get', params: { taskId: 'tk-9' } });
    expect(p.headers.at(-1)?.headers).toMatchObject({ 'mcp-name': 'tk-9' });
    const ask = {
      method: 'elicitation/create',
      params: {
        message: 'Delete a.txt?',
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
      },
    };
    p.reply(get, task('input_required', 1, { inputRequests: { 'elicit-1': ask } }));
    const update = await p.nextRequest();
    expect(update).toMatchObject({
      method: 'tasks/update',
      params: { taskId: 'tk-9', inputResponses: { 'elicit-1': { action: 'accept', content: { confirm: true } } } },
    });
    expect(p.headers.at(-1)?.headers).toMatchObject({ 'mcp-name': 'tk-9' });
    p.reply(update, {});
    // Once the update is acknowledged the client looks again at once.
    await jest.advanceTimersByTimeAsync(0);
    const again = await p.nextRequest();
    expect(again.method).toBe('tasks/get');
    p.reply(again, task('completed', 2, { result: done }));
    events.push(...(await finished));
    expect(kinds(events)).toEqual([
      'status:working',
      'status:input_required',
      'input_required',
      'status:completed',
      'result',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'result', result: done, task: { taskId: 'tk-9', ttlMs: 60000 } });
  });

  it('[tasks-ext.mrtr] composes with multi round-trip requests: input first, then a task on the final round', async () => {
    p = await modernPeer(
      { tasks: true, elicitation: () => ({ action: 'accept', content: { name: 'Alice' } }) },
      WITH_TASKS,
    );
    const finished = lastValueFrom(p.client.tasks.callTool('test_tool_with_task').pipe(toArray()));
    const first = await p.nextRequest();
    p.peer.send({
      jsonrpc: '2.0',
      id: first.id,
      result: {
        resultType: 'input_required',
        inputRequests: {
          user_name: {
            method: 'elicitation/create',
            params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
          },
        },
        requestState: 'rs-1',
      },
    });
    const second = await p.nextRequest();
    expect(second.params).toMatchObject({
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: 'rs-1',
    });
    p.peer.send({ jsonrpc: '2.0', id: second.id, result: { resultType: 'task', ...task('working', 0) } });
    await flush(10);
    await jest.advanceTimersByTimeAsync(200);
    const get = await p.nextRequest();
    p.reply(get, task('completed', 3, { result: { content: [{ type: 'text', text: 'Hello Alice' }] } }));
    expect(kinds(await finished)).toEqual(['input_required', 'status:working', 'status:completed', 'result']);
  });

  it('[tasks-ext.immediate] takes a result the server gives at once, without a task', async () => {
    p = await modernPeer({ tasks: true }, WITH_TASKS);
    const finished = lastValueFrom(p.client.tasks.callTool('slow_compute', { seconds: 0 }).pipe(toArray()));
    p.reply(await p.nextRequest(), done);
    expect(await finished).toEqual([{ type: 'result', result: done }]);
  });

  it('[tasks-ext.plain-call] a plain callTool that gets a task handle follows it to the result', async () => {
    p = await modernPeer({ tasks: true }, WITH_TASKS);
    const result = lastValueFrom(p.client.callTool('slow_compute', { seconds: 2 }).pipe(toolResult()));
    const call = await p.nextRequest();
    p.peer.send({ jsonrpc: '2.0', id: call.id, result: { resultType: 'task', ...task('working', 0) } });
    await flush(10);
    await jest.advanceTimersByTimeAsync(200);
    p.reply(await p.nextRequest(), task('completed', 1, { result: done }));
    await expect(result).resolves.toEqual(done);
  });

  it('[tasks-ext.undeclared-handle] a task handle the client did not ask for is a ProtocolError', async () => {
    p = await modernPeer({}, WITH_TASKS);
    const result = lastValueFrom(p.client.callTool('slow_compute').pipe(toolResult()));
    const call = await p.nextRequest();
    p.peer.send({ jsonrpc: '2.0', id: call.id, result: { resultType: 'task', ...task('working', 0) } });
    await expect(result).rejects.toThrow(ProtocolError);
  });

  it('[tasks-ext.failed] fails with the error inlined in a failed task', async () => {
    p = await modernPeer({ tasks: true }, WITH_TASKS);
    const following = lastValueFrom(p.client.tasks.resume('tk-9'));
    const failure = expect(following).rejects.toMatchObject({ code: -32603, message: 'worker died' });
    await jest.advanceTimersByTimeAsync(0);
    p.reply(await p.nextRequest(), task('failed', 1, { error: { code: -32603, message: 'worker died' } }));
    await failure;
  });

  it('[tasks-ext.cancel] cancels with tasks/cancel carrying the task id in Mcp-Name', async () => {
    p = await modernPeer({ tasks: true }, WITH_TASKS);
    const cancelled = lastValueFrom(p.client.tasks.cancel('tk-9'), { defaultValue: 'acked' });
    const cancel = await p.nextRequest();
    expect(cancel).toMatchObject({ method: 'tasks/cancel', params: { taskId: 'tk-9' } });
    expect(p.headers.at(-1)?.headers).toMatchObject({ 'mcp-name': 'tk-9' });
    p.reply(cancel, {});
    await expect(cancelled).resolves.toBeUndefined();
  });

  it('[tasks-ext.server-lacks] refuses locally when the server does not declare the extension', async () => {
    p = await modernPeer({ tasks: true }, { tools: {} });
    await expect(lastValueFrom(p.client.tasks.callTool('x'))).rejects.toThrow(/does not declare/);
    expect(p.peer.received).toHaveLength(1); // the discovery probe only
  });

  it('[tasks-ext.bad-notification] ignores a malformed task notification and goes on polling', async () => {
    p = await modernPeer({ tasks: true }, WITH_TASKS);
    const events: TaskEvent[] = [];
    p.client.tasks.resume('tk-9').subscribe({ next: (e) => events.push(e) });
    await jest.advanceTimersByTimeAsync(0);
    p.reply(await p.nextRequest(), task('working', 0));
    p.peer.send({ jsonrpc: '2.0', method: 'notifications/tasks', params: { taskId: 'tk-9', status: 'bogus' } });
    p.peer.send({ jsonrpc: '2.0', method: 'notifications/tasks', params: task('completed', 5, { result: done }) });
    await flush(10);
    expect(kinds(events)).toEqual(['status:working', 'status:completed', 'result']);
  });

  it('[tasks-ext.plain-unsubscribe] unsubscribing a plain callTool that became a task cancels the task', async () => {
    p = await modernPeer({ tasks: true }, WITH_TASKS);
    const call$ = p.client.callTool('slow_compute', { seconds: 60 }).subscribe();
    const call = await p.nextRequest();
    p.peer.send({ jsonrpc: '2.0', id: call.id, result: { resultType: 'task', ...task('working', 0) } });
    await flush(10);
    call$.unsubscribe();
    const cancel = await p.nextRequest();
    expect(cancel).toMatchObject({ method: 'tasks/cancel', params: { taskId: 'tk-9' } });
  });
});
