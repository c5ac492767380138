/**
 * Where a server keeps its tasks: an interface any backend can implement (the cluster mode can keep
 * tasks in Redis), and the in-memory default, whose tasks live at most their time to live and
 * whose size is bounded.
 */
import { asyncScheduler } from '../../rx/rxjs';
import type { Observable, SchedulerLike } from '../../rx/rxjs';
import { JsonRpcError } from '../../jsonrpc/errors';
import type { JsonRpcErrorObject } from '../../jsonrpc/message';
import type { TaskStatus } from '../../schema/tasks';
import { taskQuotaError } from './task-quota';

/** One input request a task waits on: what the client is asked (`elicitation/create`, ...). */
export interface TaskInputRequest {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** A task as the server keeps it; times are milliseconds since the epoch. Immutable: a change is a new record. */
export interface TaskRecord {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** How long after `createdAt` the task may be deleted; null for no limit. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** The method the task stands for (`tools/call`). */
  readonly method: string;
  /** Which design the task was created under: the 2025-11-25 core tasks or the 2026-07-28 extension. */
  readonly design: 'core' | 'extension';
  /** Who created it, where the endpoint verified who the client is: only they may see it. */
  readonly owner?: string;
  /** The session it was created in, for `tasks/list` on an endpoint that cannot tell clients apart. */
  readonly session?: string;
  /** The result of the request, once it produced one. */
  readonly result?: Record<string, unknown>;
  /** The JSON-RPC error the request ended with (status `failed`). */
  readonly error?: JsonRpcErrorObject;
  /** The input requests the task waits on, by key (status `input_required`, extension design). */
  readonly inputRequests?: Readonly<Record<string, TaskInputRequest>>;
  /**
   * The partial results the task keeps for its caller (extension design, SEP-2998, when the call
   * asked for them): the newest pieces, within the server's bound, for `tasks/get` to give.
   */
  readonly partials?: {
    /** The pieces kept, oldest first: each the params of a `notifications/tools/partial_result`. */
    readonly pieces: readonly Readonly<Record<string, unknown>>[];
    /** How many of the oldest pieces were dropped to stay within the bound. */
    readonly dropped: number;
    /** The size of the pieces kept, in UTF-8 bytes of their JSON. */
    readonly bytes: number;
  };
}

/** Which tasks `list` returns: those of one owner, or else those of one session. */
export interface TaskFilter {
  readonly owner?: string;
  readonly session?: string;
}

/** One page of tasks, oldest first. */
export interface TaskPage {
  readonly tasks: readonly TaskRecord[];
  readonly nextCursor?: string;
}

/**
 * Keeps task records. Every method may complete asynchronously (a remote store); the server never
 * answers a task-creating request before `put` has settled, so a `tasks/get` that follows finds it.
 * A store may forget a task once its time to live has passed; `get` then answers undefined.
 */
export interface TaskStore {
  /** Creates or replaces a task's record. May reject when the store is full. */
  put(record: TaskRecord): Promise<void>;
  /** A task's record, or undefined when there is none (or it expired). */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** A page of the tasks `filter` selects; `cursor` is what an earlier page gave as `nextCursor`. */
  list(filter: TaskFilter, cursor: string | undefined, limit: number): Promise<TaskPage>;
  /** Forgets a task's record. */
  delete(taskId: string): Promise<void>;
  /**
   * Emits a task's record once it reaches a final status, whichever process wrote it, then
   * completes; unsubscribing stops watching. For a store shared by processes, so that a
   * `tasks/result` waiting in one process hears of a task another runs. A store of one process
   * needs none: its server hears of its own tasks.
   */
  settled$?(taskId: string): Observable<TaskRecord>;
}

/** Options of `createMemoryTaskStore`. */
export interface MemoryTaskStoreOptions {
  /**
   * The most tasks held at once. When a new one would pass it, the oldest finished task is
   * dropped; when every task is still running, `put` rejects with -32029 (`data.quota`
   * `'server'`). Default 1000.
   */
  readonly maxTasks?: number;
  /** Where the time to live is measured (`scheduler.now()`). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** The default of `maxTasks`. */
export const DEFAULT_MAX_TASKS = 1000;

const TERMINAL: ReadonlySet<TaskStatus> = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);

/** Whether a status is final: a task in it never changes again. */
export function isTerminalStatus(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

/** When a record may be forgotten, in the store's clock. */
function expiryOf(record: TaskRecord): number {
  return record.ttlMs === null ? Infinity : record.createdAt + record.ttlMs;
}

function matches(record: TaskRecord, filter: TaskFilter): boolean {
  if (filter.owner !== undefined) return record.owner === filter.owner;
  return record.owner === undefined && record.session === filter.session;
}

/**
 * The in-memory task store: tasks are forgotten once their time to live has passed (checked on
 * every access, so no timer runs), and at most `maxTasks` are held.
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore {
  const maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
  if (!Number.isInteger(maxTasks) || maxTasks < 1)
    throw new RangeError(`maxTasks must be a positive integer, got ${maxTasks}`);
  const scheduler = options.scheduler ?? asyncScheduler;
  /** By id, in creation order (a Map keeps insertion order; a replaced record keeps its place). */
  const tasks = new Map<string, TaskRecord>();

  const sweep = () => {
    const now = scheduler.now();
    for (const [id, record] of tasks) if (expiryOf(record) <= now) tasks.delete(id);
  };
  const live = (taskId: string): TaskRecord | undefined => {
    const record = tasks.get(taskId);
    if (record === undefined || expiryOf(record) > scheduler.now()) return record;
    tasks.delete(taskId);
    return undefined;
  };
  const makeRoom = () => {
    sweep();
    if (tasks.size < maxTasks) return;
    for (const [id, record] of tasks) {
      if (isTerminalStatus(record.status)) {
        tasks.delete(id);
        return;
      }
    }
    throw taskQuotaError('server', maxTasks, 'maxTasks');
  };

  return {
    put(record) {
      try {
        if (!tasks.has(record.taskId)) makeRoom();
      } catch (error) {
        return Promise.reject(error as Error);
      }
      tasks.set(record.taskId, record);
      return Promise.resolve();
    },
    get: (taskId) => Promise.resolve(live(taskId)),
    list(filter, cursor, limit) {
      sweep();
      const selected = [...tasks.values()].filter((record) => matches(record, filter));
      // The cursor is the id of the last task of the previous page.
      let start = 0;
      if (cursor !== undefined) {
        const index = selected.findIndex((record) => record.taskId === cursor);
        if (index < 0) return Promise.reject(JsonRpcError.invalidParams(`Invalid cursor: ${cursor}`));
        start = index + 1;
      }
      const page = selected.slice(start, start + limit);
      const more = start + limit < selected.length;
      return Promise.resolve(more ? { tasks: page, nextCursor: page.at(-1)!.taskId } : { tasks: page });
    },
    delete(taskId) {
      tasks.delete(taskId);
      return Promise.resolve();
    },
  };
}
