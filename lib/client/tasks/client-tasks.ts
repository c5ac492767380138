/**
 * `client.tasks`: task calls in the client's era, on the design of its revision (2025-11-25 core
 * tasks on a handshake connection, the tasks extension on a modern one).
 */
import type { Logger } from 'pino';
import { defer, last, map, Observable, of, switchMap, tap, throwError, toArray } from '../../rx/rxjs';
import type { SchedulerLike } from '../../rx/rxjs';
import { hasCapability } from '../../connection/capabilities';
import type { Connection } from '../../connection/connection';
import type { PartialResultParams } from '../../connection/correlator';
import type { RequestHandler } from '../../connection/dispatcher';
import type { RequestOptions } from '../../connection/request-pipeline';
import { ProtocolError } from '../../jsonrpc/errors';
import { paginate } from '../../operators/paginate';
import { describeIssues, toValidationIssues } from '../../validation/issues';
import { checkResult } from '../../schema/methods';
import type { Revision } from '../../schema/revisions';
import type { CallToolResult, Tool } from '../../schema/tools';
import type { InputRequests } from '../input-requests';
import type { McpClientTasks, TaskCallOptions, TaskFollowOptions } from './task-api';
import { coreTaskDriver, extensionTaskDriver } from './task-drivers';
import { TaskNotSupportedError } from './task-errors';
import { followTask } from './task-follower';
import { serverDeclaresPartials, taskPartialsToken, withTaskPartials } from './task-partials';
import type { TaskDriver, TaskEvent } from './task-follower';
import { isTaskHandle, readTask2025, readTask2026, TASKS_EXTENSION } from './task-wire';
import type { TaskInfo, TaskSnapshot } from './task-wire';

/** What the tasks need from their client (the client class has all of it). */
export interface TaskHost {
  readonly connection: Connection;
  readonly era: 'modern' | 'legacy';
  readonly revision: Revision;
  readonly serverCapabilities: Record<string, unknown>;
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Observable<Record<string, unknown>>;
  /** Sends `tools/call` as every tool call goes (headers, input rounds); `onTask` takes a task handle. */
  sendToolCall(
    params: Record<string, unknown>,
    options: RequestOptions,
    onInputRequired: (round: number, requests: InputRequests) => void,
    onTask?: (handle: Record<string, unknown>) => Observable<Record<string, unknown>>,
  ): Observable<Record<string, unknown>>;
  toolNamed(name: string, fetchIfUnknown: boolean): Observable<Tool | undefined>;
}

/** The client's options that tasks read (`ClientOptions` has them). */
export interface ClientTasksOptions {
  /** The tasks extension is enabled: declared, and task handles followed. */
  readonly tasks?: boolean;
  readonly scheduler?: SchedulerLike;
  readonly maxListPages?: number;
  /** The client declared partial results: its task calls ask for them when the server did too. */
  readonly partialResults?: boolean;
}

/** How `client.tasks` is set up. */
interface ClientTasksSetup {
  readonly host: TaskHost;
  readonly extensionEnabled: boolean;
  readonly inputHandlers: Readonly<Record<string, RequestHandler>>;
  readonly scheduler?: SchedulerLike;
  readonly maxListPages?: number;
  readonly partialResults?: boolean;
  readonly log: Logger;
}

/** What a task-augmented `tools/call` answered: a task to follow, or (tasks extension) the result itself. */
type Created = { readonly task: TaskSnapshot } | { readonly result: Record<string, unknown> };

const DEFAULT_MAX_LIST_PAGES = 1000;
/**
 * How a plain `callTool` follows the task it became: unsubscribing cancels a plain call, so it
 * cancels the task too.
 */
const PLAIN_CALL: TaskFollowOptions = { cancelOnUnsubscribe: true };

class ClientTasks implements McpClientTasks {
  private readonly host: TaskHost;
  private readonly modern: boolean;

  constructor(private readonly setup: ClientTasksSetup) {
    this.host = setup.host;
    this.modern = setup.host.era === 'modern';
  }

  callTool(name: string, args?: Record<string, unknown>, options: TaskCallOptions = {}): Observable<TaskEvent> {
    const { ttlMs, pollIntervalMs, cancelOnUnsubscribe, requestOptions, partialResults, ...callOptions } = options;
    const follow: TaskFollowOptions = { pollIntervalMs, cancelOnUnsubscribe, requestOptions };
    const wanted =
      partialResults ?? (this.setup.partialResults === true && serverDeclaresPartials(this.host.serverCapabilities));
    if (!wanted) return this.callAsTask(name, args, ttlMs, callOptions, follow);
    const token = taskPartialsToken();
    const asking = { ...callOptions, meta: { ...callOptions.meta, partialResultToken: token } };
    // The tasks extension: the server keeps the pieces, and each tasks/get answer carries the newer ones.
    if (this.modern) return this.callAsTask(name, args, ttlMs, asking, follow, token);
    // 2025-11-25 tasks answer the call at once: partial results come later, in the session.
    return withTaskPartials(
      this.host.connection.notifications$,
      token,
      this.callAsTask(name, args, ttlMs, asking, follow),
    );
  }

