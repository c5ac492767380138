/**
 * How a server is configured for tasks, and what it then declares: the 2025-11-25 `tasks`
 * capability to sessions of that revision, the `io.modelcontextprotocol/tasks` extension in
 * `server/discover` (2026-07-28), each only where its revision has it. What a server with tasks
 * runs (task-setup.ts and the modules it loads) is loaded when a server has tasks.
 */
import type { ServerCapabilities } from '../../schema/lifecycle';
import { featuresOf, isModernRevision } from '../../schema/revisions';
import type { Revision } from '../../schema/revisions';
import { TASKS_EXTENSION } from '../../schema/tasks';
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
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  const hasTasksExtension = extensions !== undefined && TASKS_EXTENSION in extensions;
  const dropsTasks = capabilities.tasks !== undefined && !featuresOf(revision as Revision).tasks;
  // Nothing to take out: the very object, which every session of the revision then shares.
  if (!hasTasksExtension && !dropsTasks) return capabilities;
  const declared: Record<string, unknown> = { ...capabilities };
  if (hasTasksExtension) {
    const { [TASKS_EXTENSION]: _tasks, ...others } = extensions;
    if (Object.keys(others).length > 0) declared.extensions = others;
    else delete declared.extensions;
  }
  if (dropsTasks) delete declared.tasks;
  return declared as ServerCapabilities;
}
