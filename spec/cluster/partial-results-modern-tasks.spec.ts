import type { Observable, Subject } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { TaskEvent } from '../../lib/client/tasks/task-follower';
import { ClusterKeys } from '../../lib/cluster/cluster-keys';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { createRedisTaskStore } from '../../lib/cluster/redis-task-store';
import { partialResult } from '../../lib/connection/handler-events';
import { partialResults } from '../../lib/server/partial-results';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { eventually } from '../support/until';
import { drivenHandler } from '../support/driven-tool';

// Partial results of a task of the 2026-07-28 tasks extension, in a cluster: the pieces a task keeps
// are part of its record, so with the tasks in Redis a `tasks/get` answered by another process
// gives them too. Two servers share one store (each a process of the cluster); a client of the
// second follows, by its id, the task a client of the first started. On a real redis-server.
jest.setTimeout(30_000);

let redis: RunningRedis;
let admin: RedisConnection;
const keys = new ClusterKeys('partials:');

beforeAll(async () => {
  redis = await startRedis();
  admin = await connectRedis(redis.url);
});

afterAll(async () => {
  await admin?.quit();
  await redis?.stop();
});

describe('partial results of a 2026-07-28 task kept in Redis', () => {
  const servers: McpServer[] = [];
  const clients: McpClient[] = [];
  let runs: Subject<unknown>[];

  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    for (const server of servers.splice(0)) server.close();
  });

  async function processNamed(processId: string): Promise<McpServer> {
    await admin.call('SET', [keys.process(processId), `http://127.0.0.1/${processId}`, 'PX', 60_000]);
    const server = createServer({
      name: processId,
      version: '1.0.0',
      logging: false,
      tasks: { store: createRedisTaskStore({ redis: admin, keys, processId }), pollIntervalMs: 20 },
      extensions: [partialResults()],
    });
    server.tool({
      name: 'write',
      description: 'writes what the test pushes',
      execution: { taskSupport: 'optional' },
      handler: drivenHandler(runs),
    });
    servers.push(server);
    return server;
  }

  async function clientOf(server: McpServer): Promise<McpClient> {
    const [clientSide, serverSide] = createInMemoryPair();
    server.connect(serverSide);
    const client = await connect(clientSide, {
      name: 'reader',
      version: '1.0.0',
      protocolVersion: '2026-07-28',
      tasks: true,
      partialResults: true,
    });
    clients.push(client);
    return client;
  }

  function follow(events$: Observable<TaskEvent>) {
    const state = { events: [] as TaskEvent[], done: false };
    events$.subscribe({ next: (event) => state.events.push(event), complete: () => (state.done = true) });
    return state;
  }

  it('are given by a tasks/get that another process answers, each once, in order, before the result', async () => {
    runs = [];
    const one = await clientOf(await processNamed('one'));
    const two = await clientOf(await processNamed('two'));
    const started = follow(one.tasks.callTool('write', {}));
    await eventually(() => started.events.length > 0 && runs.length === 1);
    const taskId = (started.events[0] as Extract<TaskEvent, { type: 'status' }>).task.taskId;
    runs[0]!.next(partialResult('a'));
    runs[0]!.next(partialResult('b'));
    const resumed = follow(two.tasks.resume(taskId));
    await eventually(() => resumed.events.filter((event) => event.type === 'partial').length === 2);
    runs[0]!.next(partialResult('c'));
    runs[0]!.next(textResult('abc'));
    runs[0]!.complete();
    await eventually(() => resumed.done && started.done);
    for (const { events } of [started, resumed]) {
      const pieces = events.filter((event) => event.type === 'partial');
      expect(pieces.map((event) => [event.seq, event.content])).toEqual([
        [0, [{ type: 'text', text: 'a' }]],
        [1, [{ type: 'text', text: 'b' }]],
        [2, [{ type: 'text', text: 'c' }]],
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'result', result: { content: [{ type: 'text', text: 'abc' }] } });
    }
  });
});