  private callAsTask(
    name: string,
    args: Record<string, unknown> | undefined,
    ttlMs: number | undefined,
    callOptions: RequestOptions,
    follow: TaskFollowOptions,
    partialResultToken?: string,
  ): Observable<TaskEvent> {
    return new Observable<TaskEvent>((subscriber) => {
      const params: Record<string, unknown> = { name, arguments: args ?? {} };
      if (!this.modern) params.task = ttlMs === undefined ? {} : { ttl: ttlMs };
      const onInput = (_round: number, requests: InputRequests) =>
        subscriber.next({ type: 'input_required', requests });
      return this.refusal(name)
        .pipe(
          switchMap(() => this.create(params, callOptions, onInput)),
          switchMap((created) =>
            'task' in created
              ? this.follow(created.task, follow, partialResultToken)
              : defer(() => [{ type: 'result' as const, result: this.checkToolResult(created.result) }]),
          ),
        )
        .subscribe(subscriber);
    });
  }

  resume(taskId: string, options: TaskFollowOptions = {}): Observable<TaskEvent> {
    return defer(() => this.usable('tasks/get')).pipe(switchMap(() => this.follow(taskId, options)));
  }

  get(taskId: string, options?: RequestOptions): Observable<TaskInfo> {
    return defer(() => this.usable('tasks/get')).pipe(
      switchMap(() => this.driver(options).get(taskId)),
      map((s) => s.info),
    );
  }

  cancel(taskId: string, options?: RequestOptions): Observable<void> {
    return defer(() => this.usable('tasks/cancel')).pipe(
      switchMap(() => this.driver(options).cancel(taskId)),
      map((): void => undefined),
    );
  }

  list(options?: RequestOptions): Observable<TaskInfo[]> {
    if (this.modern) {
      return throwError(() => new TaskNotSupportedError('tasks/list', 'the tasks extension has no listing'));
    }
    return paginate<Record<string, unknown>, unknown>({
      fetchPage: (cursor) => this.host.request('tasks/list', cursor === undefined ? {} : { cursor }, options),
      items: (page) => (Array.isArray(page.tasks) ? page.tasks : []),
      nextCursor: (page) => page.nextCursor as string | undefined,
      maxPages: this.setup.maxListPages ?? DEFAULT_MAX_LIST_PAGES,
    }).pipe(
      map((task) => readTask2025(task, 'tasks/list entry').info),
      toArray(),
    );
  }

  /**
   * A task handle that a plain `tools/call` got (tasks extension): followed to its result, which
   * the call then answers, and the partial results the task keeps handed to `onPartialResult`
   * (the call's, when it asked for them). Without the extension enabled, a server had no business
   * sending one.
   */
  settle(
    handle: Record<string, unknown>,
    onPartialResult?: (partial: PartialResultParams) => void,
  ): Observable<Record<string, unknown>> {
    if (!this.setup.extensionEnabled) {
      return throwError(
        () =>
          new ProtocolError(
            'Invalid result for tools/call from the server: a task handle, but the client did not enable the tasks extension',
          ),
      );
    }
    return defer(() => this.follow(readTask2026(handle, 'task handle'), PLAIN_CALL)).pipe(
      tap((event) => {
        if (event.type !== 'partial' || onPartialResult === undefined) return;
        const { type: _type, missed: _missed, ...piece } = event;
        onPartialResult(piece);
      }),
      last(),
      map((event) => (event as { result: Record<string, unknown> }).result),
    );
  }

  /**
   * A plain `tools/call` on a handshake connection. Tasks → Tool-Level Negotiation: a tool whose
   * `execution.taskSupport` is `required` must be called as a task, so such a call is made one and
   * followed to its result, which the call answers; any other goes as it is. Only a server that
   * takes task-augmented calls costs a look at the tool's definition.
   */
  plainCall(params: Record<string, unknown>, options: RequestOptions): Observable<Record<string, unknown>> {
    const { connection } = this.host;
    if (!hasCapability(this.host.serverCapabilities, 'tasks.requests.tools.call') || params.task !== undefined) {
      return connection.request('tools/call', params, options);
    }
    return this.host.toolNamed(String(params.name), true).pipe(
      switchMap((tool) => {
        if (tool?.execution?.taskSupport !== 'required') return connection.request('tools/call', params, options);
        return connection.request('tools/call', { ...params, task: {} }, options).pipe(
          switchMap((created) => this.follow(readTask2025(created.task, 'CreateTaskResult'), PLAIN_CALL)),
          last(),
          map((event) => (event as { result: Record<string, unknown> }).result),
        );
      }),
    );
  }

