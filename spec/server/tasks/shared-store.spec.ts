import { NEVER, Subject } from 'rxjs';
import { createServer } from '../../../lib/server/server';
import { createMemoryTaskStore } from '../../../lib/server/tasks/task-store';
import type { TaskRecord, TaskStore } from '../../../lib/server/tasks/task-store';
import { flush, serve } from '../harness';

// A task store shared by the processes of a cluster tells tasks/result of a task that ended where
// this process cannot hear it (another process ran it): the store's settled$ answers the waiter.
describe('tasks/result with a store shared by processes', () => {
  it('answers when the store says the task ended elsewhere, though this process never saw it end', async () => {
    const memory = createMemoryTaskStore();
    const ended = new Subject<TaskRecord>();
    const watched: string[] = [];
    const store: TaskStore = {
      put: (record) => memory.put(record),
      get: (taskId) => memory.get(taskId),
      list: (filter, cursor, limit) => memory.list(filter, cursor, limit),
      delete: (taskId) => memory.delete(taskId),
      settled$: (taskId) => {
        watched.push(taskId);
        return ended;
      },
    };
    const server = createServer({ name: 'shared', version: '1.0.0', tasks: { store } });
    server.tool({ name: 'slow', execution: { taskSupport: 'optional' }, handler: () => NEVER });
    const served = await serve(server, { protocolVersion: '2025-11-25' });
    const created = (await served.call('tools/call', { name: 'slow', arguments: {}, task: {} })) as {
      task: { taskId: string };
    };
    const { taskId } = created.task;
    let answer: Record<string, unknown> | undefined;
    const waiting = served.call('tasks/result', { taskId }).then((result) => (answer = result));
    await flush();
    expect(answer).toBeUndefined();
    expect(watched).toEqual([taskId]);
    // Another process finished it: its final record is in the shared store, and the store says so.
    const record = (await memory.get(taskId))!;
    const finished: TaskRecord = {
      ...record,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'elsewhere' }] },
    };
    await memory.put(finished);
    ended.next(finished);
    await waiting;
    expect(answer).toMatchObject({ content: [{ type: 'text', text: 'elsewhere' }] });
    server.close();
  });
});
