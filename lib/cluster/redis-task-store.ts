/**
 * A {@link TaskStore} in Redis, shared by the processes of a cluster: a task created in one process
 * can be read, listed, cancelled and answered in any, and a task whose process died is reported
 * failed, with an error that says so, instead of `working` for ever.
 */
import { Observable } from '../rx/rxjs';
import { JsonRpcError } from '../jsonrpc/errors';
import { isTerminalStatus } from '../server/tasks/task-store';
import type { TaskFilter, TaskPage, TaskRecord, TaskStore } from '../server/tasks/task-store';
import type { ClusterKeys } from './cluster-keys';
import type { RedisConnection } from './redis-connection';

/** What {@link createRedisTaskStore} needs of the cluster: its Redis, its keys and this process's id. */
export interface RedisTaskStoreOptions {
  readonly redis: RedisConnection;
  readonly keys: ClusterKeys;
  /** The process whose tasks this store keeps: tasks created through it are its to run. */
  readonly processId: string;
  /** The clock of `lastUpdatedAt` on a task found orphaned (its time in ms since the epoch). Default `Date.now`. */
  readonly now?: () => number;
  /** How often a `tasks/result` waiting on a task of another process reads it again. Default 250 ms. */
  readonly settledPollMs?: number;
}

// Writes a task's record (KEYS[1]: its hash; KEYS[2]: its index) unless the stored one is final: a
// final record never changes again, so the first final status wins (a cancel from another process,
// a failure found by a reader) and the writes of the process that ran the task stop there. The
// first write names the process that runs the task (ARGV[2]). ARGV[3]: the record's expiry (ms
// since the epoch, 0 for none); ARGV[4]: its creation time, its index score. 1 written, 0 refused.
const PUT = `
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[1], 'status', ARGV[5])
redis.call('HSETNX', KEYS[1], 'p', ARGV[2])
local expiry = tonumber(ARGV[3])
if expiry > 0 then redis.call('PEXPIREAT', KEYS[1], expiry) end
return 1
`;