  private follow(
    start: TaskSnapshot | string,
    options: TaskFollowOptions,
    partialResultToken?: string,
  ): Observable<TaskEvent> {
    return followTask(this.driver(options.requestOptions), start, {
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      ...(partialResultToken === undefined ? {} : { partialResultToken }),
      cancelOnUnsubscribe: options.cancelOnUnsubscribe ?? false,
      ...(this.setup.scheduler ? { scheduler: this.setup.scheduler } : {}),
      checkResult: (result) => this.checkToolResult(result),
    });
  }

  private driver(requestOptions?: RequestOptions): TaskDriver {
    const deps = {
      request: (method: string, params: Record<string, unknown>, options?: RequestOptions) =>
        this.host.request(method, params, options),
      notifications$: this.host.connection.notifications$,
      log: this.setup.log,
      ...(requestOptions ? { requestOptions } : {}),
    };
    return this.modern
      ? extensionTaskDriver({ ...deps, inputHandlers: this.setup.inputHandlers, revision: this.host.revision })
      : coreTaskDriver(deps);
  }

  /** Sends the `tools/call` that makes the task, and reads what it answered. */
  private create(
    params: Record<string, unknown>,
    options: RequestOptions,
    onInput: (round: number, requests: InputRequests) => void,
  ): Observable<Created> {
    if (!this.modern) {
      return this.host
        .request('tools/call', params, options)
        .pipe(map((created) => ({ task: readTask2025(created.task, 'CreateTaskResult') })));
    }
    // The handle comes back as the call's answer, to be followed here.
    return this.host
      .sendToolCall(params, options, onInput, (handle) => of(handle))
      .pipe(
        map((result): Created => (isTaskHandle(result) ? { task: readTask2026(result, 'task handle') } : { result })),
      );
  }

  /** Why a task call may not be made: a `TaskNotSupportedError`, or nothing (emits once). */
  private refusal(name: string): Observable<unknown> {
    return defer(() => this.usable('tools/call')).pipe(
      switchMap(() => (this.modern ? [undefined] : this.host.toolNamed(name, true))),
      map((tool) => {
        // Basic → Utilities → Tasks → Tool-Level Negotiation: absent or "forbidden" means no task.
        const support = tool?.execution?.taskSupport;
        if (tool && support !== 'optional' && support !== 'required') {
          throw new TaskNotSupportedError(
            'tools/call',
            `tool "${name}" does not support tasks (taskSupport: ${support ?? 'absent'})`,
          );
        }
        return undefined;
      }),
    );
  }

  /** Emits once when the era's design allows `method` as a task method; throws `TaskNotSupportedError` else. */
  private usable(method: string): [undefined] {
    const capabilities = this.host.serverCapabilities;
    if (this.modern) {
      if (!this.setup.extensionEnabled) {
        throw new TaskNotSupportedError(
          method,
          `enable the ${TASKS_EXTENSION} extension with the client's tasks option`,
        );
      }
      const extensions = capabilities.extensions as Record<string, unknown> | undefined;
      if (Object.keys(capabilities).length > 0 && extensions?.[TASKS_EXTENSION] === undefined) {
        throw new TaskNotSupportedError(method, `the server does not declare the ${TASKS_EXTENSION} extension`);
      }
    } else if (method === 'tools/call' && !hasCapability(capabilities, 'tasks.requests.tools.call')) {
      throw new TaskNotSupportedError(method, 'the server does not declare tasks.requests.tools.call');
    }
    return [undefined];
  }

  private checkToolResult(result: Record<string, unknown>): CallToolResult {
    // The payload as the revision's tools/call answers it (a modern one says `complete`).
    const answer = this.modern ? { resultType: 'complete', ...result } : result;
    const outcome = checkResult('tools/call', this.host.revision, answer);
    if (outcome && !outcome.success) {
      throw new ProtocolError(
        `Invalid task result for tools/call from the server: ${describeIssues(toValidationIssues(outcome.error))}`,
      );
    }
    return result as CallToolResult;
  }
}

/** `client.tasks` of one client, with `settle` for the task handles its plain tool calls get. */
export function createClientTasks(
  host: TaskHost,
  options: ClientTasksOptions,
  inputHandlers: Readonly<Record<string, RequestHandler>>,
  log: Logger,
): McpClientTasks & Pick<ClientTasks, 'settle' | 'plainCall'> {
  return new ClientTasks({
    host,
    extensionEnabled: options.tasks === true,
    inputHandlers,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.maxListPages === undefined ? {} : { maxListPages: options.maxListPages }),
    ...(options.partialResults === undefined ? {} : { partialResults: options.partialResults }),
    log,
  });
}
