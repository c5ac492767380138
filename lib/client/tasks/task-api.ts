import type { Observable } from '../../rx/rxjs';
import type { RequestOptions } from '../../connection/request-pipeline';
import type { TaskEvent } from './task-follower';
import type { TaskInfo } from './task-wire';

/** How a task is followed (`client.tasks.callTool`, `client.tasks.resume`). */
export interface TaskFollowOptions {
  /** Between polls of `tasks/get` when the server suggests no interval. Default 1000 ms. */
  readonly pollIntervalMs?: number;
  /**
   * Send `tasks/cancel` when the subscriber unsubscribes before the result. Default false:
   * unsubscribing only stops following, and the task runs on (resume it by id later).
   */
  readonly cancelOnUnsubscribe?: boolean;
  /** Options of each task request (`tasks/get`, `tasks/update`, `tasks/cancel`): timeout, signal. */
  readonly requestOptions?: RequestOptions;
}

/** Options of `client.tasks.callTool`: the `tools/call` request's own, and how the task is followed. */
export interface TaskCallOptions extends RequestOptions, TaskFollowOptions {
  /**
   * 2025-11-25: the time to live asked for the task (`task.ttl`); the server may choose another.
   * The tasks extension has no such request field: the server decides.
   */
  readonly ttlMs?: number;
  /**
   * Ask for the tool's partial results (`partial` events) while its task runs: in the session
   * (2025-11-25), or kept by the server and carried by each `tasks/get` answer (the tasks
   * extension). Default: when both sides declared partial results (`connect(..., { partialResults:
   * true })` and the server's `partialResults()` extension). `false`: the server makes the pieces
   * progress (2025-11-25) or status messages (the tasks extension), as without partial results.
   */
  readonly partialResults?: boolean;
}

/**
 * Tasks, on the client side: tool calls that the server runs in the background and the client
 * follows by polling, in both designs. 2025-11-25 (experimental core tasks): the client asks for
 * a task with `task` in `tools/call` when the server declares `tasks.requests.tools.call` and the
 * tool's `execution.taskSupport` allows it. 2026-07-28 on (the `io.modelcontextprotocol/tasks`
 * extension, enabled with `ClientOptions.tasks`): the server decides whether a call becomes a task.
 * Every follow is a cold Observable of `TaskEvent`s: status events (polled with `tasks/get` at the
 * server's `pollInterval`, and from its status notifications), input events, then the result.
 */
export interface McpClientTasks {
  /**
   * Calls a tool as a task. Cold: subscribing sends `tools/call` and follows the task it creates:
   * a status event for each change, an `input_required` event for each request for input the
   * client answers (with its sampling, elicitation and roots handlers), and the result last. In the
   * tasks extension a server may answer at once, with the result and no task. Unsubscribing stops
   * following; the task runs on unless `cancelOnUnsubscribe`. Errors with `TaskNotSupportedError`
   * before sending anything when the server or the tool does not take tasks, `TaskCancelledError`
   * when the task ends cancelled, the failed request's `JsonRpcError`, or the server's errors.
   * @example
   * client.tasks.callTool('render', { scene: 1 }).pipe(taskResult()).subscribe(show);
   */
  callTool(name: string, args?: Record<string, unknown>, options?: TaskCallOptions): Observable<TaskEvent>;
  /**
   * Follows a task by id, as `callTool` does once the task exists: for a task started earlier, by
   * this client or by an earlier process (keep the id from the first status event). Polls at once.
   * A tasks-extension task's partial results that the server keeps come as `partial` events too,
   * when the client declared partial results.
   */
  resume(taskId: string, options?: TaskFollowOptions): Observable<TaskEvent>;
  /** The task's current state (`tasks/get`). Cold. */
  get(taskId: string, options?: RequestOptions): Observable<TaskInfo>;
  /**
   * Asks the server to cancel the task (`tasks/cancel`). Cold; emits once the server agreed and
   * completes. A follower of the task then sees it `cancelled` and fails with `TaskCancelledError`.
   */
  cancel(taskId: string, options?: RequestOptions): Observable<void>;
  /**
   * Every task of the server, across pages (`tasks/list`; 2025-11-25 only, when the server
   * declares `tasks.list`). Cold. The tasks extension has no listing: `TaskNotSupportedError`.
   */
  list(options?: RequestOptions): Observable<TaskInfo[]>;
}
