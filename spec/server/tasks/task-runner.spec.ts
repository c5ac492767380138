import pino from 'pino';
import { NEVER, Observable, Subject, VirtualTimeScheduler } from 'rxjs';
import { progress } from '../../../lib/connection/handler-events';
import { TaskRunner } from '../../../lib/server/tasks/task-runner';
import type { TaskSpec } from '../../../lib/server/tasks/task-runner';
import { createMemoryTaskStore } from '../../../lib/server/tasks/task-store';
import type { TaskRecord, TaskStore } from '../../../lib/server/tasks/task-store';
import { advanceTo } from '../../support/virtual-time';

const SPEC: TaskSpec = { design: 'extension', method: 'tools/call' };

function runnerOn(scheduler: VirtualTimeScheduler, store: TaskStore = createMemoryTaskStore({ scheduler })) {
  return new TaskRunner({
    store,
    scheduler,
    defaultTtlMs: 1000,
    maxTtlMs: 5000,
    pollIntervalMs: 100,
    logger: pino({ level: 'silent' }),
  });
}

/** An Observable that never ends on its own and counts its unsubscriptions. */
function endless(counter: { unsubscribed: number }): Observable<never> {
  return new Observable<never>(() => () => {
    counter.unsubscribed++;
  });
}

describe('TaskRunner', () => {
  it('stamps tasks with the scheduler’s clock and follows the work’s emissions', async () => {
    const scheduler = new VirtualTimeScheduler();
    advanceTo(scheduler, 10);
    const runner = runnerOn(scheduler);
    const task = await runner.create(SPEC);
    expect(task.created).toMatchObject({ status: 'working', createdAt: 10, lastUpdatedAt: 10, ttlMs: 1000 });
    const work = new Subject<unknown>();
    task.hold(work.subscribe(task));
    advanceTo(scheduler, 20);
    work.next(progress(1, 4));
    expect(await runner.get(task.taskId)).toMatchObject({ statusMessage: '1/4', lastUpdatedAt: 20 });
    work.next({ content: [] });
    work.complete();
    expect(await runner.get(task.taskId)).toMatchObject({ status: 'completed', result: { content: [] } });
  });

  it('ends a task still running when its time to live passes: the work is unsubscribed and the task forgotten', async () => {
    const scheduler = new VirtualTimeScheduler();
    const runner = runnerOn(scheduler);
    const counter = { unsubscribed: 0 };
    const task = await runner.create({ ...SPEC, requestedTtlMs: 300 });
    task.hold(endless(counter).subscribe(task));
    advanceTo(scheduler, 299);
    expect(counter.unsubscribed).toBe(0);
    advanceTo(scheduler, 300);
    expect(counter.unsubscribed).toBe(1);
    expect(await runner.get(task.taskId)).toBeUndefined();
  });

  it('keeps a finished task until its time to live passes', async () => {
    const scheduler = new VirtualTimeScheduler();
    const runner = runnerOn(scheduler);
    const task = await runner.create(SPEC);
    task.next({ content: [] });
    task.complete();
    advanceTo(scheduler, 999);
    expect((await runner.get(task.taskId))?.status).toBe('completed');
    advanceTo(scheduler, 1000);
    expect(await runner.get(task.taskId)).toBeUndefined();
  });

  it('does not hand out a task before its store has it', async () => {
    const scheduler = new VirtualTimeScheduler();
    const stored: TaskRecord[] = [];
    let release: () => void = () => undefined;
    const slow: TaskStore = {
      put: (record) =>
        new Promise<void>((resolve) => {
          release = () => {
            stored.push(record);
            resolve();
          };
        }),
      get: (taskId) => Promise.resolve(stored.find((record) => record.taskId === taskId)),
      list: () => Promise.resolve({ tasks: stored }),
      delete: () => Promise.resolve(),
    };
    let created = false;
    const creating = runnerOn(scheduler, slow)
      .create(SPEC)
      .then(() => (created = true));
    await Promise.resolve();
    expect(created).toBe(false);
    release();
    await creating;
    expect(stored).toHaveLength(1);
  });

  it('fails every running task when stopped (the server closes), unsubscribing its work', async () => {
    const scheduler = new VirtualTimeScheduler();
    const runner = runnerOn(scheduler);
    const counter = { unsubscribed: 0 };
    const task = await runner.create(SPEC);
    task.hold(endless(counter).subscribe(task));
    runner.stopAll('the server closed');
    expect(counter.unsubscribed).toBe(1);
    expect(await runner.get(task.taskId)).toMatchObject({ status: 'failed', error: { code: -32603 } });
  });

  it('cancels a task another process runs by its record alone', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = createMemoryTaskStore({ scheduler });
    const task = await runnerOn(scheduler, store).create(SPEC);
    task.hold(NEVER.subscribe(task));
    const elsewhere = runnerOn(scheduler, store);
    expect(await elsewhere.cancel(task.taskId)).toMatchObject({ status: 'cancelled' });
    expect(await elsewhere.cancel(task.taskId)).toBeUndefined();
    expect(await elsewhere.answer(task.taskId, {})).toBe(false);
  });
});
