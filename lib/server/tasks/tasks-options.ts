/**
 * How a server is configured for tasks, and what it then declares: the 2025-11-25 `tasks`
 * capability to sessions of that revision, the `io.modelcontextprotocol/tasks` extension in
 * `server/discover` (2026-07-28), each only where its revision has it.
 */
import type { Logger } from 'pino';
import { asyncScheduler } from '../../rx/rxjs';
import type { Observable, SchedulerLike } from '../../rx/rxjs';
import type { RequestHandler } from '../../connection/dispatcher';
import type { ServerCapabilities } from '../../schema/lifecycle';
import { featuresOf, isModernRevision } from '../../schema/revisions';
import type { Revision } from '../../schema/revisions';
import { TASKS_EXTENSION } from '../../schema/tasks';
import type { RequestStateSealer } from '../request-state';
import type { ToolRegistry } from '../tool-registry';
import { withTasks } from './task-handlers';
import { DEFAULT_MAX_TASKS_PER_PRINCIPAL, DEFAULT_MAX_TASKS_PER_SESSION, TaskQuota } from './task-quota';
import { TaskRunner } from './task-runner';
import { createMemoryTaskStore } from './task-store';
import type { TaskStore } from './task-store';

/** Options of a server's tasks (`tasks` in `createServer`'s options). */
export interface TasksOptions {
  /** Where tasks are kept. Default: in memory (`createMemoryTaskStore`), at most `maxTasks` tasks. */
  readonly store?: TaskStore;
  /** The most tasks the default in-memory store holds (see `createMemoryTaskStore`). Default 1000. */
  readonly maxTasks?: number;
  /**
   * The most tasks one session may run at once (in this process); one more is refused with
   * -32029, `data.quota` `'session'`. The session's tasks that belong to no principal are
   * cancelled and forgotten when it ends. Default 100.
   */
  readonly maxTasksPerSession?: number;
  /**
   * The most tasks one principal (a verified caller, see `principalOf`) may run at once (in this
   * process), over all its sessions and modern requests; one more is refused with -32029,
   * `data.quota` `'principal'`. Default 250.
   */
  readonly maxTasksPerPrincipal?: number;
  /** The time to live of a task whose client asked for none. Default 5 minutes. */
  readonly defaultTtlMs?: number;
  /** The longest time to live granted, whatever the client asks for. Default 1 hour. */
  readonly maxTtlMs?: number;
  /** The interval between polls suggested to clients. Default 1 second. */
  readonly pollIntervalMs?: number;
  /**
   * The most pieces of partial results (SEP-2998, with the `partialResults()` extension) a task of
   * the 2026-07-28 tasks extension keeps for `tasks/get`; past it the oldest are dropped, and
   * `tasks/get` says how many. Default 100.
   */
  readonly maxPartialResultsPerTask?: number;
  /** The most UTF-8 bytes of JSON those pieces take per task, likewise. Default 64 KiB. */
  readonly maxPartialResultBytesPerTask?: number;
}

export const DEFAULT_TASK_TTL_MS = 5 * 60_000;
export const MAX_TASK_TTL_MS = 60 * 60_000;
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000;

/** The capabilities a server with tasks declares (each revision keeps only its own, see `capabilitiesForRevision`). */
export const TASK_CAPABILITIES: ServerCapabilities = {
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  extensions: { [TASKS_EXTENSION]: {} },
} as ServerCapabilities;

/**
 * The capabilities declared to a session of `revision`: the tasks extension is not a capability of
 * the handshake revisions (they have their own `tasks`), and `tasks` only of 2025-11-25.
 */
export function capabilitiesForRevision(
  capabilities: ServerCapabilities,
  revision: string | undefined,
): ServerCapabilities {
  if (revision === undefined || isModernRevision(revision)) return capabilities;
  const declared: Record<string, unknown> = { ...capabilities };
  const extensions = declared.extensions as Record<string, unknown> | undefined;
  if (extensions !== undefined && TASKS_EXTENSION in extensions) {
    const { [TASKS_EXTENSION]: _tasks, ...others } = extensions;
    if (Object.keys(others).length > 0) declared.extensions = others;
    else delete declared.extensions;
  }
  if (!featuresOf(revision as Revision).tasks) delete declared.tasks;
  return declared as ServerCapabilities;
}

/** What the task handlers are built from. */
export interface TaskSetup {
  readonly tools: ToolRegistry;
  readonly sealer: RequestStateSealer;
  readonly scheduler: SchedulerLike | undefined;
  readonly logger: Logger;
  readonly pageSize: number;
  /** Emits when the server closes: the tasks it runs end. */
  readonly closing: Observable<void>;
}

function positive(name: string, value: number): number {
  if (!(value > 0)) throw new RangeError(`tasks.${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}

function positiveInteger(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && value > 0))
    throw new RangeError(`tasks.${name} must be a positive integer, got ${value}`);
  return value;
}

/** `handlers` with tasks, as configured by `options`. */
export function handlersWithTasks(
  handlers: Readonly<Record<string, RequestHandler>>,
  options: TasksOptions,
  setup: TaskSetup,
): Record<string, RequestHandler> {
  const scheduler = setup.scheduler ?? asyncScheduler;
  const runner = new TaskRunner({
    store: options.store ?? createMemoryTaskStore({ scheduler, maxTasks: options.maxTasks }),
    scheduler,
    defaultTtlMs: positive('defaultTtlMs', options.defaultTtlMs ?? DEFAULT_TASK_TTL_MS),
    maxTtlMs: positive('maxTtlMs', options.maxTtlMs ?? MAX_TASK_TTL_MS),
    pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs ?? DEFAULT_TASK_POLL_INTERVAL_MS),
    logger: setup.logger.child({ component: 'tasks' }),
    quota: new TaskQuota(
      options.maxTasksPerSession ?? DEFAULT_MAX_TASKS_PER_SESSION,
      options.maxTasksPerPrincipal ?? DEFAULT_MAX_TASKS_PER_PRINCIPAL,
    ),
  });
  setup.closing.subscribe(() => runner.stopAll('the server closed while the task ran'));
  const partials = {
    maxPieces: positiveInteger('maxPartialResultsPerTask', options.maxPartialResultsPerTask),
    maxBytes: positiveInteger('maxPartialResultBytesPerTask', options.maxPartialResultBytesPerTask),
  };
  return withTasks(handlers, {
    tools: setup.tools,
    runner,
    sealer: setup.sealer,
    scheduler: setup.scheduler,
    pageSize: setup.pageSize,
    partials,
  });
}
