/**
 * What a server with tasks runs: its task handlers around the request handlers, as configured by
 * `TasksOptions` (task-capabilities.ts). Loaded when a server has tasks, with the task runner,
 * store and handlers it brings.
 */
import type { Logger } from 'pino';
import { asyncScheduler } from '../../rx/rxjs';
import type { Observable, SchedulerLike } from '../../rx/rxjs';
import type { RequestHandler } from '../../connection/dispatcher';
import type { RequestStateSealer } from '../request-state';
import type { ToolRegistry } from '../tool-registry';
import { DEFAULT_TASK_POLL_INTERVAL_MS, DEFAULT_TASK_TTL_MS, MAX_TASK_TTL_MS } from './task-capabilities';
import type { TasksOptions } from './task-capabilities';
import { withTasks } from './task-handlers';
import { DEFAULT_MAX_TASKS_PER_PRINCIPAL, DEFAULT_MAX_TASKS_PER_SESSION, TaskQuota } from './task-quota';
import { TaskRunner } from './task-runner';
import { createMemoryTaskStore } from './task-store';

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
