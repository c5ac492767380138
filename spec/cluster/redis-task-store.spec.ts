import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import { ClusterKeys } from '../../lib/cluster/cluster-keys';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { createRedisTaskStore } from '../../lib/cluster/redis-task-store';
import type { TaskRecord } from '../../lib/server/tasks/task-store';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startClusterChild } from '../support/cluster-processes';
import type { ClusterChild } from '../support/cluster-processes';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { startRoundRobinFront } from '../support/round-robin-front';

// Issue #42: tasks kept in Redis, shared by a cluster's processes; a task whose process died is
// failed with an error that says so. On a real redis-server.
jest.setTimeout(30_000);

let redis: RunningRedis;
let admin: RedisConnection;
const keys = new ClusterKeys('tasks:');

beforeAll(async () => {
  redis = await startRedis();
  admin = await connectRedis(redis.url);
});

afterAll(async () => {
  await admin?.quit();
  await redis?.stop();
});

const now = Date.now();
const task = (taskId: string, change: Partial<TaskRecord> = {}): TaskRecord => ({
  taskId,
  status: 'working',
  createdAt: now,
  lastUpdatedAt: now,
  ttlMs: 60_000,
  method: 'tools/call',
  design: 'core',
  session: 's1',
  ...change,
});

/** The stores of two processes, `one` alive (its heartbeat written) and `two`. */
async function twoProcesses() {
  await admin.call('SET', [keys.process('one'), 'http://127.0.0.1:1/mcp', 'PX', 60_000]);
  await admin.call('SET', [keys.process('two'), 'http://127.0.0.1:2/mcp', 'PX', 60_000]);
  return {
    one: createRedisTaskStore({ redis: admin, keys, processId: 'one' }),
    two: createRedisTaskStore({ redis: admin, keys, processId: 'two' }),
  };
}

