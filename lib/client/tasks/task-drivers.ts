/**
 * The two designs of tasks as `TaskDriver`s: the experimental core tasks of 2025-11-25, and the
 * `io.modelcontextprotocol/tasks` extension of the modern revisions (2026-07-28 on).
 */
import type { Logger } from 'pino';
import { concatMap, EMPTY, filter, map, of, switchMap } from '../../rx/rxjs';
import type { Observable } from '../../rx/rxjs';
import type { RequestHandler } from '../../connection/dispatcher';
import type { RequestOptions } from '../../connection/request-pipeline';
import type { JsonRpcNotification } from '../../jsonrpc/message';
import type { Revision } from '../../schema/revisions';
import { PARTIAL_RESULTS_EXTENSION } from '../../connection/partial-results';
import { encodeHeaderValue } from '../../transport/http-client/streamable-http/request-headers';
import { answerInputRequests } from '../input-requests';
import type { InputRequests } from '../input-requests';
import type { TaskDriver } from './task-follower';
import { readTask2025, readTask2026, TASK_NOTIFICATION_2026, TASK_STATUS_NOTIFICATION } from './task-wire';
import type { TaskSnapshot } from './task-wire';

/** Sends a request the way the client does in its era (with its `_meta` in a modern revision). */
export type SendRequest = (
  method: string,
  params: Record<string, unknown>,
  options?: RequestOptions,
) => Observable<Record<string, unknown>>;

/** What a driver needs from its client. */
export interface DriverDeps {
  readonly request: SendRequest;
  readonly notifications$: Observable<JsonRpcNotification>;
  readonly log: Logger;
  /** Per-request options of the task requests (timeouts, signal). */
  readonly requestOptions?: RequestOptions;
}

/** `tasks/result` for a running task waits as long as the task runs: only the connection's end stops it. */
const WAIT_FOR_END: RequestOptions = { timeoutMs: Infinity };

/**
 * The states a server pushes for one task: notifications of `methods` about it, read with `read`;
 * one that cannot be read is logged and skipped (a peer's mistake does not end the follow).
 */
function pushedStates(
  deps: DriverDeps,
  methods: readonly string[],
  taskId: string,
  read: (params: unknown) => TaskSnapshot,
): Observable<TaskSnapshot> {
  return deps.notifications$.pipe(
    filter((message) => methods.includes(message.method) && message.params?.taskId === taskId),
    concatMap((message) => {
      try {
        return of(read(message.params));
      } catch (error) {
        deps.log.warn({ err: error, method: message.method, taskId }, 'ignored a malformed task notification');
        return EMPTY;
      }
    }),
  );
}

/** The experimental core tasks of 2025-11-25. */
export function coreTaskDriver(deps: DriverDeps): TaskDriver {
  const options = deps.requestOptions ?? {};
  return {
    log: deps.log,
    get: (taskId) => deps.request('tasks/get', { taskId }, options).pipe(map((task) => readTask2025(task))),
    pushed: (taskId) =>
      pushedStates(deps, [TASK_STATUS_NOTIFICATION], taskId, (params) => readTask2025(params, 'task notification')),
    // A task that is over answers at once, within the usual timeout; one still running holds the
    // request as long as it runs.
    fetchResult: (taskId, untilEnd) =>
      deps.request('tasks/result', { taskId }, untilEnd ? { ...options, ...WAIT_FOR_END } : options),
    cancel: (taskId) => deps.request('tasks/cancel', { taskId }, options),
  };
}

/**
 * The options of a request about one task in the tasks extension: on Streamable HTTP its
 * `Mcp-Name` header carries the task id, so that a router can send every request about a task to
 * the instance that holds it (SEP-2663, Streamable HTTP binding).
 */
export function aboutTask(taskId: string, options: RequestOptions = {}): RequestOptions {
  return { ...options, headers: { ...options.headers, 'mcp-name': encodeHeaderValue(taskId) } };
}

/**
 * The options of a `tasks/get` that asks for the task's partial results from `nextSeq` on, those
 * before it being in hand (a server keeping them answers only the newer ones).
 */
function fromPiece(options: RequestOptions, nextSeq: number): RequestOptions {
  return { ...options, meta: { ...options.meta, [PARTIAL_RESULTS_EXTENSION]: { nextSeq } } };
}

/** What the extension driver needs beyond requests: the client's handlers for the input a task asks for. */
export interface ExtensionDriverDeps extends DriverDeps {
  readonly inputHandlers: Readonly<Record<string, RequestHandler>>;
  readonly revision: Revision;
}

/** The `io.modelcontextprotocol/tasks` extension. */
export function extensionTaskDriver(deps: ExtensionDriverDeps): TaskDriver {
  const options = deps.requestOptions ?? {};
  return {
    log: deps.log,
    get: (taskId, nextSeq = 0) =>
      deps
        .request('tasks/get', { taskId }, aboutTask(taskId, nextSeq > 0 ? fromPiece(options, nextSeq) : options))
        .pipe(map((task) => readTask2026(task))),
    pushed: (taskId) =>
      pushedStates(deps, [TASK_NOTIFICATION_2026, TASK_STATUS_NOTIFICATION], taskId, (params) =>
        readTask2026(params, 'task notification'),
      ),
    answerInput: (taskId, requests: InputRequests) =>
      answerInputRequests(requests, deps.inputHandlers, deps.revision).pipe(
        switchMap((inputResponses) =>
          deps.request('tasks/update', { taskId, inputResponses }, aboutTask(taskId, options)),
        ),
      ),
    cancel: (taskId) => deps.request('tasks/cancel', { taskId }, aboutTask(taskId, options)),
  };
}
