import { VirtualTimeScheduler } from 'rxjs';
import { JsonRpcError } from '../../../lib/jsonrpc/errors';
import { createMemoryTaskStore } from '../../../lib/server/tasks/task-store';
import type { TaskRecord } from '../../../lib/server/tasks/task-store';

/** Moves a virtual clock forward to `ms`. */
function advanceTo(scheduler: VirtualTimeScheduler, ms: number): void {
  scheduler.schedule(() => undefined, ms - scheduler.now());
  scheduler.flush();
}

const record = (taskId: string, extra: Partial<TaskRecord> = {}): TaskRecord => ({
  taskId,
  status: 'working',
  createdAt: 0,
  lastUpdatedAt: 0,
  ttlMs: 1000,
  method: 'tools/call',
  design: 'core',
  ...extra,
});

describe('createMemoryTaskStore', () => {
  it('keeps a task for its time to live and forgets it once that has passed', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = createMemoryTaskStore({ scheduler });
    await store.put(record('a', { ttlMs: 1000 }));
    advanceTo(scheduler, 999);
    expect((await store.get('a'))?.taskId).toBe('a');
    advanceTo(scheduler, 1000);
    expect(await store.get('a')).toBeUndefined();
  });

  it('never forgets a task whose time to live is null, and measures the others from their creation', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = createMemoryTaskStore({ scheduler });
    await store.put(record('forever', { ttlMs: null }));
    advanceTo(scheduler, 500);
    await store.put(record('late', { createdAt: 500, ttlMs: 1000 }));
    advanceTo(scheduler, 1_000_000);
    expect((await store.get('forever'))?.taskId).toBe('forever');
    expect(await store.get('late')).toBeUndefined();
    expect((await store.list({}, undefined, 10)).tasks.map((task) => task.taskId)).toEqual(['forever']);
  });

  it('drops the oldest finished task to make room past maxTasks', async () => {
    const store = createMemoryTaskStore({ maxTasks: 2, scheduler: new VirtualTimeScheduler() });
    await store.put(record('running'));
    await store.put(record('done', { status: 'completed' }));
    await store.put(record('new'));
    expect(await store.get('done')).toBeUndefined();
    expect((await store.get('running'))?.status).toBe('working');
    expect((await store.get('new'))?.status).toBe('working');
  });

  it('refuses a new task with -32029 (quota server) when maxTasks are all still running, and still updates those it holds', async () => {
    const store = createMemoryTaskStore({ maxTasks: 1, scheduler: new VirtualTimeScheduler() });
    await store.put(record('running'));
    const refused = store.put(record('another'));
    await expect(refused).rejects.toBeInstanceOf(JsonRpcError);
    await expect(refused).rejects.toMatchObject({ code: -32029, data: { quota: 'server', limit: 1 } });
    await store.put(record('running', { status: 'completed' }));
    expect((await store.get('running'))?.status).toBe('completed');
  });

  it('lists the tasks of one owner, or of one session when there is no owner, a page at a time', async () => {
    const store = createMemoryTaskStore({ scheduler: new VirtualTimeScheduler() });
    await store.put(record('s1', { session: 'one' }));
    await store.put(record('o1', { owner: 'alice', session: 'one' }));
    await store.put(record('s2', { session: 'one' }));
    await store.put(record('s3', { session: 'one' }));
    await store.put(record('x', { session: 'two' }));
    const first = await store.list({ session: 'one' }, undefined, 2);
    expect(first.tasks.map((task) => task.taskId)).toEqual(['s1', 's2']);
    const second = await store.list({ session: 'one' }, first.nextCursor, 2);
    expect(second.tasks.map((task) => task.taskId)).toEqual(['s3']);
    expect(second.nextCursor).toBeUndefined();
    expect((await store.list({ owner: 'alice' }, undefined, 10)).tasks.map((task) => task.taskId)).toEqual(['o1']);
    await expect(store.list({ session: 'one' }, 'no-such-task', 2)).rejects.toMatchObject({ code: -32602 });
  });

  it('deletes a task', async () => {
    const store = createMemoryTaskStore();
    await store.put(record('a', { createdAt: Date.now() }));
    await store.delete('a');
    expect(await store.get('a')).toBeUndefined();
  });

  it('rejects a maxTasks that is not a positive integer', () => {
    expect(() => createMemoryTaskStore({ maxTasks: 0 })).toThrow(RangeError);
  });
});