describe('createRedisTaskStore', () => {
  it('shows a task one process created and updates to every process, and lists them oldest first in pages', async () => {
    const { one, two } = await twoProcesses();
    await one.put(task('a1', { createdAt: now }));
    await one.put(task('a2', { createdAt: now + 1 }));
    await one.put(task('a3', { createdAt: now + 2, session: 'other' }));
    await one.put(task('a1', { statusMessage: '1/2' }));
    expect(await two.get('a1')).toEqual(task('a1', { statusMessage: '1/2' }));
    const first = await two.list({ session: 's1' }, undefined, 1);
    expect(first.tasks.map((t) => t.taskId)).toEqual(['a1']);
    expect(first.nextCursor).toBe('a1');
    const second = await two.list({ session: 's1' }, first.nextCursor, 1);
    expect(second).toEqual({ tasks: [task('a2', { createdAt: now + 1 })] });
    await expect(two.list({ session: 's1' }, 'nope', 1)).rejects.toThrow('Invalid cursor: nope');
    await two.delete('a2');
    expect(await one.get('a2')).toBeUndefined();
    expect((await one.list({ session: 's1' }, undefined, 10)).tasks.map((t) => t.taskId)).toEqual(['a1']);
  });

  it('keeps a final status: a cancel from another process wins over the result the running one writes after it', async () => {
    const { one, two } = await twoProcesses();
    await one.put(task('c1'));
    await two.put(task('c1', { status: 'cancelled' }));
    await one.put(task('c1', { status: 'completed', result: { content: [] } }));
    expect((await one.get('c1'))?.status).toBe('cancelled');
    expect((await one.get('c1'))?.result).toBeUndefined();
  });

  it('tells a waiter in one process when a task of another process ends, and stops watching when left', async () => {
    await admin.call('SET', [keys.process('one'), 'http://127.0.0.1:1/mcp', 'PX', 60_000]);
    const one = createRedisTaskStore({ redis: admin, keys, processId: 'one' });
    const two = createRedisTaskStore({ redis: admin, keys, processId: 'two', settledPollMs: 5 });
    await one.put(task('w1'));
    const settled = firstValueFrom(two.settled$!('w1'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await one.put(task('w1', { status: 'completed', result: { content: [] } }));
    expect(await settled).toMatchObject({ taskId: 'w1', status: 'completed' });
    // Left before the end: nothing is read any more.
    await one.put(task('w2'));
    const reads = jest.spyOn(two, 'get');
    two.settled$!('w2').subscribe().unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(reads.mock.calls.length).toBeLessThanOrEqual(1);
  });

  it('expires a task with its time to live', async () => {
    const { one } = await twoProcesses();
    await one.put(task('e1', { createdAt: Date.now(), ttlMs: 100 }));
    expect(await one.get('e1')).toBeDefined();
    await new Promise((done) => setTimeout(done, 200));
    expect(await one.get('e1')).toBeUndefined();
    expect((await one.list({ session: 's1' }, undefined, 10)).tasks.map((t) => t.taskId)).not.toContain('e1');
  });

  it('fails a running task whose process is gone, with an error naming it; a live process keeps its tasks', async () => {
    const { one, two } = await twoProcesses();
    await one.put(task('o1'));
    expect((await two.get('o1'))?.status).toBe('working');
    await admin.call('DEL', [keys.process('one')]);
    const failed = await two.get('o1');
    expect(failed?.status).toBe('failed');
    expect(failed?.error).toEqual({
      code: -32603,
      message: 'Internal error: the process that ran task o1 (one) is gone; the task cannot finish',
    });
    // Final: the process's late result (a process thought dead) does not replace it.
    await one.put(task('o1', { status: 'completed', result: { content: [] } }));
    expect((await one.get('o1'))?.status).toBe('failed');
  });
});

describe('tasks of a cluster whose process died', () => {
  let a: ClusterChild | undefined;
  let b: ClusterChild | undefined;
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('are failed with an error naming the dead process when read through the process that took the session over', async () => {
    a = await startClusterChild({ redisUrl: redis.url, prefix: 'tasks2:' });
    b = await startClusterChild({ redisUrl: redis.url, prefix: 'tasks2:' });
    const front = await startRoundRobinFront([a.url, b.url]);
    front.pin('initialize', 0);
    const transport = createStreamableHttpClientTransport({
      url: front.url,
      reconnect: { initialDelayMs: 20, maxRetries: 30 },
    });
    const mcp = await connect(transport, { name: 'tasks', version: '1', protocolVersion: '2025-11-25' });
    try {
      const created = (await firstValueFrom(
        mcp.request('tools/call', {
          name: 'countdown',
          arguments: { from: 100, intervalMs: 100, run: 'task' },
          task: { ttl: 60_000 },
        }),
      )) as { task: { taskId: string; status: string } };
      expect(created.task.status).toBe('working');
      const { taskId } = created.task;
      // The task's work started (it counts its run) before its process is killed.
      while ((await admin.call('HGET', ['tasks2:runs', 'task'])) !== '1')
        await new Promise((done) => setTimeout(done, 20));
      await a.stop('SIGKILL');
      front.replace(0, b.url);
      // Read as working until the dead process's heartbeat expires (3 beats of 200 ms), then failed.
      const statuses: string[] = [];
      let got: { status: string; statusMessage?: string };
      do {
        got = (await firstValueFrom(mcp.request('tasks/get', { taskId }))) as typeof got;
        statuses.push(got.status);
        if (got.status === 'working') await new Promise((done) => setTimeout(done, 100));
      } while (got.status === 'working' && statuses.length < 50);
      expect(statuses.slice(0, -1).every((status) => status === 'working')).toBe(true);
      expect(got.status).toBe('failed');
      expect(got.statusMessage).toBe('the process that ran the task is gone');
      await expect(firstValueFrom(mcp.request('tasks/result', { taskId }))).rejects.toThrow(
        `the process that ran task ${taskId} (${a.processId}) is gone`,
      );
      expect(await admin.call('HGET', ['tasks2:runs', 'task'])).toBe('1');
    } finally {
      await mcp.close();
      await front.close();
    }
  });
});