// Adds a task to an index (KEYS[1]) with its creation time, keeping the index as long as its newest task.
const INDEX = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local expiry = tonumber(ARGV[3])
if expiry > 0 then redis.call('PEXPIREAT', KEYS[1], expiry, 'GT') else redis.call('PERSIST', KEYS[1]) end
return 1
`;

/** The error a task reports when the process that ran it is gone. */
export function orphanedTaskError(taskId: string, processId: string): JsonRpcError {
  return JsonRpcError.internalError(
    `Internal error: the process that ran task ${taskId} (${processId}) is gone; the task cannot finish`,
  );
}

/**
 * Creates the task store of one cluster process (`tasks: { store }` in `createServer`'s options,
 * the same in every process). A task is a hash (`<prefix>t:{<task>}`: its record's JSON, its
 * status, the process that runs it) expiring when its time to live ends; each owner's (or, without
 * one, each session's) tasks are a sorted set by creation, for `list`. A record that reached a final
 * status never changes: a cancel from another process wins over the results the running process
 * writes after it. Reading a task still running whose process has no heartbeat any more (it died)
 * makes it `failed`, with -32603 naming the process.
 */
export function createRedisTaskStore(options: RedisTaskStoreOptions): TaskStore {
  const { redis, keys, processId, now = Date.now, settledPollMs = 250 } = options;

  const parse = (text: unknown): TaskRecord | undefined => {
    if (typeof text !== 'string' || text === '') return undefined;
    try {
      return JSON.parse(text) as TaskRecord;
    } catch {
      return undefined;
    }
  };

  const write = async (record: TaskRecord, runner: string): Promise<void> => {
    const expiry = record.ttlMs === null ? 0 : record.createdAt + record.ttlMs;
    const key = keys.task(record.taskId);
    await redis.call('EVAL', [PUT, 1, key, JSON.stringify(record), runner, expiry, record.createdAt, record.status]);
  };

  /** A running task whose process is gone fails; resolves with the record as it is now. */
  const settleOrphan = async (record: TaskRecord, runner: string): Promise<TaskRecord> => {
    if (record.status === 'completed' || record.status === 'failed' || record.status === 'cancelled') return record;
    if (runner === '' || Number(await redis.call('EXISTS', [keys.process(runner)])) === 1) return record;
    const failed: TaskRecord = {
      ...record,
      status: 'failed',
      statusMessage: `the process that ran the task is gone`,
      error: orphanedTaskError(record.taskId, runner).toJSON(),
      lastUpdatedAt: now(),
    };
    delete (failed as { inputRequests?: unknown }).inputRequests;
    await write(failed, runner);
    return (await read(record.taskId)) ?? failed;
  };

  const read = async (taskId: string): Promise<TaskRecord | undefined> => {
    const [text] = (await redis.call('HMGET', [keys.task(taskId), 'r', 'p'])) as [unknown, unknown];
    return parse(text);
  };

  return {
    async put(record) {
      await write(record, processId);
      const expiry = record.ttlMs === null ? 0 : record.createdAt + record.ttlMs;
      const filter: TaskFilter = record.owner !== undefined ? { owner: record.owner } : { session: record.session };
      await redis.call('EVAL', [INDEX, 1, keys.taskIndex(filter), record.createdAt, record.taskId, expiry]);
    },
    async get(taskId) {
      const [text, runner] = (await redis.call('HMGET', [keys.task(taskId), 'r', 'p'])) as [unknown, unknown];
      const record = parse(text);
      if (record === undefined) return undefined;
      return settleOrphan(record, typeof runner === 'string' ? runner : '');
    },
    async list(filter, cursor, limit): Promise<TaskPage> {
      const index = keys.taskIndex(filter.owner !== undefined ? { owner: filter.owner } : { session: filter.session });
      let start = 0;
      if (cursor !== undefined) {
        const rank = await redis.call('ZRANK', [index, cursor]);
        if (rank === null || rank === undefined) throw JsonRpcError.invalidParams(`Invalid cursor: ${cursor}`);
        start = Number(rank) + 1;
      }
      const ids = (await redis.call('ZRANGE', [index, start, start + limit])) as string[];
      const page = ids.slice(0, limit);
      const found = await Promise.all(page.map((id) => this.get(id)));
      const gone = page.filter((_, i) => found[i] === undefined);
      if (gone.length > 0) await redis.call('ZREM', [index, ...gone]); // expired tasks leave the index
      const tasks = found.filter((record): record is TaskRecord => record !== undefined);
      return ids.length > limit ? { tasks, nextCursor: page.at(-1)! } : { tasks };
    },
    settled$(taskId) {
      return readUntilFinal(() => this.get(taskId), settledPollMs);
    },
    async delete(taskId) {
      const record = await read(taskId);
      await redis.call('DEL', [keys.task(taskId)]);
      if (record === undefined) return;
      const filter: TaskFilter = record.owner !== undefined ? { owner: record.owner } : { session: record.session };
      await redis.call('ZREM', [keys.taskIndex(filter), taskId]);
    },
  };
}

/**
 * Reads a task again until it is final: one of another process (or one whose process died, which
 * the read fails) ends where this process cannot hear it. Emits the final record and completes;
 * the timer keeps no process alive, and stops when the subscriber leaves.
 */
function readUntilFinal(read: () => Promise<TaskRecord | undefined>, pollMs: number): Observable<TaskRecord> {
  return new Observable<TaskRecord>((subscriber) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = (): void => {
      read().then(
        (record) => {
          if (subscriber.closed) return;
          if (record !== undefined && isTerminalStatus(record.status)) {
            subscriber.next(record);
            subscriber.complete();
          } else timer = setTimeout(check, pollMs).unref();
        },
        (error: unknown) => subscriber.error(error),
      );
    };
    check();
    return () => clearTimeout(timer);
  });
}
