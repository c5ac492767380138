import { lastValueFrom } from 'rxjs';
import { connect } from '../../../lib/client/client';
import type { ClientOptions, McpClient } from '../../../lib/client/client';
import { fakeServer, flush } from '../fake-server';
import type { FakeServer } from '../fake-server';

// The client as the receiver of tasks (2025-11-25): the server sends task-augmented elicitation
// requests; the client answers with a task, runs its handler in the background, and serves tasks/*.

const ask = {
  message: 'Proceed?',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
};

describe('the client as a receiver of tasks (2025-11-25)', () => {
  let client: McpClient | undefined;
  let server: FakeServer;
  let release: () => void;
  let aborted: boolean;
  beforeEach(() => {
    aborted = false;
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
  });
  afterEach(() => {
    client?.close();
    jest.useRealTimers();
  });

  async function start(options: Partial<ClientOptions> = { tasks: true }) {
    server = fakeServer();
    client = await connect(server.clientTransport, {
      name: 'receiver-spec',
      version: '1.0.0',
      protocolVersion: '2025-11-25',
      elicitation: (_params, context) =>
        new Promise((resolve) => {
          context.signal.addEventListener('abort', () => (aborted = true));
          release = () => resolve({ action: 'accept', content: { ok: true } });
        }),
      ...options,
    });
    return server.connection;
  }
  const ask$ = (s: FakeServer, method: string, params: Record<string, unknown>) =>
    lastValueFrom(s.connection.request(method, params));

  it('[tasks.receiver.capability] declares tasks for the requests it has handlers for, only when enabled', async () => {
    await start();
    expect(server.connection.peerCapabilities).toMatchObject({
      tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } },
    });
    expect(server.connection.peerCapabilities).not.toHaveProperty('tasks.requests.sampling');
    client?.close();
    await start({});
    expect(server.connection.peerCapabilities).not.toHaveProperty('tasks');
  });

  it('[tasks.receiver.lifecycle] answers with a task, then serves tasks/get and tasks/result', async () => {
    await start();
    const created = await ask$(server, 'elicitation/create', { ...ask, task: { ttl: 5000 } });
    const task = created.task as Record<string, unknown>;
    expect(task).toMatchObject({ status: 'working', ttl: 5000, pollInterval: 1000 });
    expect(typeof task.taskId).toBe('string');
    await expect(ask$(server, 'tasks/get', { taskId: task.taskId })).resolves.toMatchObject({ status: 'working' });
    const payload = ask$(server, 'tasks/result', { taskId: task.taskId });
    release();
    await expect(payload).resolves.toEqual({
      action: 'accept',
      content: { ok: true },
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } },
    });
    await expect(ask$(server, 'tasks/get', { taskId: task.taskId })).resolves.toMatchObject({ status: 'completed' });
    await expect(ask$(server, 'tasks/list', {})).resolves.toMatchObject({ tasks: [{ taskId: task.taskId }] });
  });

  it('[tasks.receiver.cancel] cancels a running task (its handler is aborted) and refuses to cancel it twice', async () => {
    await start();
    const { task } = (await ask$(server, 'elicitation/create', { ...ask, task: {} })) as { task: { taskId: string } };
    await expect(ask$(server, 'tasks/cancel', { taskId: task.taskId })).resolves.toMatchObject({ status: 'cancelled' });
    expect(aborted).toBe(true);
    await expect(ask$(server, 'tasks/result', { taskId: task.taskId })).rejects.toMatchObject({ code: -32000 });
    await expect(ask$(server, 'tasks/cancel', { taskId: task.taskId })).rejects.toMatchObject({ code: -32602 });
  });

  it('[tasks.receiver.ttl] forgets a task once its time to live ran out, and says so with -32602', async () => {
    await start();
    const { task } = (await ask$(server, 'elicitation/create', { ...ask, task: { ttl: 3000 } })) as {
      task: { taskId: string };
    };
    await jest.advanceTimersByTimeAsync(2999);
    await expect(ask$(server, 'tasks/get', { taskId: task.taskId })).resolves.toMatchObject({ status: 'working' });
    await jest.advanceTimersByTimeAsync(1);
    await expect(ask$(server, 'tasks/get', { taskId: task.taskId })).rejects.toMatchObject({ code: -32602 });
    expect(aborted).toBe(true);
  });

  it('[tasks.receiver.plain] answers a request without task as before', async () => {
    await start();
    const answer = ask$(server, 'elicitation/create', ask);
    await flush(10);
    release();
    await expect(answer).resolves.toEqual({ action: 'accept', content: { ok: true } });
    await expect(ask$(server, 'tasks/get', { taskId: 'nope' })).rejects.toMatchObject({ code: -32602 });
  });

  it('[tasks.receiver.working] a task begins working even when its handler answers at once', async () => {
    server = fakeServer();
    client = await connect(server.clientTransport, {
      name: 'receiver-spec',
      version: '1.0.0',
      protocolVersion: '2025-11-25',
      tasks: true,
      elicitation: () => ({ action: 'decline' }),
    });
    const { task } = (await ask$(server, 'elicitation/create', { ...ask, task: {} })) as {
      task: { taskId: string; status: string };
    };
    expect(task.status).toBe('working');
    await expect(ask$(server, 'tasks/result', { taskId: task.taskId })).resolves.toMatchObject({ action: 'decline' });
    await expect(ask$(server, 'tasks/get', { taskId: task.taskId })).resolves.toMatchObject({ status: 'completed' });
  });
});
